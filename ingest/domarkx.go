package ingest

// domarkx reads domarkx sessions. Not written yet: it recognises nothing.
var domarkx = &Reader{
	Name:    "domarkx",
	Agent:   "domarkx",
	Files:   "(not yet supported)",
	Detects: "(not yet supported)",
	Detect:  func(*Head) bool { return false },
	Read:    nil,
}
