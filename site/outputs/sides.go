package outputs

import (
	"fmt"
	"io"
	"strings"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/site"
	"github.com/transcriptsite/transcriptsite/site/theme"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// sidesOutput is the files beside a session's page: images, and outputs
// too long to show whole. Both are named by their content, so a repeated
// one is written once and the cache keeps it by its name; the cache keeps
// the names of a session's files too, so that a warm build needs no
// turns.
type sidesOutput struct{ site.Base }

func (sidesOutput) Session(c site.Context, j *site.Job) error {
	if err := sides(c, j.Session, j.Digest, j.Body); err != nil {
		return fmt.Errorf("%s: %w", j.Session.Source, err)
	}
	return nil
}

// sides writes the files beside a session's page.
func sides(c site.Context, s *site.Session, dig string, body func() (*transcript.Session, error)) error {
	names, data, err := sideNames(c, dig, body)
	if err != nil {
		return err
	}
	for _, name := range names {
		var key string
		if c.Cache() != nil {
			key = cache.Key("side", name)
		}
		err := c.File(s.Path+name, key, func(w io.Writer) error {
			if data == nil {
				full, err := body()
				if err != nil {
					return err
				}
				_, data = sideFiles(c, full)
			}
			return writeSide(w, name, data[name])
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// sideNames names the files beside a session's page: from the cache, or
// from its turns, which then say how to get each one's content too.
func sideNames(c site.Context, dig string, body func() (*transcript.Session, error)) ([]string, map[string]func() ([]byte, error), error) {
	listKey := c.Key(dig, "sides", c.Theme(), dig) // the program decides which outputs are too long
	if list, ok := getCached(c, listKey); ok {
		return strings.Fields(string(list)), nil, nil
	}
	full, err := body()
	if err != nil {
		return nil, nil, err
	}
	names, data := sideFiles(c, full)
	if listKey != "" {
		c.Cache().Put(listKey, []byte(strings.Join(names, "\n")))
	}
	return names, data, nil
}

// writeSide writes the file name beside a page, whose content get gets.
func writeSide(w io.Writer, name string, get func() ([]byte, error)) error {
	if get == nil {
		return fmt.Errorf("%s: no longer in the session", name)
	}
	d, err := get()
	if err == nil {
		_, err = w.Write(d)
	}
	return err
}

// sideFiles names the files beside a session's page, in order, and how to
// get each one's content.
func sideFiles(c site.Context, s *transcript.Session) ([]string, map[string]func() ([]byte, error)) {
	var names []string
	data := map[string]func() ([]byte, error){}
	add := func(name string, get func() ([]byte, error)) {
		if name != "" && data[name] == nil {
			names = append(names, name)
			data[name] = get
		}
	}
	s.Parts(func(_ *transcript.Message, p *transcript.Part) {
		for _, img := range p.Images() {
			add(theme.ImageURL(img), func() ([]byte, error) {
				if img.Blob != "" {
					return site.Blob(c, img.Blob)
				}
				return img.Data, nil
			})
		}
		if r := p.Result; r != nil {
			if out := r.Output; render.IsHuge(out) {
				add(render.OutputFile(out), func() ([]byte, error) { return []byte(render.StripANSI(out)), nil })
			}
		}
		if c := p.Call; c != nil {
			for _, f := range c.Args.Rest { // a field of an input the page lists, too long to show whole
				if v := f.Value; render.IsHuge(v) {
					add(render.OutputFile(v), func() ([]byte, error) { return []byte(v), nil })
				}
			}
		}
	})
	return names, data
}

// getCached returns the cache entry key; a build without a cache, or a
// key of "", misses.
func getCached(c site.Context, key string) ([]byte, bool) {
	if key == "" {
		return nil, false
	}
	return c.Cache().Get(key)
}
