package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/deploysync/deploysync/examples/playground/play"
	"github.com/deploysync/deploysync/examples/playground/site"

	// The module's -update flag: go test ./... -update passes it to every
	// test binary, and this package has no golden to rewrite.
	_ "github.com/deploysync/deploysync/internal/testing/testutil"
)

// chromium returns the browser to drive: $CHROMIUM, else /usr/bin/chromium,
// else chromium on PATH. No browser is a failure, never a skip:
// scripts/test.sh installs Debian's chromium where it is missing.
func chromium(t *testing.T) string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	p, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("no Chromium: this test needs a browser (apt-get install -y chromium, as scripts/test.sh does, or set $CHROMIUM): %v", err)
	}
	return p
}

// golden is a scenario's golden transcript, cut into the steps' parts
// independently of the page and of package play: a step starts at a line
// "step N +T branch B" and ends before the blank line in front of the next
// one, the last before the blank line in front of the summary. A fold line
// "steps A to B +T to +U: N syncs as step S, ..." is the part of each step
// from A to B, whose branch is step S's.
type golden struct {
	transcript string
	steps      []string
	branches   []string
}

var stepLine = regexp.MustCompile(`(?m)^(?:step (\d+) \+\S+ branch (\S+)|steps (\d+) to (\d+) \+\S+ to \+\S+: \d+ syncs as step (\d+), .*)$`)

func readGolden(t *testing.T, sc play.Scenario) golden {
	t.Helper()
	b, err := os.ReadFile(sc.Golden)
	if err != nil {
		t.Fatal(err)
	}
	header := "# " + sc.Name + "\n# " + sc.Reason + "\n\n"
	tr, ok := strings.CutPrefix(string(b), header)
	if !ok {
		t.Fatalf("%s does not start with %q", sc.Golden, header)
	}
	g := golden{transcript: tr}
	locs := stepLine.FindAllStringSubmatchIndex(tr, -1)
	end := strings.LastIndex(tr, "\noutcome:")
	num := func(l []int, k int) int {
		n, err := strconv.Atoi(tr[l[2*k]:l[2*k+1]])
		if err != nil {
			t.Fatalf("%s: %v", sc.Golden, err)
		}
		return n
	}
	for j, l := range locs {
		stop := end
		if j+1 < len(locs) {
			stop = locs[j+1][0] - 1
		}
		part := tr[l[0]:stop]
		if l[2] >= 0 { // a step's own part
			if got := num(l, 1); got != len(g.steps) {
				t.Fatalf("%s: step %d is numbered %d", sc.Golden, len(g.steps), got)
			}
			g.steps = append(g.steps, part)
			g.branches = append(g.branches, tr[l[4]:l[5]])
			continue
		}
		from, to, as := num(l, 3), num(l, 4), num(l, 5)
		if from != len(g.steps) || to < from || as >= from {
			t.Fatalf("%s: fold of steps %d to %d as step %d after %d steps", sc.Golden, from, to, as, len(g.steps))
		}
		for range to - from + 1 {
			g.steps = append(g.steps, part)
			g.branches = append(g.branches, g.branches[as])
		}
	}
	if len(g.steps) == 0 || end < 0 {
		t.Fatalf("%s: no steps or no summary", sc.Golden)
	}
	return g
}

// page is what the page shows for the current step.
type page struct {
	Step     int    `json:"step"`
	Steps    int    `json:"steps"`
	Title    string `json:"title"`
	Text     string `json:"text"`
	Branch   string `json:"branch"`
	Function string `json:"function"`
	Actions  int    `json:"actions"`
	Whole    string `json:"whole"`
	// Waits is the plan list's "waits" entry, Then its requeue entry's
	// reason ("" when none); Calls the calls listed under the function,
	// "name=state" joined by spaces.
	Waits string `json:"waits"`
	Then  string `json:"then"`
	Calls string `json:"calls"`
}

const readPage = `(() => {
  const hit = document.querySelector('#flow .node.branch.hit');
  const fn = document.querySelector('#flow .node.fn.hit');
  const txt = (sel) => { const e = document.querySelector(sel); return e ? e.textContent : ''; };
  return {
    step: Number(document.body.dataset.step), steps: Number(document.body.dataset.steps),
    title: document.getElementById('step-title').textContent,
    text: document.getElementById('step-text').textContent,
    branch: hit ? hit.dataset.node : '', function: fn ? fn.textContent : '',
    actions: document.querySelectorAll('#actions li.action').length,
    whole: document.getElementById('transcript').textContent,
    waits: txt('#actions li.waits .why'), then: txt('#actions li.then .why'),
    calls: [...document.querySelectorAll('#calls li')].map((li) => li.dataset.call + '=' + li.dataset.state).join(' '),
  };
})()`

// calls renders a step's calls as page.Calls does.
func calls(s play.Step) string {
	var parts []string
	for _, c := range s.Calls {
		parts = append(parts, c.Name+"="+c.State)
	}
	return strings.Join(parts, " ")
}

// readReplicaSets reads how the chart's legend and the ReplicaSet table
// name each ReplicaSet: a line per legend entry ("legend NAME: TEXT") and
// per table row ("table NAME: ROLE IMAGES rev REVISION").
const readReplicaSets = `[
  ...[...document.querySelectorAll('#legend span[data-rs]')].map((s) => 'legend ' + s.dataset.rs + ': ' + s.textContent),
  ...[...document.querySelectorAll('#rs-table td .rs')].map((s) => 'table ' + s.title + ': ' + s.querySelector('.role').textContent + ' ' +
    s.querySelector('small').textContent + ' rev ' + s.closest('tr').children[1].textContent),
].join('\n')`

