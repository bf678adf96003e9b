// Package site builds the static site: its view of the sessions, and the
// build that writes its outputs.
package site

import (
	"slices"

	"github.com/transcriptsite/transcriptsite/site/siteconfig"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// The configuration of a site, which package siteconfig reads and checks.
type (
	Config    = siteconfig.Config
	Options   = siteconfig.Options
	Content   = siteconfig.Content
	Mount     = siteconfig.Mount
	Highlight = siteconfig.Highlight
	Outputs   = siteconfig.Outputs
	Pricing   = siteconfig.Pricing
	Price     = siteconfig.Price
	Selection = siteconfig.Selection
	Filter    = siteconfig.Filter
)

// LoadConfig reads the site's config (see siteconfig.Load).
func LoadConfig(o Options) (*Config, []string, error) { return siteconfig.Load(o) }

// selected returns the sessions the site shows.
func selected(c *Config, hs []*transcript.Header) []*transcript.Header {
	if c.ShowAll {
		return hs
	}
	names := projectNames(hs)
	return slices.DeleteFunc(slices.Clone(hs), func(h *transcript.Header) bool { return !c.Selection.Shows(h.Session, names[h.Session]) })
}
