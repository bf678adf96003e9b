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
// headers c does not hold.
func UncachedGroups(res *Result, c Cache) []string {
	var out []string
	for _, g := range res.groups {
		if keys := g.cacheKeys(res.reads); keys != nil {
			if _, ok := c.Get(groupKey(keys)); !ok {
				out = append(out, res.reads[g.files[0]].rel)
			}
		}
	}
	return out
}
