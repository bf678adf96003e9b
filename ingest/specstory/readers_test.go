package specstory

// SpecStory's tools are those of the agents it records, as their readers
// register them: a program that reads sessions imports them all.
import (
	_ "github.com/transcriptsite/transcriptsite/ingest/claude"
	_ "github.com/transcriptsite/transcriptsite/ingest/codex"
	_ "github.com/transcriptsite/transcriptsite/ingest/cursor"
)
