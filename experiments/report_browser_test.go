package experiments

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromiumNames are the names Chromium's binary goes by: Debian's
// (chromium), Ubuntu's (chromium-browser) and Google's.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"}

// findChromium is the path of a Chromium binary. Without one the test is
// skipped, unless ATTNZOO_REQUIRE_CHROMIUM=1 (CI, which installs
// Debian's chromium) makes that a failure.
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range chromiumNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := fmt.Sprintf("no Chromium binary on PATH (%s): the report's layout is not checked in a browser; install Debian's chromium to run this test",
		strings.Join(chromiumNames, ", "))
	if os.Getenv("ATTNZOO_REQUIRE_CHROMIUM") == "1" {
		t.Fatal(msg + " (ATTNZOO_REQUIRE_CHROMIUM=1)")
	}
	t.Skip(msg)
	return ""
}

// overflowJS lists every element of the page that sticks out of its
// container: its right edge beyond its parent's, beyond the viewport, or
// its content wider than its own box (scrollWidth > clientWidth), when
// neither it nor an ancestor is a box meant to scroll (overflow-x auto or
// scroll). The page itself must not scroll sideways either. One line per
// offender (its descendants left out), with its tag, class, the first words of its text and the
// sizes, so a failure says what to fix.
const overflowJS = `(() => {
  const out = [];
  const vw = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > vw + 1) {
    out.push("the page scrolls sideways: scrollWidth " + document.documentElement.scrollWidth + " > viewport " + vw);
  }
  const scrolls = el => { const o = getComputedStyle(el).overflowX; return o === "auto" || o === "scroll"; };
  const inScroller = el => { for (let a = el.parentElement; a; a = a.parentElement) { if (scrolls(a)) return true; } return false; };
  const name = el => el.tagName.toLowerCase() + (el.className && typeof el.className === "string" ? "." + el.className : "") +
    " \"" + (el.textContent || "").trim().slice(0, 40) + "\"";
  const bad = new Set();
  const under = el => { for (let a = el.parentElement; a; a = a.parentElement) { if (bad.has(a)) return true; } return false; };
  for (const el of document.body.querySelectorAll("*")) {
    if (inScroller(el) || under(el)) continue;
    const n = out.length;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const p = el.parentElement.getBoundingClientRect();
    if (r.right > p.right + 1) out.push(name(el) + ": right edge " + r.right.toFixed(0) + " > its container's " + p.right.toFixed(0));
    if (r.right > vw + 1) out.push(name(el) + ": right edge " + r.right.toFixed(0) + " > viewport " + vw);
    if (!scrolls(el) && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) {
      out.push(name(el) + ": content " + el.scrollWidth + " wide in a box of " + el.clientWidth);
    }
    if (out.length > n) bad.add(el);
  }
  return out;
})()`

// TestReportInBrowser renders report.html in headless Chromium, at a
// phone's width (375 px) and a laptop's (1280 px), for a sweep with gold
// alignments (reverse, two scorers × two seeds: the wide runs and
// comparisons tables) and a translation without them (tsv on the shipped
// corpus), and finds no element overflowing its container outside a box
// meant to scroll, and no error on the console (a missing figure is one).
func TestReportInBrowser(t *testing.T) {
	chromium := findChromium(t)
	dirs := []string{reverseReport(t), translationReport(t)}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox,
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("disable-gpu", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()

	var mu sync.Mutex
	var console []string
	if err := chromedp.Listen(bctx, func(ev any) {
		var msg string
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			msg = "exception: " + ev.ExceptionDetails.Text
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				msg = "console.error"
			}
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				msg = "error: " + ev.Entry.Text + " " + ev.Entry.URL
			}
		}
		if msg != "" {
			mu.Lock()
			console = append(console, msg)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatalf("starting %s: %v", chromium, err)
	}
	for _, dir := range dirs {
		page := (&url.URL{Scheme: "file", Path: filepath.Join(dir, "report.html")}).String()
		for _, width := range []int64{375, 1280} {
			ctx, stop := context.WithTimeout(bctx, time.Minute)
			mu.Lock()
			console = nil
			mu.Unlock()
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(page)); err != nil {
				stop()
				t.Fatalf("%s at %d px: %v", page, width, err)
			}
			bad, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](overflowJS))
			stop()
			if err != nil {
				t.Fatalf("%s at %d px: %v", page, width, err)
			}
			for _, b := range bad {
				t.Errorf("%s at %d px: %s", filepath.Base(dir), width, b)
			}
			mu.Lock()
			for _, c := range console {
				t.Errorf("%s at %d px: console %s", filepath.Base(dir), width, c)
			}
			mu.Unlock()
		}
	}
}
