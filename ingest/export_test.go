package ingest

// What the external tests of this package use of its insides.

// ContentHash is contentHash.
var ContentHash = contentHash

// LoseParsed drops, from c, every file the load res parsed, as a cache
// that lost them would.
func LoseParsed(res *Result, c Cache) {
	for _, rd := range res.reads {
		c.Put(rd.key, nil)
	}
}

// UncachedGroups lists, by their first file, the groups of res whose
// headers c does not hold, or holds in a form that does not decode.
func UncachedGroups(res *Result, c Cache) []string {
	var out []string
	for _, g := range res.groups {
		if keys := g.cacheKeys(res.reads); keys != nil {
			data, ok := c.Get(groupKey(keys))
			if hs, err := decodeHeaders(data); !ok || err != nil || len(hs) != len(g.headers) {
				out = append(out, res.reads[g.files[0]].rel)
			}
		}
	}
	return out
}
