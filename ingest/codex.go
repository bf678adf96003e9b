package ingest

// codex reads Codex CLI sessions. Not written yet: it recognises nothing.
var codex = &Reader{
	Name:    "codex",
	Agent:   "Codex CLI",
	Files:   "(not yet supported)",
	Detects: "(not yet supported)",
	Detect:  func(*Head) bool { return false },
	Read:    nil,
}
