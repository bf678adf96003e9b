package siteconfig

// agentDirs names agents by their formats: the tests know every agent's,
// as the command does.
import _ "github.com/transcriptsite/transcriptsite/ingest/agents"
