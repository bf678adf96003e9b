package siteconfig

// Outputs say which exports are written beside each session's page:
// Markdown unless the config turns it off, JSON when it turns it on. The
// JSON is for programs, which `transcriptsite export --format json` serves
// one file at a time; beside every page it was the site's biggest output
// (half its bytes on real Claude Code sessions, images again in base64)
// and 14% of its build's CPU.
type Outputs struct {
	Markdown bool `config:"markdown"` // session.md
	JSON     bool `config:"json"`     // session.json
}
