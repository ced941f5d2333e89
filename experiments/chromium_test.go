package experiments

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium starts headless Chromium (Debian's chromium, or
// chromium-browser, google-chrome) for a test and returns a chromedp
// context on one tab, and a function that returns the console errors and
// uncaught exceptions the tab has had so far. The test is skipped where no
// Chromium is installed, and fails instead with
// ATTNZOO_REQUIRE_CHROMIUM=1 (as CI sets).
func chromium(t *testing.T) (context.Context, func() []string) {
	t.Helper()
	path := findChromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 1000))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelA() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("starting %s: %v", path, err)
	}
	var mu sync.Mutex
	var errs []string
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				errs = append(errs, m.String())
				mu.Unlock()
			}
		}
	}()
	return ctx, func() []string {
		time.Sleep(100 * time.Millisecond) // let the last events arrive
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), errs...)
	}
}
