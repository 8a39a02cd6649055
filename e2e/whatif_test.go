package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	restclient "k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/deploysync/deploysync/examples/cli"
)

// whatIfStep is one manifest change of the what-if test: the file the user
// applies (testdata/whatif), and what the change is meant to exercise.
// The test asserts the what-if's answer against what kube-controller-
// manager then does; want only checks that the table still exercises what
// its reason says (a table whose every step rolls nothing could not fail).
type whatIfStep struct {
	file   string
	want   int // cli.ExitRollsNew, cli.ExitRollsBack or 0
	reason string
}

var whatIfSteps = []whatIfStep{
	{"01-create", cli.ExitRollsNew, "creating the Deployment: its first ReplicaSet, named by the template's hash"},
	{"02-image", cli.ExitRollsNew, "a new image"},
	{"03-env", cli.ExitRollsNew, "an environment variable"},
	{"04-template-annotation", cli.ExitRollsNew, "an annotation on the pod template"},
	{"05-deployment-annotation", 0, "an annotation on the Deployment's metadata: copied to the ReplicaSet, no pod replaced"},
	{"06-deployment-label", 0, "a label on the Deployment's metadata"},
	{"07-template-label", cli.ExitRollsNew, "a label on the pod template outside the selector"},
	{"08-resources", cli.ExitRollsNew, "resource requests, cpu: 0.1 (stored as 100m)"},
	{"09-resources-respelled", 0, "the same quantities spelled 100m and 67108864: semantically equal, the controller finds the ReplicaSet"},
	{"10-probe", cli.ExitRollsNew, "a readiness probe (its scheme, period, timeout and thresholds defaulted)"},
	{"11-probe-defaults", 0, "the probe's defaults spelled out: defaulting makes them a no-op"},
	{"12-volume", cli.ExitRollsNew, "an emptyDir volume and its mount"},
	{"13-port", cli.ExitRollsNew, "a container port (protocol defaulted)"},
	{"14-explicit-defaults", 0, "imagePullPolicy IfNotPresent with a tagged image, protocol TCP, terminationMessagePath, restartPolicy, dnsPolicy spelled out"},
	{"15-scale-up", 0, "replicas only, 3 → 5: a scaling event"},
	{"16-scale-down", 0, "replicas only, 5 → 3"},
	{"17-strategy", 0, "strategy only: maxSurge 0, maxUnavailable 1"},
	{"18-image-3", cli.ExitRollsNew, "a new image under the new strategy"},
	{"19-pause", 0, "paused: true"},
	{"20-image-while-paused", 0, "a new image while paused: the controller creates no ReplicaSet until resumed"},
	{"21-resume", cli.ExitRollsNew, "the paused line deleted: the held template rolls out now, though the template itself does not change"},
	{"22-min-ready", 0, "minReadySeconds only"},
	{"23-back-to-image-3", cli.ExitRollsBack, "back to step 18's template: its ReplicaSet scales up again, no new name"},
	{"24-min-ready-removed", 0, "minReadySeconds deleted"},
	{"25-history-limit", 0, "revisionHistoryLimit 2: old ReplicaSets are deleted, no pod replaced"},
	{"26-restart", cli.ExitRollsNew, "kubectl rollout restart's annotation, written in the manifest"},
	{"27-recreate", 0, "the strategy switched to Recreate (the rollingUpdate fields deleted)"},
	{"28-image-5", cli.ExitRollsNew, "a new image under Recreate"},
	{"29-reformatted", 0, "the same manifest reformatted: nothing changes"},
	{"30-template-of-step-2", cli.ExitRollsNew, "step 2's template again, its ReplicaSet deleted by the history limit: a new ReplicaSet of the old name"},
}

// whatIfAnswer is the part of `kubectl deploysync diff -o json` the test
// compares with the cluster.
type whatIfAnswer struct {
	Verdict       string `json:"verdict"`
	Why           string `json:"why"`
	NewReplicaSet string `json:"newReplicaSet"`
	ReturnsTo     *struct {
		Name string `json:"name"`
	} `json:"returnsTo"`
	Prediction *struct {
		Outcome  string `json:"outcome"`
		Timeline struct {
			Steps []struct {
				ReplicaSets []struct {
					Name     string `json:"name"`
					Replicas int32  `json:"replicas"`
				} `json:"replicaSets"`
			} `json:"steps"`
		} `json:"timeline"`
	} `json:"prediction"`
}

