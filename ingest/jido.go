package ingest

// jido reads jido_code sessions. Not written yet: it recognises nothing.
var jido = &Reader{
	Name:    "jido-code",
	Agent:   "jido_code",
	Files:   "(not yet supported)",
	Detects: "(not yet supported)",
	Detect:  func(*Head) bool { return false },
	Read:    nil,
}
