package site

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"path"
	"strings"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// projectHash is the meta key of a project's id where it is the SHA-256 of
// the project's folder: Gemini CLI's projectHash, which named the folder
// of its sessions (~/.gemini/tmp/<sha256 of the project's path>/) until
// its projects.json gave them names.
const projectHash = "project hash"

// projectNames names the project of each session as the site lists it:
// transcript.Session.ProjectName, but for a session that knows its
// project only by the hash of its folder, which its reader shortens to 8
// digits. That one is named after the folder when the other sessions show
// it: a working directory whose SHA-256 is the hash (the folder itself,
// whatever agent ran there), or a session of the same hash whose reader
// found the folder's name (in a tool's path, the folder Gemini said it
// worked in, or its projects.json name).
func projectNames(hs []*transcript.Header) map[*transcript.Session]string {
	names := make(map[*transcript.Session]string, len(hs))
	// The names each hash is known by, and how often: those of folders
	// whose hash it is apart, as they weigh more.
	folders, given := map[string]map[string]int{}, map[string]map[string]int{}
	add := func(m map[string]map[string]int, hash, name string) {
		if m[hash] == nil {
			m[hash] = map[string]int{}
		}
		m[hash][name]++
	}
	var hashed []*transcript.Session
	for _, h := range hs {
		s := h.Session
		name := s.ProjectName()
		names[s] = name
		if cwd := strings.TrimRight(s.CWD, `/\`); cwd != "" {
			sum := sha256.Sum256([]byte(cwd))
			add(folders, hex.EncodeToString(sum[:]), path.Base(strings.ReplaceAll(cwd, `\`, "/")))
		}
		switch hash := strings.ToLower(s.Meta[projectHash]); {
		case hash == "":
		case unnamed(name, hash):
			hashed = append(hashed, s)
		default:
			add(given, hash, name)
		}
	}
	for _, s := range hashed {
		hash := strings.ToLower(s.Meta[projectHash])
		names[s] = cmp.Or(commonest(folders[hash]), commonest(given[hash]), names[s])
	}
	return names
}

// commonest is the name counted most often, of two as often the first in
// order; "" of none.
func commonest(counts map[string]int) string {
	best := ""
	for name, n := range counts {
		if n > counts[best] || n == counts[best] && name < best {
			best = name
		}
	}
	return best
}

// unnamed reports whether name is no more than the hash a session knows
// its project by, or a short form of it.
func unnamed(name, hash string) bool {
	name = strings.ToLower(name)
	return len(name) >= 8 && strings.HasPrefix(hash, name)
}
