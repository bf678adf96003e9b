package site

// A site reads the sessions of every agent transcriptsite knows.
import _ "github.com/transcriptsite/transcriptsite/ingest/agents"
