package ingest

// codelia reads codelia sessions. Not written yet: it recognises nothing.
var codelia = &Reader{
	Name:    "codelia",
	Agent:   "codelia",
	Files:   "(not yet supported)",
	Detects: "(not yet supported)",
	Detect:  func(*Head) bool { return false },
	Read:    nil,
}
