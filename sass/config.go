package sass

// Config is the sass section of a site's config.
type Config struct {
	Binary string `config:"binary"` // the Dart Sass to run; "" looks for one (see Find)
}
