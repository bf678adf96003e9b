package server

// The server's tests read the sessions of every agent, and build every
// output, as the command does.
import (
	_ "github.com/transcriptsite/transcriptsite/ingest/agents"
	_ "github.com/transcriptsite/transcriptsite/site/outputs"
)
