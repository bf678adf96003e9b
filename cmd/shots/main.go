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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(ln, http.FileServer(http.Dir(*siteDir))) //nolint:errcheck // ends with the process
	base := "http://" + ln.Addr().String()

	chrome, err := exec.LookPath("chromium")
	if err != nil {
		log.Fatal("no Chromium: install Debian's chromium package")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()

	unsafe := regexp.MustCompile(`[^A-Za-z0-9._-]+`)
	for _, p := range flag.Args() {
		name := strings.Trim(unsafe.ReplaceAllString(p, "_"), "_")
		for _, v := range []struct {
			suffix string
			width  int64
			dark   bool
		}{{"1280", 1280, false}, {"390", 390, false}, {"1280-dark", 1280, true}} {
			file := filepath.Join(*out, fmt.Sprintf("%s-%s.png", name, v.suffix))
			if err := shoot(ctx, base+p, file, v.width, int64(*height), v.dark, *open); err != nil {
				log.Fatalf("%s: %v", p, err)
			}
			fmt.Println(file)
		}
	}
}

func shoot(ctx context.Context, url, file string, width, height int64, dark, open bool) error {
	scheme := "light"
	if dark {
		scheme = "dark"
	}
	vh := height
	if vh == 0 {
		vh = 900
	}
	err := chromedp.Do(ctx,
		chromedp.EmulateViewport(width, vh),
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
			})
			return err
		}),
		chromedp.Navigate(url),
		chromedp.Sleep(300*time.Millisecond),
	)
	if err != nil {
		return err
	}
	if open {
		// Opening blocks moves the page: go back to the anchor after.
		_, err = chromedp.Run(ctx, chromedp.Evaluate[any](`document.querySelectorAll("details").forEach(d => d.open = true);
			location.hash && document.getElementById(location.hash.slice(1))?.scrollIntoView()`))
		if err != nil {
			return err
		}
	}
	var png []byte
	if height == 0 {
		png, err = chromedp.Run(ctx, chromedp.FullScreenshot(90))
	} else {
		png, err = chromedp.Run(ctx, chromedp.CaptureScreenshot())
	}
	if err != nil {
		return err
	}
	return os.WriteFile(file, png, 0o644)
}
