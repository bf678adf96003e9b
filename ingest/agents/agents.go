// Package agents registers the reader of every agent transcriptsite
// knows: a program that reads sessions imports it for its effect. An
// agent's package is its folder under ingest/, and one line here.
package agents

import (
	_ "github.com/transcriptsite/transcriptsite/ingest/aider"
	_ "github.com/transcriptsite/transcriptsite/ingest/claude"
	_ "github.com/transcriptsite/transcriptsite/ingest/codelia"
	_ "github.com/transcriptsite/transcriptsite/ingest/codex"
	_ "github.com/transcriptsite/transcriptsite/ingest/cursor"
	_ "github.com/transcriptsite/transcriptsite/ingest/domarkx"
	_ "github.com/transcriptsite/transcriptsite/ingest/gemini"
	_ "github.com/transcriptsite/transcriptsite/ingest/jido"
	_ "github.com/transcriptsite/transcriptsite/ingest/opencode"
	_ "github.com/transcriptsite/transcriptsite/ingest/pi"
	_ "github.com/transcriptsite/transcriptsite/ingest/specstory"
)
