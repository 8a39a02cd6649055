package cli_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deploysync/deploysync/examples/cli"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden/")

// now is the time every test passes with --now; the clock must not be read.
const now = "2026-11-29T12:00:00Z"

func noClock() time.Time { panic("the wall clock was read although --now was given") }

type result struct {
	stdout, stderr string
	err            error
}

func run(t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := cli.NewCommand(&out, &errOut, noClock)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return result{stdout: out.String(), stderr: errOut.String(), err: err}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run go test -update and review the diff); got:\n%s", path, got)
	}
}

func TestCommands(t *testing.T) {
	for _, tt := range []struct {
		name    string
		args    []string
		golden  string // stdout golden file; "" = no golden
		stderr  string // must be contained in stderr
		errWant string // must be contained in the error; "" = success
		exit    int    // the ExitError code, if any
		reason  string
	}{
		{name: "plan", args: []string{"plan", "-f", "testdata/rollout.yaml", "--now", now}, golden: "plan-rollout.txt",
			reason: "a kubectl get -o yaml List right after kubectl set image: create the new ReplicaSet within maxSurge, scale the old one down"},
		{name: "plan json", args: []string{"plan", "-f", "testdata/rollout.yaml", "--now", now, "-o", "json"}, golden: "plan-rollout.json",
			reason: "-o json gives the same plan to machines, objects included"},
		{name: "plan handwritten", args: []string{"plan", "-f", "testdata/handwritten.yaml", "--now", now}, golden: "plan-handwritten.txt",
			stderr: "never passed an apiserver: filled in the apiserver's defaults for every unset field",
			reason: "a Deployment written by hand is defaulted, and the CLI says so on stderr"},
		{name: "plan recreate", args: []string{"plan", "-f", "testdata/recreate.yaml", "--now", now}, golden: "plan-recreate.txt",
			reason: "Recreate reads the pods: a terminating old pod holds the new ReplicaSet back"},
		{name: "simulate", args: []string{"simulate", "-f", "testdata/rollout.yaml", "--now", now}, golden: "simulate-rollout.txt",
			reason: "the rollout of the List, step by step, within 5 pods and with at least 3 available"},
		{name: "simulate stuck", args: []string{"simulate", "-f", "testdata/stuck.yaml", "--now", now, "--failing-image", "nginx:broken"},
			golden: "simulate-stuck.txt", errWant: "the rollout ended ProgressDeadlineExceeded (exit code 3)", exit: cli.ExitDeadlineExceeded,
			reason: "a broken image never becomes ready: the rollout stays past its progress deadline, which CI sees as exit code 3"},
		{name: "simulate recreate", args: []string{"simulate", "-f", "testdata/recreate.yaml", "--now", now, "--transcript"},
			golden: "simulate-recreate.txt",
			reason: "the transcript shows every step's actions with their reasons"},
		{name: "history", args: []string{"history", "-f", "testdata/stuck.yaml"}, golden: "history-stuck.txt",
			reason: "kubectl rollout history: revisions ascending with their change-cause"},
		{name: "history none", args: []string{"history", "-f", "testdata/handwritten.yaml"}, golden: "history-handwritten.txt",
			reason: "a Deployment without ReplicaSets has no history"},
		{name: "status observed later", args: []string{"status", "-f", "testdata/rollout.yaml"}, golden: "status-rollout.txt",
			reason: "generation 2 is not observed yet"},
		{name: "status deadline", args: []string{"status", "-f", "testdata/stuck.yaml"}, errWant: `deployment "web" exceeded its progress deadline`, exit: 1,
			reason: "kubectl rollout status fails on ProgressDeadlineExceeded"},
		{name: "unknown field", args: []string{"plan", "-f", "testdata/bad-field.yaml", "--now", now},
			errWant: `testdata/bad-field.yaml: document 1: strict decoding error: unknown field "spec.replicaz"`,
			reason:  "a typo in a field name is an error naming the document and the field"},
		{name: "invalid value", args: []string{"plan", "-f", "testdata/bad-value.yaml", "--now", now},
			errWant: "testdata/bad-value.yaml: document 1, items[1]: ReplicaSet shop/web-5c8597c5fb: spec.replicas: invalid -1",
			reason:  "Sync's InputError is traced back to the List item it came from"},
		{name: "invalid value simulate", args: []string{"simulate", "-f", "testdata/bad-value.yaml", "--now", now},
			errWant: "document 1, items[1]: ReplicaSet shop/web-5c8597c5fb: spec.replicas",
			reason:  "simulate validates the same way"},
		{name: "two deployments", args: []string{"plan", "-f", "testdata/two.yaml", "--now", now},
			errWant: "2 Deployments (hello, world): choose one with --deployment",
			reason:  "the CLI does not guess between Deployments"},
		{name: "pick a deployment", args: []string{"plan", "-f", "testdata/two.yaml", "--deployment", "world", "--now", now},
			golden: "plan-two-world.txt", stderr: "document 2: ignoring Service hello",
			reason: "--deployment picks one; other kinds are skipped with a note"},
		{name: "no file", args: []string{"plan"}, errWant: "-f FILE is required",
			reason: "the file is required"},
		{name: "bad now", args: []string{"plan", "-f", "testdata/rollout.yaml", "--now", "noon"}, errWant: "--now",
			reason: "--now takes RFC 3339"},
		{name: "bad output", args: []string{"plan", "-f", "testdata/rollout.yaml", "--now", now, "-o", "yaml"}, errWant: "want text or json",
			reason: "only text and json are offered"},
		{name: "bad set-image", args: []string{"simulate", "-f", "testdata/rollout.yaml", "--now", now, "--set-image", "nginx"}, errWant: "CONTAINER=IMAGE",
			reason: "--set-image needs a container and an image"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			r := run(t, tt.args...)
			switch {
			case tt.errWant == "" && r.err != nil:
				t.Fatalf("error: %v\nstderr: %s", r.err, r.stderr)
			case tt.errWant != "" && (r.err == nil || !strings.Contains(r.err.Error(), tt.errWant)):
				t.Fatalf("error %v, want one containing %q", r.err, tt.errWant)
			}
			if tt.exit != 0 {
				var e *cli.ExitError
				if !errors.As(r.err, &e) || e.Code != tt.exit {
					t.Errorf("error %v, want exit code %d", r.err, tt.exit)
				}
			}
			if !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("stderr %q, want it to contain %q", r.stderr, tt.stderr)
			}
			if tt.golden != "" {
				golden(t, tt.golden, r.stdout)
			}
		})
	}
}

// TestSimulateSVG writes the chart of the List's rollout and compares it
// with the golden SVG (render it with e.g. rsvg-convert to look at it).
func TestSimulateSVG(t *testing.T) {
	out := filepath.Join(t.TempDir(), "rollout.svg")
	r := run(t, "simulate", "-f", "testdata/rollout.yaml", "--now", now, "--svg", out)
	if r.err != nil {
		t.Fatal(r.err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	for _, want := range []string{"<svg", "Rollout of shop/web (Complete)", "spec.replicas of 5c8597c5fb", "spec.replicas of 7549484477",
		"pods (not terminating)", "available pods", "seconds since the start"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
	golden(t, "rollout.svg", svg)
}

// TestWallClock checks that without --now the command reads its clock.
func TestWallClock(t *testing.T) {
	read := false
	var out bytes.Buffer
	cmd := cli.NewCommand(&out, &out, func() time.Time { read = true; return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) })
	cmd.SetArgs([]string{"plan", "-f", "testdata/rollout.yaml"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !read {
		t.Error("the clock was not read")
	}
}
