package ingest

// Location is a folder where an agent keeps its sessions by default.
type Location struct {
	Format string // the reader of what it holds
	Name   string // its name in a site that reads it: sources are prefixed with it
	Dir    string
}

// AgentLocations lists the default session folders of every agent whose
// format is read, for the user whose home is home, as each reader gives
// them (Reader.Locations). The agents' own environment variables
// (CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_STATE_HOME, PI_CODING_AGENT_DIR,
// XDG_DATA_HOME) move them, as they move the agents. Aider and SpecStory
// keep their histories in each repository, so they have none.
func AgentLocations(home string, getenv func(string) string) []Location {
	var locs []Location
	for _, r := range Readers {
		if r.Locations == nil {
			continue
		}
		for _, l := range r.Locations(home, getenv) {
			l.Format = r.Name
			locs = append(locs, l)
		}
	}
	return locs
}