// testWhatIf applies each manifest of whatIfSteps in turn to one
// Deployment beside kube-controller-manager. Before each apply it runs
// `kubectl deploysync diff -f MANIFEST` on the live cluster (through a
// proxy that records every request the command sends), then applies the
// manifest as `kubectl apply --server-side` does, waits for the
// controllers to settle, and asserts that the what-if said what the
// controller did: the exit code (10 a new ReplicaSet, 11 back to an
// existing one, 0 no rollout), the new ReplicaSet's name, the ReplicaSet
// scaled back up, and the ReplicaSet sizes step by step. Every strategy
// the table rolls under (3 replicas at 25%/25%, i.e. surge 1 and nothing
// unavailable; surge 0 and one unavailable; Recreate) lets the controller
// take one step only when the pods of the previous one are Ready or gone,
// so pod timing cannot merge or reorder the steps and the sizes are
// asserted on every change.
func testWhatIf(t *testing.T, cfg *restclient.Config) {
	r := newRun(t, cfg, "whatif", reference)
	proxy := newRecordingProxy(t, cfg)
	kubeconfig := writeKubeconfig(t, &restclient.Config{Host: proxy.url})
	sizes := startSizeRecorder(t, r)

	exact := 0
	for _, st := range whatIfSteps {
		ok := t.Run(st.file, func(t *testing.T) {
			if st.reason == "" {
				t.Fatal("reason must be provided")
			}
			path := filepath.Join("testdata", "whatif", st.file+".yaml")
			manifest, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			before := r.replicaSetsByUID(t)
			mark := sizes.mark()

			start := time.Now()
			proxy.reset()
			out, err := runPlugin("diff", "-f", path, "-n", r.ns, "--kubeconfig", kubeconfig, "-o", "json",
				"--now", time.Now().UTC().Format(time.RFC3339))
			said := exitCode(err)
			if said != 0 && said != cli.ExitRollsNew && said != cli.ExitRollsBack {
				t.Fatalf("diff failed (exit %d): %v\n%s", said, err, out)
			}
			var w whatIfAnswer
			if err := json.Unmarshal([]byte(out), &w); err != nil {
				t.Fatalf("diff -o json: %v\n%s", err, out)
			}
			for _, p := range proxy.writes() {
				t.Errorf("diff sent a write that is not a dry run: %s", p)
			}
			if proxy.dryRuns() != 1 {
				t.Errorf("diff sent %d dry runs, want 1 (the manifest defaulted by the apiserver)", proxy.dryRuns())
			}
			whatIfTime := time.Since(start)

			d := r.apply(t, manifest)
			until := complete
			if d.Spec.Paused {
				until = quietly
			}
			r.settle(st.file, until)
			after := r.replicaSetsByUID(t)
			did, name := controllerDid(before, after)

			t.Logf("diff said %d (%s; %s) in %v; kube-controller-manager: %d %s", said, w.Verdict, w.Why, whatIfTime.Round(time.Millisecond), did, name)
			if said != did {
				t.Errorf("diff exits %d (%s: %s), kube-controller-manager did %d (%s)", said, w.Verdict, w.Why, did, name)
			}
			switch did {
			case cli.ExitRollsNew:
				if w.NewReplicaSet != name {
					t.Errorf("diff names the new ReplicaSet %q, kube-controller-manager created %q", w.NewReplicaSet, name)
				}
			case cli.ExitRollsBack:
				if w.ReturnsTo == nil || w.ReturnsTo.Name != name {
					t.Errorf("diff returns to %+v, kube-controller-manager scaled %q back up", w.ReturnsTo, name)
				}
			}
			if did != st.want {
				t.Errorf("the table says %s should give %d, kube-controller-manager did %d: the step no longer exercises what it says", st.reason, st.want, did)
			}

			observed := sizes.since(t, r, mark)
			predicted := []string{sizesOf(before)}
			if w.Prediction != nil {
				for _, s := range w.Prediction.Timeline.Steps {
					m := map[string]int32{}
					for _, rs := range s.ReplicaSets {
						m[rs.Name] = rs.Replicas
					}
					predicted = appendDistinct(predicted, formatSizes(m))
				}
			}
			if w.Prediction == nil && st.file == "01-create" {
				// No live state to simulate from: the answer to a create
				// is the name only.
				t.Logf("sizes (not predicted for a create): %s", strings.Join(observed, " → "))
			} else if !slices.Equal(predicted, observed) {
				t.Errorf("ReplicaSet sizes step by step:\npredicted %s\nobserved  %s", strings.Join(predicted, " → "), strings.Join(observed, " → "))
			} else {
				t.Logf("sizes as predicted: %s", strings.Join(observed, " → "))
			}
		})
		if ok {
			exact++
		}
	}
	t.Logf("%d of %d changes predicted exactly (exit code, ReplicaSet name, sizes step by step)", exact, len(whatIfSteps))
}

func exitCode(err error) int {
	var e *cli.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &e):
		return e.Code
	}
	return 1
}

// apply sends the manifest as `kubectl apply --server-side
// --force-conflicts` does: a server-side apply of the YAML as written, as
// field manager kubectl.
func (r *run) apply(t *testing.T, manifest []byte) *appsv1.Deployment {
	t.Helper()
	body, err := yaml.YAMLToJSON(manifest)
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.client.AppsV1().Deployments(r.ns).Patch(r.ctx, dName, types.ApplyPatchType, body,
		metav1.PatchOptions{FieldManager: "kubectl", Force: ptr.To(true)})
	if err != nil {
		t.Fatalf("applying: %v", err)
	}
	r.wrote("Deployment", out)
	return out
}