// replicaSets is what readReplicaSets should read at step s of res, from
// play.Run: in the legend every ReplicaSet of the run, old or new as the
// step has it, its pod-template-hash, images and revision; in the table
// the ReplicaSets the step has.
func replicaSets(res play.Result, s play.Step) string {
	var legend, table []string
	for _, info := range res.ReplicaSets {
		r, ok := s.ReplicaSets[info.Name]
		role, rev := "old", info.Revision
		if ok {
			rev = r.Revision
			if r.New {
				role = "new"
			}
		}
		if rev == "" {
			rev = "–"
		}
		legend = append(legend, fmt.Sprintf("legend %s: %s %s · %s · rev %s", info.Name, role, info.Hash, info.Images, rev))
		if ok {
			table = append(table, fmt.Sprintf("table %s: %s %s rev %s", info.Name, role, info.Images, r.Revision))
		}
	}
	return strings.Join(append(legend, table...), "\n")
}

// layout is what the page measures of itself at a width.
type layout struct {
	Width       float64  `json:"width"`
	ScrollWidth float64  `json:"scrollWidth"`
	Off         []string `json:"off"`
	FlowFont    float64  `json:"flowFont"`
	ChartFont   float64  `json:"chartFont"`
	Clipped     []string `json:"clipped"`
	Layout      string   `json:"layout"`
	StatusLines float64  `json:"statusLines"`
}

// measure: the page's width against the viewport's; the controls that are
// not wholly on screen; the smallest text of the diagram and of the chart
// in CSS pixels as drawn (font size times the SVG's scale); the texts cut
// off by their SVG's edge or wider than their box; the status line's
// height in lines.
const measure = `(() => {
  const vw = window.innerWidth;
  const de = document.documentElement;
  const ids = ['scenario', 'yaml', 'script', 'kversion', 'begin', 'startDelay', 'readyDelay', 'terminationDelay', 'failureRate',
    'seed', 'failingImages', 'refusedImages', 'refusedUntil', 'podQuota', 'replicaSetQuota', 'collision', 'first', 'back', 'play', 'step', 'last', 'cursor', 'share'];
  const off = ids.filter((id) => { const r = document.getElementById(id).getBoundingClientRect(); return r.width <= 0 || r.left < -0.5 || r.right > vw + 0.5; });
  const clipped = [];
  const font = (svg) => {
    const sr = svg.getBoundingClientRect();
    const scale = sr.width / svg.viewBox.baseVal.width;
    let min = 1e9;
    for (const t of svg.querySelectorAll('text')) {
      if (!t.textContent) continue;
      min = Math.min(min, parseFloat(getComputedStyle(t).fontSize) * scale);
      const r = t.getBoundingClientRect();
      if (r.left < sr.left - 0.5 || r.right > sr.right + 0.5 || r.top < sr.top - 0.5 || r.bottom > sr.bottom + 0.5) clipped.push(svg.id + ': ' + t.textContent);
    }
    for (const g of svg.querySelectorAll('g.node')) {
      const b = g.querySelector('rect').getBoundingClientRect();
      for (const t of g.querySelectorAll('text')) {
        const r = t.getBoundingClientRect();
        if (r.left < b.left || r.right > b.right) clipped.push(svg.id + ' box: ' + t.textContent);
      }
    }
    return min;
  };
  const st = document.getElementById('status');
  return {width: vw, scrollWidth: Math.max(de.scrollWidth, document.body.scrollWidth), off,
    flowFont: font(document.getElementById('flow')), chartFont: font(document.getElementById('chart')), clipped,
    layout: document.getElementById('flow').dataset.layout,
    statusLines: st.getBoundingClientRect().height / parseFloat(getComputedStyle(st).lineHeight)};
})()`

// browserOptions are the options of the headless Chromium the tests drive,
// with a fresh profile in userDir.
func browserOptions(browser, userDir string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(browser), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.UserDataDir(userDir), chromedp.WindowSize(1440, 900),
	}
}

// perf is what the page's performance entries say of its first load, in
// milliseconds after navigation start.
type perf struct {
	// FirstPaint and FirstContentfulPaint are Chromium's paint entries.
	FirstPaint, FirstContentfulPaint float64
	// FirstRun is when the script has drawn the first plan (from runs/),
	// Painted when that plan's transcript text was on screen (the
	// element timing entry of #step-text, elementtiming="first-plan").
	FirstRun, Painted float64
	// CompileStart is when the page began compiling the WebAssembly,
	// Compiled when it was compiled and instantiated, Ready when the Go
	// program had started, RunEnd when its first run (the check of the
	// plan drawn) was done.
	CompileStart, Compiled, Ready, RunEnd float64
	// WasmEncoded and WasmDecoded are the WebAssembly's resource entry's
	// sizes in bytes: as received, and decoded.
	WasmEncoded, WasmDecoded float64
}

func (pf perf) String() string {
	return fmt.Sprintf("first paint %.0f ms, first contentful paint %.0f ms, first plan drawn (from runs/) %.0f ms and on screen %.0f ms, wasm compile started %.0f ms, compiled %.0f ms, controller started %.0f ms, its first run (the check of the plan drawn) done %.0f ms after navigation start",
		pf.FirstPaint, pf.FirstContentfulPaint, pf.FirstRun, pf.Painted, pf.CompileStart, pf.Compiled, pf.Ready, pf.RunEnd)
}

