// Package outputs has the outputs a site writes, a file each, and the
// table of them that a build runs, in order. Importing it sets the table
// (site.Use): the command chooses the outputs, as it chooses the agents.
// Adding an output is a file here and a line in the table.
package outputs

import "github.com/transcriptsite/transcriptsite/site"

func init() { site.Use(table...) }

// table is what a build writes, in order: each makes the output a build
// runs, which may hold what it writes over the rounds.
var table = []func() site.Output{
	func() site.Output { return assetsOutput{} }, // the stylesheets and scripts every page links, first
	func() site.Output { return listPages{} },    // the home page, 404.html and each project's page
	func() site.Output { return statsPage{} },    // stats/
	func() site.Output { return &searchOutput{} },
	func() site.Output { return sidesOutput{} }, // images and long outputs beside a session's page
	site.MarkdownExport,
	site.JSONExport,
	func() site.Output { return sessionPage{} },
	func() site.Output { return manifest{} }, // sessions.json
	func() site.Output { return feed{} },     // index.xml
	func() site.Output { return sitemap{} },  // sitemap.xml
}
