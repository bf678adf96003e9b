// Command shots takes screenshots of pages of a built site in headless
// Chromium, at a desktop and a phone width, light and dark, so a change to
// how sessions look can be looked at before it lands:
//
//	go run ./cmd/shots -site public -out /tmp/shots /sessions/x/ '/sessions/y/#m12'
//
// A path may end in #anchor: the shot starts there. Shots are of the
// viewport, -height pixels tall (0: the whole page); -open opens every
// collapsed block first.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// views are the shots taken of each path: a desktop and a phone width,
// and the desktop dark.
var views = []struct {
	suffix string
	width  int64
	dark   bool
}{{"1280", 1280, false}, {"390", 390, false}, {"1280-dark", 1280, true}}

// unsafe are the runs of a path's bytes that a file name does without.
var unsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func main() {
	siteDir := flag.String("site", "public", "the built site")
	out := flag.String("out", "shots", "where the PNG files go")
	height := flag.Int("height", 2400, "height of each shot in CSS pixels; 0 for the whole page")
	open := flag.Bool("open", false, "open every collapsed block (tool calls, context) before the shot")
	flag.Parse()
	if flag.NArg() == 0 {
		log.Fatal("usage: shots [-site DIR] [-out DIR] PATH[#anchor]...")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	base := serve(*siteDir)
	ctx, cancel := browser()
	defer cancel()
	for _, p := range flag.Args() {
		name := strings.Trim(unsafe.ReplaceAllString(p, "_"), "_")
		for _, v := range views {
			file := filepath.Join(*out, fmt.Sprintf("%s-%s.png", name, v.suffix))
			if err := shoot(ctx, base+p, file, v.width, int64(*height), v.dark, *open); err != nil {
				log.Fatalf("%s: %v", p, err)
			}
			fmt.Println(file)
		}
	}
}

// serve serves dir on a free local port for as long as the process runs
// and returns its base URL.
func serve(dir string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(ln, http.FileServer(http.Dir(dir))) //nolint:errcheck // ends with the process
	return "http://" + ln.Addr().String()
}

// browser starts a headless Chromium; cancel ends it.
func browser() (context.Context, context.CancelFunc) {
	chrome, err := exec.LookPath("chromium")
	if err != nil {
		log.Fatal("no Chromium: install Debian's chromium package")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	return ctx, func() { cancelCtx(); cancelAlloc() }
}

// colorScheme is the prefers-color-scheme a shot emulates.
func colorScheme(dark bool) string {
	if dark {
		return "dark"
	}
	return "light"
}

// viewportHeight is the height of the window for a shot height tall: a
// whole-page shot (0) starts from a window of 900.
func viewportHeight(height int64) int64 {
	if height == 0 {
		return 900
	}
	return height
}

// openAll opens every collapsed block; opening them moves the page, so it
// goes back to the anchor after.
const openAll = `document.querySelectorAll("details").forEach(d => d.open = true);
			location.hash && document.getElementById(location.hash.slice(1))?.scrollIntoView()`

func shoot(ctx context.Context, url, file string, width, height int64, dark, open bool) error {
	scheme := colorScheme(dark)
	err := chromedp.Do(ctx,
		chromedp.EmulateViewport(width, viewportHeight(height)),
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
			})
			return err
		}),
		chromedp.Navigate(url),
		chromedp.Sleep(300*time.Millisecond),
	)
	if err == nil && open {
		_, err = chromedp.Run(ctx, chromedp.Evaluate[any](openAll))
	}
	if err != nil {
		return err
	}
	png, err := chromedp.Run(ctx, screenshot(height))
	if err != nil {
		return err
	}
	return os.WriteFile(file, png, 0o644)
}

// screenshot is the action that takes a shot height tall: of the whole
// page when height is 0, else of the window.
func screenshot(height int64) chromedp.Action[[]byte] {
	if height == 0 {
		return chromedp.FullScreenshot(90)
	}
	return chromedp.CaptureScreenshot()
}