// readPerf reads perf off a loaded page. Element timing entries are only
// given to an observer (buffered: the ones before it too).
var readPerf = chromedp.Evaluate[perf](`new Promise((resolve) => {
  const paint = (n) => (performance.getEntriesByName(n)[0] || {startTime: -1}).startTime;
  const mark = (n) => (performance.getEntriesByName(n, 'mark')[0] || {startTime: -1}).startTime;
  const w = performance.getEntriesByType('resource').find((e) => e.name.endsWith('/deploysync.wasm')) || {};
  const done = (painted) => resolve({FirstPaint: paint('first-paint'), FirstContentfulPaint: paint('first-contentful-paint'),
    FirstRun: mark('deploysync-first-run'), Painted: painted, CompileStart: mark('deploysync-compile-start'),
    Compiled: mark('deploysync-compiled'), Ready: mark('deploysync-ready'), RunEnd: mark('deploysync-run-end'),
    WasmEncoded: w.encodedBodySize || -1, WasmDecoded: w.decodedBodySize || -1});
  new PerformanceObserver((list) => {
    const e = list.getEntries().find((e) => e.identifier === 'first-plan');
    if (e) done(e.renderTime || e.loadTime);
  }).observe({type: 'element', buffered: true});
  setTimeout(() => done(-1), 2000);
})`, chromedp.EvalAwaitPromise)

