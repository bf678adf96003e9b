// Package transcriptsite holds the default theme and the demo site, embedded
// so the binary builds a site with nothing beside it.
package transcriptsite

import "embed"

//go:generate go run ./cmd/gencss

// FS holds the theme's templates/ and assets/, the demo content/ and the
// demo config.yaml.
//
//go:embed all:templates all:assets content config.yaml
var FS embed.FS

// DemoConfig is the demo site's config.yaml, which documents every key.
//
//go:embed config.yaml
var DemoConfig []byte

// Version is the release version, set at link time with
// -ldflags "-X github.com/transcriptsite/transcriptsite.Version=v1.2.3".
var Version = "dev"
