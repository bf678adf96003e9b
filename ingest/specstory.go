package ingest

// specstory reads SpecStory sessions. Not written yet: it recognises nothing.
var specstory = &Reader{
	Name:    "specstory",
	Agent:   "SpecStory",
	Files:   "(not yet supported)",
	Detects: "(not yet supported)",
	Detect:  func(*Head) bool { return false },
	Read:    nil,
}
