package ingest

// gemini reads Gemini CLI sessions. Not written yet: it recognises nothing.
var gemini = &Reader{
	Name:    "gemini-cli",
	Agent:   "Gemini CLI",
	Files:   "(not yet supported)",
	Detects: "(not yet supported)",
	Detect:  func(*Head) bool { return false },
	Read:    nil,
}
