package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/deploysync/deploysync/examples/playground/site"
)

// TestPlaygroundLoads measures the first load of the page again and again,
// each time in a fresh browser with an empty profile (no cache, no
// compiled code kept), as TestPlaygroundInChromium measures its one load,
// and prints every load's figures and the spread of the first plan's
// times. It runs only when DEPLOYSYNC_PLAYGROUND_LOADS=N says how many
// loads (about 2 s each); DEPLOYSYNC_PLAYGROUND_SITE=DIR[,DIR...] measures
// sites written before (go run . -out DIR), taking turns load by load so
// that each sees the same load on the machine, instead of building one.
//
//	DEPLOYSYNC_PLAYGROUND_LOADS=10 go test -run Loads -v .
func TestPlaygroundLoads(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("DEPLOYSYNC_PLAYGROUND_LOADS"))
	if n <= 0 {
		t.Skip("set DEPLOYSYNC_PLAYGROUND_LOADS=N to measure N first loads")
	}
	browser := chromium(t)
	var dirs []string
	if s := os.Getenv("DEPLOYSYNC_PLAYGROUND_SITE"); s != "" {
		dirs = strings.Split(s, ",")
	} else {
		dir := t.TempDir()
		if err := site.Write(dir); err != nil {
			t.Fatal(err)
		}
		dirs = []string{dir}
	}
	type spread struct{ drawn, painted, ready []float64 }
	got := make([]spread, len(dirs))
	for i := range n * len(dirs) {
		d := i % len(dirs)
		srv := httptest.NewServer(site.Handler(dirs[d]))
		pf, err := firstLoad(browser, t.TempDir(), srv.URL+"/")
		srv.Close()
		if err != nil {
			t.Fatalf("%s, load %d: %v", dirs[d], i/len(dirs), err)
		}
		t.Logf("%s, load %d: %s", dirs[d], i/len(dirs), pf)
		got[d].drawn = append(got[d].drawn, pf.FirstRun)
		got[d].painted = append(got[d].painted, pf.Painted)
		got[d].ready = append(got[d].ready, pf.Ready)
	}
	mmm := func(v []float64) string {
		slices.Sort(v)
		return fmt.Sprintf("%.0f / %.0f / %.0f", v[0], v[len(v)/2], v[len(v)-1])
	}
	for d, g := range got {
		t.Logf("%s, %d loads, ms after navigation start, min / median / max: first plan drawn %s, on screen %s; controller started %s",
			dirs[d], n, mmm(g.drawn), mmm(g.painted), mmm(g.ready))
	}
}

// firstLoad loads url in a fresh headless browser whose profile is in
// userDir, waits for the page to be ready and reads its figures.
func firstLoad(browser, userDir, url string) (perf, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	actx, acancel := chromedp.NewExecAllocator(ctx, browserOptions(browser, userDir)...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(1440, 900), chromedp.Navigate(url)); err != nil {
		return perf{}, err
	}
	if _, err := chromedp.Run(bctx, chromedp.Poll[bool](`document.body.dataset.ready === '1'`, chromedp.WithPollingTimeout(90*time.Second))); err != nil {
		return perf{}, err
	}
	return chromedp.Run(bctx, readPerf)
}
