package ingest

import (
	"cmp"
	"path/filepath"
)

// Location is a folder where an agent keeps its sessions by default.
type Location struct {
	Format string // the reader of what it holds
	Name   string // its name in a site that reads it: sources are prefixed with it
	Dir    string
}

// AgentLocations lists the default session folders of every agent whose
// format is read, for the user whose home is home. The agents' own
// environment variables (CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_STATE_HOME,
// PI_CODING_AGENT_DIR, XDG_DATA_HOME) move them, as they move the agents.
// Aider and SpecStory keep their histories in each repository, so they
// have none.
func AgentLocations(home string, getenv func(string) string) []Location {
	claude := cmp.Or(getenv("CLAUDE_CONFIG_DIR"), filepath.Join(home, ".claude"))
	codex := cmp.Or(getenv("CODEX_HOME"), filepath.Join(home, ".codex"))
	gemini := filepath.Join(cmp.Or(getenv("GEMINI_CLI_HOME"), home), ".gemini")
	pi := cmp.Or(getenv("PI_CODING_AGENT_DIR"), filepath.Join(home, ".pi", "agent"))
	data := cmp.Or(getenv("XDG_DATA_HOME"), filepath.Join(home, ".local", "share"))
	locs := []Location{
		{"claude-code", "claude", filepath.Join(claude, "projects")},
		{"codex", "codex", filepath.Join(codex, "sessions")},
		{"codex", "codex-archived", filepath.Join(codex, "archived_sessions")},
		{"gemini-cli", "gemini", filepath.Join(gemini, "tmp")},
		{"codelia", "codelia", filepath.Join(home, ".codelia", "sessions")},
		{"jido-code", "jido_code", filepath.Join(home, ".jido_code", "sessions")},
		{"cursor", "cursor", filepath.Join(home, ".cursor", "projects")},
		{"cursor", "cursor-chats", filepath.Join(home, ".cursor", "chats")},
		{"pi", "pi", filepath.Join(pi, "sessions")},
		// opencode.db and the legacy storage/ tree both live here.
		{"opencode", "opencode", filepath.Join(data, "opencode")},
	}
	if xdg := getenv("XDG_STATE_HOME"); xdg != "" {
		locs = append(locs, Location{"codelia", "codelia-xdg", filepath.Join(xdg, "codelia", "sessions")})
	}
	return locs
}