// TestPlaygroundInChromium builds the site as `go run .` does, serves it
// from a test server and drives the page in headless Chromium: it runs the
// default scenario to the end, steps through another (forward by button
// and by key, and back), checks every scenario's transcript and every step
// of the stepped one against the simulator's goldens, edits the YAML into
// an invalid Deployment and checks the library's error at its line, follows
// a shared link, types the what-if fields (the pod quota, the ReplicaSet
// quota, the refused images) and checks each run and each bad value's
// problem against play.Run, measures the time to first paint, and saves screenshots
// under its artifact directory (go test -artifacts keeps them).
func TestPlaygroundInChromium(t *testing.T) {
	browser := chromium(t)
	dir := t.TempDir()
	began := time.Now()
	if err := site.Write(dir); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, site.WasmFile))
	if err != nil {
		t.Fatal(err)
	}
	figures := []string{fmt.Sprintf("site built in %.1fs; %s: %d bytes (%.1f MB)", time.Since(began).Seconds(), site.WasmFile, fi.Size(), float64(fi.Size())/1e6)}
	srv := httptest.NewServer(site.Handler(dir))
	defer srv.Close()
	// The server sends the WebAssembly compressed as -out wrote it:
	// brotli to a client that accepts it, else gzip.
	const maxWire = 4_500_000
	onWire := map[string]int64{}
	for _, tt := range []struct{ accept, want string }{{"gzip, deflate, br, zstd", "br"}, {"gzip, deflate", "gzip"}} {
		file, err := os.Stat(filepath.Join(dir, site.WasmFile+map[string]string{"br": ".br", "gzip": ".gz"}[tt.want]))
		if err != nil {
			t.Fatalf("-out writes no %s WebAssembly: %v", tt.want, err)
		}
		req, _ := http.NewRequest("GET", srv.URL+"/"+site.WasmFile, nil)
		req.Header.Set("Accept-Encoding", tt.accept)
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		wire, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if enc, typ := resp.Header.Get("Content-Encoding"), resp.Header.Get("Content-Type"); enc != tt.want || typ != "application/wasm" || wire != file.Size() {
			t.Errorf("Accept-Encoding %q: the WebAssembly is sent with Content-Encoding %q and Content-Type %q, %d bytes; want %s, application/wasm and the %d bytes of its file",
				tt.accept, enc, typ, wire, tt.want, file.Size())
		}
		if wire > maxWire {
			t.Errorf("the WebAssembly is %d bytes on the wire as %s; at most %d", wire, tt.want, maxWire)
		}
		onWire[tt.want] = wire
	}
	figures = append(figures, fmt.Sprintf("%s on the wire: %d bytes (%.2f MB) as br, %d bytes (%.2f MB) as gzip",
		site.WasmFile, onWire["br"], float64(onWire["br"])/1e6, onWire["gzip"], float64(onWire["gzip"])/1e6))

	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	actx, acancel := chromedp.NewExecAllocator(ctx, browserOptions(browser, t.TempDir())...)
	defer acancel()
	var mu sync.Mutex
	var jsErrors []string
	bctx, bcancel := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			mu.Lock()
			d := e.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			jsErrors = append(jsErrors, fmt.Sprintf("%s:%d: %s", d.URL, d.LineNumber+1, msg))
			mu.Unlock()
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledType("error") {
				mu.Lock()
				jsErrors = append(jsErrors, fmt.Sprintf("console.error %d args", len(e.Args)))
				mu.Unlock()
			}
		}
	}))
	defer bcancel()
	do := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	eval := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(bctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("evaluate %s: %v", expr, err)
		}
		return v
	}
	read := func() page {
		t.Helper()
		p, err := chromedp.Run(bctx, chromedp.Evaluate[page](readPage))
		if err != nil {
			t.Fatalf("reading the page: %v", err)
		}
		return p
	}
	waitReady := func() {
		t.Helper()
		// Right after a navigation the page's JavaScript context can be
		// replaced while the poll runs ("Cannot find context with specified
		// id"): poll again in the new one, within the same 90 s.
		deadline := time.Now().Add(90 * time.Second)
		for {
			_, err := chromedp.Run(bctx, chromedp.Poll[bool](`document.body.dataset.ready === '1' || (document.body.dataset.ready === 'error' && (() => { throw new Error(document.getElementById('status').textContent) })())`,
				chromedp.WithPollingTimeout(time.Until(deadline))))
			if err == nil {
				return
			}
			if !strings.Contains(err.Error(), "Cannot find context") || time.Now().After(deadline) {
				t.Fatalf("the page did not become ready: %v", err)
			}
		}
	}
	shot := func(name string, full bool) {
		t.Helper()
		var b []byte
		var err error
		if full {
			b, err = chromedp.Run(bctx, chromedp.FullScreenshot(100))
		} else {
			b, err = chromedp.Run(bctx, chromedp.CaptureScreenshot())
		}
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		path := filepath.Join(t.ArtifactDir(), name)
		if strings.HasPrefix(name, "width-") {
			// One per width, kept beside the package (git-ignored).
			if err := os.MkdirAll(filepath.Join("testdata", "screenshots"), 0o755); err != nil {
				t.Fatal(err)
			}
			path = filepath.Join("testdata", "screenshots", name)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot %s", path)
	}
	scenarios := map[string]play.Scenario{}
	for _, sc := range play.Scenarios() {
		scenarios[sc.ID] = sc
	}
	pick := func(id string) {
		t.Helper()
		eval(fmt.Sprintf(`(() => { const s = document.getElementById('scenario'); s.value = %q; s.dispatchEvent(new Event('change')); return s.value; })()`, id))
	}

	// Load. The first action starts the browser: if it cannot, say so.
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(1440, 900), chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatalf("Chromium (%s) did not start or load the page: %v", browser, err)
	}
	waitReady()
	pf, err := chromedp.Run(bctx, readPerf)
	if err != nil {
		t.Fatal(err)
	}
	if pf.FirstContentfulPaint < 0 || pf.FirstRun < 0 || pf.Painted < pf.FirstRun || pf.CompileStart < pf.FirstRun || pf.Ready < pf.CompileStart || pf.RunEnd < pf.Ready {
		t.Errorf("performance entries missing or out of order: %+v", pf)
	}
	if pf.WasmEncoded <= 0 || pf.WasmEncoded > maxWire || pf.WasmDecoded != float64(fi.Size()) {
		t.Errorf("the browser received the WebAssembly as %.0f bytes, decoded to %.0f; want at most %d, decoded to the %d of the file", pf.WasmEncoded, pf.WasmDecoded, maxWire, fi.Size())
	}
	received := "neither the br nor the gzip file"
	for enc, n := range onWire {
		if float64(n) == pf.WasmEncoded {
			received = enc
		}
	}
	figures = append(figures, pf.String()+fmt.Sprintf("; the browser received %s as %.0f bytes (%s)", site.WasmFile, pf.WasmEncoded, received))

	again := eval(`(() => { const req = JSON.stringify(app.scenarios[0].request); const t0 = performance.now(); window.deploysyncRun(req); return (performance.now() - t0).toFixed(0); })()`)
	figures = append(figures, "the default scenario run again (compiled, warm): "+again+" ms")

	// 1. The default scenario, run to the end with the Run button.
	def := play.Scenarios()[0]
	if got := eval(`document.getElementById('scenario').value`); got != def.ID {
		t.Fatalf("default scenario %q, want %q", got, def.ID)
	}
	g := readGolden(t, def)
	do("run", chromedp.Click(chromedp.CSS("#play")))
	if _, err := chromedp.Run(bctx, chromedp.Poll[bool](`Number(document.body.dataset.step) === Number(document.body.dataset.steps) - 1`,
		chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		t.Fatalf("the default scenario did not run to its end: %v", err)
	}
	p := read()
	last := len(g.steps) - 1
	if p.Steps != len(g.steps) || p.Step != last {
		t.Errorf("after Run the page is at step %d of %d; the golden has %d steps", p.Step, p.Steps, len(g.steps))
	}
	if p.Whole != g.transcript {
		t.Errorf("the page's whole transcript differs from %s:\n%s", def.Golden, p.Whole)
	}
	if p.Text != g.steps[last] || p.Branch != g.branches[last] {
		t.Errorf("last step: page shows branch %q and\n%s\nwant branch %q and\n%s", p.Branch, p.Text, g.branches[last], g.steps[last])
	}
	if !strings.Contains(eval(`document.getElementById('outcome').textContent`), "Complete") {
		t.Errorf("the outcome does not say Complete")
	}
	shot("rolling-finished.png", false)
	shot("rolling-finished-full.png", true)
	// Mid-rollout, for the README: back to step 0 by Home, then → four times.
	do("home", chromedp.Focus(chromedp.CSS("#play")), chromedp.KeyEvent(kb.Home),
		chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight))
	if p := read(); p.Step != 4 || p.Text != g.steps[4] {
		t.Errorf("Home and → ×4: the page is at step %d, showing\n%s", p.Step, p.Text)
	}
	shot("rolling-step-4.png", false)
	do("end", chromedp.KeyEvent(kb.End))
	do("laptop viewport", chromedp.EmulateViewport(1366, 768))
	shot("rolling-finished-1366x768.png", false)
	do("viewport", chromedp.EmulateViewport(1440, 900))

	// 2. Every scenario: the page's transcript is the golden, byte for byte.
	for _, sc := range play.Scenarios() {
		pick(sc.ID)
		if got, want := read().Whole, readGolden(t, sc).transcript; got != want {
			t.Errorf("scenario %s: the page's transcript differs from %s:\n%s", sc.ID, sc.Golden, got)
		}
		if sc.ID == "deadline" {
			// Its chart has a gap of minutes between seconds-apart steps.
			do("end", chromedp.Focus(chromedp.CSS("#play")), chromedp.KeyEvent(kb.End))
			if n := eval(`String(document.querySelectorAll('#chart .gap-label').length)`); n == "0" {
				t.Errorf("the deadline scenario's chart marks no gap in time")
			}
			shot("deadline-finished.png", false)
		}
	}

	// 3. Step through another scenario, one sync at a time, by the Step
	// button and by the → key, and check each step against the golden; then
	// back by ← and by the Back button.
	for _, id := range []string{"rolling", "recreate", "pause"} {
		pick(id)
		g := readGolden(t, scenarios[id])
		native := play.Run(scenarios[id].Request)
		for i := range g.steps {
			if i > 0 {
				if i%2 == 1 {
					do("step", chromedp.Click(chromedp.CSS("#step")))
				} else {
					do("→", chromedp.Focus(chromedp.CSS("#step")), chromedp.KeyEvent(kb.ArrowRight))
				}
			}
			p := read()
			if p.Step != i || p.Text != g.steps[i] || p.Branch != g.branches[i] {
				t.Fatalf("%s step %d: the page is at step %d, shows branch %q and\n%s\nwant branch %q and\n%s", id, i, p.Step, p.Branch, p.Text, g.branches[i], g.steps[i])
			}
			if want := fmt.Sprintf("Step %d of %d ", i, len(g.steps)-1); !strings.HasPrefix(p.Title, want) {
				t.Errorf("%s step %d: title %q, want it to start %q", id, i, p.Title, want)
			}
			if strings.Count(g.steps[i], "\n  - ") != p.Actions {
				t.Errorf("%s step %d: %d actions listed, the golden has %d", id, i, p.Actions, strings.Count(g.steps[i], "\n  - "))
			}
			// Every step explained: the plan's Why and the requeue's
			// reason as the library gives them, and the calls as play
			// reads them off the reasons.
			ns := native.Steps[i]
			if p.Waits != ns.Why || p.Then != ns.RequeueWhy || p.Calls != calls(ns) {
				t.Errorf("%s step %d: the page explains waits %q, requeue %q, calls %q; natively %q, %q, %q", id, i, p.Waits, p.Then, p.Calls, ns.Why, ns.RequeueWhy, calls(ns))
			}
			if p.Actions == 0 && ns.Why == "" && ns.RequeueWhy == "" && !strings.Contains(g.steps[i], "condition") {
				t.Errorf("%s step %d: nothing explains the step", id, i)
			}
			// Each ReplicaSet named old or new, with its image and
			// revision, in the chart's legend and in the table.
			if got, want := eval(readReplicaSets), replicaSets(native, ns); got != want {
				t.Errorf("%s step %d: the legend and the table name the ReplicaSets\n%s\nnatively\n%s", id, i, got, want)
			}
		}
		if id == "recreate" {
			shot("recreate-finished.png", false)
		}
		do("←", chromedp.Focus(chromedp.CSS("#back")), chromedp.KeyEvent(kb.ArrowLeft))
		do("back", chromedp.Click(chromedp.CSS("#back")))
		if p := read(); p.Step != len(g.steps)-3 || p.Text != g.steps[len(g.steps)-3] {
			t.Errorf("%s: two steps back the page is at step %d, showing\n%s", id, p.Step, p.Text)
		}
	}

	// Keyboard. The arrows step wherever the focus is (here the scenario
	// list, which they would otherwise change), except in the editors;
	// Tab leaves the editor unchanged; Ctrl+] indents, Ctrl+[ outdents.
	pick(def.ID)
	do("→ on the scenario list", chromedp.Focus(chromedp.CSS("#scenario")), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight))
	if p, sc := read(), eval(`document.getElementById('scenario').value`); p.Step != 2 || sc != def.ID {
		t.Errorf("→ twice on the scenario list: step %d and scenario %q; want step 2 of %q", p.Step, sc, def.ID)
	}
	yamlBefore := eval(`document.getElementById('yaml').value`)
	do("→ and Tab in the editor", chromedp.Focus(chromedp.CSS("#yaml")), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.Tab))
	if p, focus, y := read(), eval(`document.activeElement.id`), eval(`document.getElementById('yaml').value`); p.Step != 2 || focus == "yaml" || y != yamlBefore {
		t.Errorf("→ then Tab in the editor: step %d, focus on %q, YAML changed %v; want step 2, focus moved on, YAML unchanged", p.Step, focus, y != yamlBefore)
	}
	// The page says so, beside the editors.
	if keys := eval(`document.getElementById('keys').textContent`); !strings.Contains(keys, "Tab moves on") || !strings.Contains(keys, "Ctrl+] indents") || !strings.Contains(keys, "Ctrl+[ takes two away") {
		t.Errorf("the page's keys say %q; want Tab moving on and Ctrl+] / Ctrl+[ indenting", keys)
	}
	eval(`(() => { const ta = document.getElementById('yaml'); ta.focus(); ta.setSelectionRange(0, 0); return ''; })()`)
	do("Ctrl+]", chromedp.KeyEvent("]", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	if y := eval(`document.getElementById('yaml').value`); y != "  "+yamlBefore {
		t.Errorf("Ctrl+] at the first line: the YAML starts %q, want it indented by two spaces", y[:min(len(y), 20)])
	}
	do("Ctrl+[", chromedp.KeyEvent("[", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	if y := eval(`document.getElementById('yaml').value`); y != yamlBefore {
		t.Errorf("Ctrl+[ after Ctrl+]: the YAML starts %q, want it back as it was", y[:min(len(y), 20)])
	}

	// Junk: a syntax error without a line in the parser's message gets
	// its line, and the run controls are disabled while it lasts.
	pick(def.ID)
	eval(`(() => { const ta = document.getElementById('yaml'); ta.value = '{{{ ]]]'; ta.dispatchEvent(new Event('input')); return ''; })()`)
	if _, err := chromedp.Run(bctx, chromedp.Poll[bool](`document.querySelectorAll('#problems li').length > 0`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("no problem shown for junk: %v", err)
	}
	junk := eval(`JSON.stringify({
	  mark: (document.querySelector('#yaml-editor .marks div') || {dataset: {}}).dataset.line || '',
	  gutter: [...document.querySelectorAll('#yaml-editor .gutter span.bad')].map((s) => s.textContent).join(','),
	  disabled: ['first', 'back', 'play', 'step', 'last', 'cursor'].filter((id) => document.getElementById(id).disabled).join(','),
	})`)
	if want := `{"mark":"1","gutter":"1","disabled":"first,back,play,step,last,cursor"}`; junk != want {
		t.Errorf("junk {{{ ]]]: the page shows %s, want %s", junk, want)
	}
	pick(def.ID)
	if d := eval(`['play', 'step', 'last', 'cursor'].filter((id) => document.getElementById(id).disabled).join(',')`); d != "" {
		t.Errorf("after valid input again, %s stay disabled", d)
	}

	// Every width: no horizontal overflow, every control on screen, the
	// diagram's and the chart's text at least 11 CSS px and none cut
	// off; the status line wraps the fallback link of a refused
	// clipboard. At step 3 (a step that waits) of the default scenario.
	do("step 3", chromedp.Focus(chromedp.CSS("#play")), chromedp.KeyEvent(kb.Home), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight))
	for _, w := range []int64{390, 768, 1440} {
		do(fmt.Sprint("viewport ", w), chromedp.EmulateViewport(w, 900))
		// The page redraws its diagrams to the new width after a short
		// debounce.
		if _, err := chromedp.Run(bctx, chromedp.Poll[bool](fmt.Sprintf(`window.innerWidth === %d && Math.abs(document.getElementById('chart').getBoundingClientRect().width - document.getElementById('chart').viewBox.baseVal.width) < 1`, w),
			chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			t.Fatalf("width %d: the chart was not redrawn to its width: %v", w, err)
		}
		time.Sleep(200 * time.Millisecond)
		m, err := chromedp.Run(bctx, chromedp.Evaluate[layout](measure))
		if err != nil {
			t.Fatal(err)
		}
		if m.ScrollWidth > m.Width || len(m.Off) > 0 || m.FlowFont < 11 || m.ChartFont < 11 || len(m.Clipped) > 0 {
			t.Errorf("width %d: %+v; want scroll width ≤ width, no control off screen, text ≥ 11 px, none clipped", w, m)
		}
		figures = append(figures, fmt.Sprintf("width %d: scroll width %.0f, smallest text %.1f px (diagram, %s layout) and %.1f px (chart)",
			w, m.ScrollWidth, m.FlowFont, m.Layout, m.ChartFont))
		shot(fmt.Sprintf("width-%d.png", w), true)
		if w != 768 {
			// The README's: the window as a learner sees it, on a phone
			// scrolled to the run.
			do("viewport for the README", chromedp.EmulateViewport(w, map[int64]int64{390: 844, 1440: 900}[w]))
			if w == 390 {
				eval(`(() => { document.getElementById('run').scrollIntoView(); return ''; })()`)
			}
			time.Sleep(300 * time.Millisecond)
			shot(fmt.Sprintf("width-%d-window.png", w), false)
			eval(`(() => { window.scrollTo(0, 0); return ''; })()`)
		}
	}
	// A refused clipboard: the link of an edited scenario (hundreds of
	// characters) goes into the status line, which wraps it.
	eval(`(() => { const ta = document.getElementById('yaml'); ta.value += '# edited\n'; ta.dispatchEvent(new Event('input')); return ''; })()`)
	if _, err := chromedp.Run(bctx, chromedp.Poll[bool](`location.hash.startsWith('#r=')`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("the edit did not make a link of its own: %v", err)
	}
	eval(`(() => { navigator.clipboard.writeText = () => Promise.reject(new Error('refused')); return ''; })()`)
	do("copy link", chromedp.Click(chromedp.CSS("#share")))
	if _, err := chromedp.Run(bctx, chromedp.Poll[bool](`!!document.querySelector('#status a#link')`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("a refused clipboard shows no link: %v", err)
	}
	for _, w := range []int64{390, 768, 1440} {
		do(fmt.Sprint("viewport ", w), chromedp.EmulateViewport(w, 900))
		if _, err := chromedp.Run(bctx, chromedp.Poll[bool](fmt.Sprintf(`window.innerWidth === %d`, w), chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			t.Fatal(err)
		}
		m, err := chromedp.Run(bctx, chromedp.Evaluate[layout](measure))
		if err != nil {
			t.Fatal(err)
		}
		if n := len(eval(`document.getElementById('link').textContent`)); m.ScrollWidth > m.Width || m.StatusLines < 1.5 {
			t.Errorf("width %d, a %d-character link in the status: scroll width %.0f, status %.1f lines; want no overflow, the link wrapped", w, n, m.ScrollWidth, m.StatusLines)
		}
	}
	do("viewport", chromedp.EmulateViewport(1440, 900))

	// 4. An invalid Deployment: maxSurge 0 with maxUnavailable 0. The page
	// shows the library's error (as play.Run gives it natively) at the
	// line of maxUnavailable.
	pick(def.ID)
	bad := def.Request
	bad.YAML = strings.Replace(bad.YAML, "maxSurge: 25%\n      maxUnavailable: 25%", "maxSurge: 0\n      maxUnavailable: 0", 1)
	want := play.Run(bad).Problems
	if len(want) != 1 || want[0].Line == 0 || !strings.Contains(want[0].Message, "maxUnavailable") {
		t.Fatalf("natively, the invalid Deployment gives %+v", want)
	}
	eval(fmt.Sprintf(`(() => { const ta = document.getElementById('yaml'); ta.value = %q; ta.dispatchEvent(new Event('input')); return ''; })()`, bad.YAML))
	if _, err := chromedp.Run(bctx, chromedp.Poll[bool](`document.querySelectorAll('#problems li').length > 0`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("no problem shown for the invalid Deployment: %v", err)
	}
	type shown struct {
		Message, Line, Mark, Pill, MarkLine, Gutter string
	}
	sh, err := chromedp.Run(bctx, chromedp.Evaluate[shown](`(() => {
	  const li = document.querySelector('#problems li');
	  const mark = document.querySelector('#yaml-editor .marks div');
	  const bad = [...document.querySelectorAll('#yaml-editor .gutter span')].filter((s) => s.classList.contains('bad')).map((s) => s.textContent).join(',');
	  return {Message: li.textContent, Line: li.dataset.line, Mark: mark ? mark.dataset.message : '', Pill: mark ? mark.textContent : '', MarkLine: mark ? mark.dataset.line : '', Gutter: bad};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprint(want[0].Line)
	if !strings.HasSuffix(sh.Message, want[0].Message) || sh.Line != line || sh.Mark != want[0].Message || sh.Pill == "" || !strings.HasSuffix(want[0].Message, sh.Pill) || sh.MarkLine != line || sh.Gutter != line {
		t.Errorf("the page shows %+v; want the library's %q at line %s", sh, want[0].Message, line)
	}
	if lines := strings.Split(bad.YAML, "\n"); !strings.Contains(lines[want[0].Line-1], "maxUnavailable") {
		t.Errorf("the error is at line %d %q, not maxUnavailable's", want[0].Line, lines[want[0].Line-1])
	}
	shot("invalid-deployment.png", false)

	// 5. A shared link: an edited scenario (8 replicas, maxSurge 1) encoded
	// in the fragment loads in a fresh page and runs as natively.
	edited := def.Request
	edited.YAML = strings.Replace(strings.Replace(def.Request.YAML, "replicas: 10", "replicas: 8", 1), "maxSurge: 25%", "maxSurge: 1", 1)
	eval(fmt.Sprintf(`(() => { const ta = document.getElementById('yaml'); ta.value = %q; ta.dispatchEvent(new Event('input')); return ''; })()`, edited.YAML))
	if _, err := chromedp.Run(bctx, chromedp.Poll[bool](`document.querySelectorAll('#problems li').length === 0 && location.hash.startsWith('#r=')`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("the edited scenario did not run or was not put in the link: %v", err)
	}
	do("step twice", chromedp.Click(chromedp.CSS("#step")), chromedp.Click(chromedp.CSS("#step")))
	link := eval(`location.href`)
	do("open the link", chromedp.Navigate("about:blank"), chromedp.Navigate(link))
	waitReady()
	nativeTr, err := play.Transcript(edited)
	if err != nil {
		t.Fatal(err)
	}
	p = read()
	if p.Whole != nativeTr || p.Step != 2 {
		t.Errorf("the link %s opens step %d of a run whose transcript is\n%s\nwant step 2 of\n%s", link, p.Step, p.Whole, nativeTr)
	}
	if got := eval(`document.getElementById('yaml').value`); got != edited.YAML {
		t.Errorf("the link brings back the YAML\n%s\nwant\n%s", got, edited.YAML)
	}

	// 6. The Kubernetes minor: picking 1.34 runs the same scenario as that
	// minor's controller decides it (its pod-template-hash names the new
	// ReplicaSet), as natively.
	old := read().Whole
	eval(`(() => { const s = document.getElementById('kversion'); s.value = '1.34'; s.dispatchEvent(new Event('change')); return ''; })()`)
	if _, err := chromedp.Run(bctx, chromedp.Poll[bool](`location.hash.startsWith('#r=')`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("the minor was not put in the link: %v", err)
	}
	as134 := edited
	as134.KubernetesVersion = "1.34"
	want134, err := play.Transcript(as134)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(bctx, chromedp.Poll[bool](fmt.Sprintf(`document.getElementById('transcript').textContent === %q`, want134), chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		got := read().Whole
		t.Errorf("as Kubernetes 1.34 the page shows\n%s\nwant\n%s", got, want134)
	}
	if want134 == old {
		t.Errorf("the 1.34 transcript equals the 1.37 one: the minor changed nothing")
	}
	// The header names the minor, and the page says what 1.34 decides
	// differently from the 1.37 it replaced, as play finds it natively.
	as134.CompareMinor = "1.37"
	diff := play.Run(as134).Differences
	if diff == nil || diff.Steps == 0 {
		t.Fatalf("natively, 1.34 decides nothing differently from 1.37: %+v", diff)
	}
	header := eval(`JSON.stringify({label: document.getElementById('minor-label').textContent, diff: document.getElementById('minor-diff').textContent})`)
	var got struct{ Label, Diff string }
	if err := json.Unmarshal([]byte(header), &got); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.Label, "1.34") || !strings.Contains(got.Diff, "1.34 decides differently from 1.37") ||
		!strings.Contains(got.Diff, fmt.Sprintf("%d of the steps", diff.Steps)) || !strings.Contains(got.Diff, diff.Lines[0].Other[0]) {
		t.Errorf("as 1.34 the header says %q and the differences %q; want 1.34, and %d steps differing from 1.37 with %q", got.Label, got.Diff, diff.Steps, diff.Lines[0].Other[0])
	}

	// 7. The what-if fields, typed key by key into the default scenario:
	// each run is the one play.Run makes of the request with that value
	// (its whole transcript), the scenario list calls it edited, and a bad
	// value is the page's problem in play.Run's words, with the run
	// controls disabled until the field is emptied again.
	for _, c := range []struct {
		id, value, bad string
		set            func(*play.Request, string)
	}{
		{"podQuota", "10", "many", func(r *play.Request, v string) { r.PodQuota = v }},
		{"replicaSetQuota", "7s", "soon", func(r *play.Request, v string) { r.ReplicaSetQuota = v }},
		{"refusedImages", "nginx:1.28", "", func(r *play.Request, v string) { r.Pods.RefusedImages = []string{v} }},
	} {
		pick(def.ID)
		typeInto := func(v string) {
			t.Helper()
			eval(fmt.Sprintf(`(() => { const e = document.getElementById(%q); e.value = ''; e.dispatchEvent(new Event('input')); e.dispatchEvent(new Event('change')); return ''; })()`, c.id))
			if v != "" {
				// Tab leaves the field, which is when a text input's change
				// event fires.
				do("type into "+c.id, chromedp.SendKeys(chromedp.CSS("#"+c.id), v), chromedp.KeyEvent(kb.Tab))
			}
		}
		req := def.Request
		c.set(&req, c.value)
		want, err := play.Transcript(req)
		if err != nil {
			t.Fatalf("%s %q: natively %v", c.id, c.value, err)
		}
		if want == readGolden(t, def).transcript {
			t.Fatalf("%s %q changes nothing natively: the row proves nothing", c.id, c.value)
		}
		typeInto(c.value)
		if _, err := chromedp.Run(bctx, chromedp.Poll[bool](fmt.Sprintf(`document.getElementById('transcript').textContent === %q`, want), chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			t.Errorf("%s typed %q: the page shows\n%s\nwant play.Run's\n%s", c.id, c.value, read().Whole, want)
		}
		if sc := eval(`document.getElementById('scenario').value`); sc != "custom" {
			t.Errorf("%s typed %q: the scenario list says %q, want custom", c.id, c.value, sc)
		}
		if c.bad == "" {
			continue
		}
		bad := def.Request
		c.set(&bad, c.bad)
		probs := play.Run(bad).Problems
		if len(probs) != 1 {
			t.Fatalf("%s %q: natively the problems %+v, want one", c.id, c.bad, probs)
		}
		typeInto(c.bad)
		if _, err := chromedp.Run(bctx, chromedp.Poll[bool](`document.querySelectorAll('#problems li').length > 0`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			t.Fatalf("%s typed %q: no problem shown: %v", c.id, c.bad, err)
		}
		type shownProblem struct{ Problem, Disabled string }
		sh, err := chromedp.Run(bctx, chromedp.Evaluate[shownProblem](`({Problem: document.querySelector('#problems li').textContent,
		  Disabled: ['play', 'step', 'last', 'cursor'].filter((id) => document.getElementById(id).disabled).join(',')})`))
		if err != nil {
			t.Fatal(err)
		}
		if want := (shownProblem{probs[0].Message, "play,step,last,cursor"}); sh != want {
			t.Errorf("%s typed %q: the page shows %+v, want %+v", c.id, c.bad, sh, want)
		}
		typeInto("")
		if _, err := chromedp.Run(bctx, chromedp.Poll[bool](`document.querySelectorAll('#problems li').length === 0 && !document.getElementById('play').disabled`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			t.Errorf("%s emptied: the problem stays or the controls stay disabled: %v", c.id, err)
		}
	}

	mu.Lock()
	defer mu.Unlock()
	if len(jsErrors) > 0 {
		t.Errorf("JavaScript errors on the page: %q", jsErrors)
	}
	for _, f := range figures {
		t.Log(f)
	}
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), "figures.txt"), []byte(strings.Join(figures, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
