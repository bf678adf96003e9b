package search

import (
	"fmt"
	"slices"
	"strings"

	"github.com/transcriptsite/transcriptsite/config"
)

// Config is the search section of a site's config: whether the site has
// an index, and what the index holds.
type Config struct {
	Enabled bool             `config:"enabled"`
	Include config.SplitList `config:"include"` // some of Parts; DefaultInclude when not set
}

// Parts are what the index can hold of a session: prompts, the assistant's
// text, thinking, tool names and call ids, commands (what a call asks:
// its command line, what it writes, an edit's new text, a plan, a
// prompt), paths (files, patterns, URLs), what tools printed, and files
// as the agent read them.
var Parts = []string{"prompts", "assistant", "thinking", "tools", "commands", "paths", "output", "files"}

// DefaultInclude leaves out thinking, and files as the agent read them:
// more than half of what sessions hold, and found better in the repository
// they came from; the read itself is found by its path.
var DefaultInclude = []string{"prompts", "assistant", "tools", "commands", "paths", "output"}

// DefaultConfig is a site's index when its config says nothing.
func DefaultConfig() Config { return Config{Enabled: true} }

// Check checks what the config includes, and fills in the default.
func (c *Config) Check() error {
	if c.Include == nil {
		c.Include = slices.Clone(DefaultInclude)
	}
	for _, p := range c.Include {
		if !slices.Contains(Parts, p) {
			return fmt.Errorf("search.include: %q is not one of %s", p, strings.Join(Parts, ", "))
		}
	}
	return nil
}

// Includes says which parts the index holds; nil when the site has no index.
func (c *Config) Includes() map[string]bool {
	if !c.Enabled {
		return nil
	}
	inc := map[string]bool{}
	for _, p := range c.Include {
		inc[p] = true
	}
	return inc
}