// replicaSetsByUID reads the namespace's ReplicaSets.
func (r *run) replicaSetsByUID(t *testing.T) map[types.UID]appsv1.ReplicaSet {
	t.Helper()
	l, err := r.client.AppsV1().ReplicaSets(r.ns).List(r.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[types.UID]appsv1.ReplicaSet{}
	for _, rs := range l.Items {
		out[rs.UID] = rs
	}
	return out
}

// controllerDid says what the controller did between two reads of the
// ReplicaSets, in diff's exit codes: a ReplicaSet created (10, its name),
// an existing one scaled up from 0 (11, its name), or neither (0).
func controllerDid(before, after map[types.UID]appsv1.ReplicaSet) (int, string) {
	var created, back []string
	for uid, rs := range after {
		old, existed := before[uid]
		switch {
		case !existed:
			created = append(created, rs.Name)
		case *old.Spec.Replicas == 0 && *rs.Spec.Replicas > 0:
			back = append(back, rs.Name)
		}
	}
	switch {
	case len(created)+len(back) > 1:
		return -1, fmt.Sprintf("created %v and scaled up %v", created, back)
	case len(created) == 1:
		return cli.ExitRollsNew, created[0]
	case len(back) == 1:
		return cli.ExitRollsBack, back[0]
	}
	return 0, ""
}

func sizesOf(rss map[types.UID]appsv1.ReplicaSet) string {
	m := map[string]int32{}
	for _, rs := range rss {
		m[rs.Name] = *rs.Spec.Replicas
	}
	return formatSizes(m)
}

// formatSizes writes the ReplicaSets that ask for pods, by name: "a=2 b=1".
// A ReplicaSet at 0 and one that is gone are the same.
func formatSizes(m map[string]int32) string {
	var parts []string
	for name, n := range m {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", name, n))
		}
	}
	sort.Strings(parts)
	return "[" + strings.Join(parts, " ") + "]"
}

func appendDistinct(seq []string, s string) []string {
	if len(seq) > 0 && seq[len(seq)-1] == s {
		return seq
	}
	return append(seq, s)
}

// sizeRecorder records, in the order the watch delivers them, the
// ReplicaSets' sizes after every change of one.
type sizeRecorder struct {
	mu      sync.Mutex
	current map[string]int32
	rv      map[string]string
	seq     []string
}

func startSizeRecorder(t *testing.T, r *run) *sizeRecorder {
	s := &sizeRecorder{current: map[string]int32{}, rv: map[string]string{}, seq: []string{formatSizes(nil)}}
	w, err := r.client.AppsV1().ReplicaSets(r.ns).Watch(r.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	go func() {
		for ev := range w.ResultChan() {
			rs, ok := ev.Object.(*appsv1.ReplicaSet)
			if !ok {
				continue
			}
			s.mu.Lock()
			if ev.Type == "DELETED" {
				delete(s.current, rs.Name)
				delete(s.rv, rs.Name)
			} else {
				s.current[rs.Name] = *rs.Spec.Replicas
				s.rv[rs.Name] = rs.ResourceVersion
			}
			s.seq = appendDistinct(s.seq, formatSizes(s.current))
			s.mu.Unlock()
		}
	}()
	return s
}

// mark is where the next step's sizes start.
func (s *sizeRecorder) mark() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.seq) - 1
}

// since returns the sizes from mark on, once the recorder has seen the
// ReplicaSets as the server has them now.
func (s *sizeRecorder) since(t *testing.T, r *run, mark int) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		now := r.replicaSetsByUID(t)
		s.mu.Lock()
		caughtUp := len(now) == len(s.rv)
		for _, rs := range now {
			caughtUp = caughtUp && s.rv[rs.Name] == rs.ResourceVersion
		}
		if caughtUp {
			out := slices.Clone(s.seq[mark:])
			s.mu.Unlock()
			return out
		}
		s.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("the size recorder has not caught up with the ReplicaSets in 10s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// recordingProxy stands between the plugin and the apiserver and records
// every request the plugin sends.
type recordingProxy struct {
	url string
	mu  sync.Mutex
	log []string // "METHOD path?query"
}

func newRecordingProxy(t *testing.T, cfg *restclient.Config) *recordingProxy {
	t.Helper()
	target, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := restclient.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := &recordingProxy{}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = rt
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		p.mu.Lock()
		p.log = append(p.log, req.Method+" "+req.URL.RequestURI())
		p.mu.Unlock()
		rp.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	p.url = srv.URL
	return p
}

func (p *recordingProxy) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log = nil
}

// writes are the requests that are neither reads nor dry runs.
func (p *recordingProxy) writes() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, l := range p.log {
		method, uri, _ := strings.Cut(l, " ")
		if method == http.MethodGet || method == http.MethodHead {
			continue
		}
		if u, err := url.Parse(uri); err == nil && slices.Equal(u.Query()["dryRun"], []string{"All"}) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// dryRuns counts the requests with dryRun=All.
func (p *recordingProxy) dryRuns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, l := range p.log {
		_, uri, _ := strings.Cut(l, " ")
		if u, err := url.Parse(uri); err == nil && slices.Equal(u.Query()["dryRun"], []string{"All"}) {
			n++
		}
	}
	return n
}
