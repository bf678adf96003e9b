package server

// The server's tests read the sessions of every agent, as the command does.
import _ "github.com/transcriptsite/transcriptsite/ingest/agents"
