package verdicts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	fluxstatus "github.com/fluxcd/cli-utils/pkg/kstatus/status"
	helm3kube "helm.sh/helm/v3/pkg/kube"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/kubectl/pkg/polymorphichelpers"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/randstate"
	"github.com/deploysync/deploysync/internal/testing/verdictcases"
	"github.com/deploysync/deploysync/simulate"
	"github.com/deploysync/deploysync/verdict"
)

// The number of random states: 20,000 by default, 1,000,000 with
// DEPLOYSYNC_LONG=1, or DEPLOYSYNC_STATES=n; trajectories likewise 500,
// 20,000 or DEPLOYSYNC_TRAJECTORIES=n.
func size(env string, ci, long int) int {
	if v, err := strconv.Atoi(os.Getenv(env)); err == nil && v > 0 {
		return v
	}
	if os.Getenv("DEPLOYSYNC_LONG") != "" {
		return long
	}
	return ci
}

// checked is one state with its verdicts, before Argo CD's (answered in
// a batch by the argocd program).
type checked struct {
	name  string
	d     *appsv1.Deployment
	argo  verdict.Verdict
	diffs []string
}

// differ collects the differences of a run.
type differ struct {
	t       *testing.T
	states  int
	diffs   int
	pending []*checked
	argoBin string
	// tallies of the tools' answers, so the run shows it reached each
	// branch: tool → status/done word → count
	seen map[string]map[string]int
}

func newDiffer(t *testing.T) *differ {
	return &differ{t: t, argoBin: buildArgo(t), seen: map[string]map[string]int{}}
}

func (x *differ) tally(tool, what string) {
	if x.seen[tool] == nil {
		x.seen[tool] = map[string]int{}
	}
	x.seen[tool][what]++
}

// check compares every tool but Argo CD now and queues Argo CD's.
func (x *differ) check(name string, d *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
	x.states++
	c := &checked{name: name, d: d.DeepCopy(), argo: verdict.ArgoCDHealth(d)}
	cmp := func(tool string, got, want verdict.Verdict) {
		// Reasons are deploysync's own words, not the tool's.
		if got.Tool != want.Tool || got.Done != want.Done || got.Failed != want.Failed || got.Status != want.Status || got.Message != want.Message {
			c.diffs = append(c.diffs, fmt.Sprintf("%s: got %+v, the tool says %+v", tool, got, want))
		}
		x.tally(tool, word(want))
	}
	cmp("kubectl", verdict.KubectlStatus(d), kubectlWants(d))
	ks, err := kstatusWants(d)
	if err != nil {
		c.diffs = append(c.diffs, "kstatus: "+err.Error())
	} else {
		cmp("kstatus", verdict.KstatusStatus(d), ks)
	}
	h4, err := helm4Wants(d)
	if err != nil {
		c.diffs = append(c.diffs, "helm4: "+err.Error())
	} else {
		cmp("helm4", verdict.Helm4Wait(d), h4)
	}
	h3, err := helm3Wants(d, rss)
	if err != nil {
		c.diffs = append(c.diffs, "helm3: "+err.Error())
	} else {
		cmp("helm3", verdict.Helm3Ready(d, rss), h3)
	}
	x.pending = append(x.pending, c)
	if len(x.pending) >= 2000 {
		x.flush()
	}
}

func word(v verdict.Verdict) string {
	w := "waiting"
	switch {
	case v.Done:
		w = "done"
	case v.Failed:
		w = "failed"
	}
	if v.Status != "" {
		w += " " + v.Status
	}
	return w
}

// flush asks the argocd program for the queued states and reports every
// difference.
func (x *differ) flush() {
	t := x.t
	if len(x.pending) == 0 {
		return
	}
	var in bytes.Buffer
	for _, c := range x.pending {
		b, err := json.Marshal(withKind(c.d))
		if err != nil {
			t.Fatal(err)
		}
		in.Write(b)
		in.WriteByte('\n')
	}
	cmd := exec.Command(x.argoBin)
	cmd.Stdin = &in
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("argocd program: %v\n%s", err, stderr.String())
	}
	dec := json.NewDecoder(&out)
	for _, c := range x.pending {
		var a struct{ Status, Message, Error string }
		if err := dec.Decode(&a); err != nil {
			t.Fatalf("argocd program's answer for %s: %v", c.name, err)
		}
		want := verdict.Verdict{Tool: verdict.ArgoCD, Done: a.Status == "Healthy", Failed: a.Status == "Degraded", Status: a.Status, Message: a.Message}
		if a.Error != "" {
			c.diffs = append(c.diffs, "argocd: error "+a.Error)
		} else if g := c.argo; g.Done != want.Done || g.Failed != want.Failed || g.Status != want.Status || g.Message != want.Message {
			c.diffs = append(c.diffs, fmt.Sprintf("argocd: got %+v, the tool says %+v", c.argo, want))
		}
		x.tally("argocd", word(want))
		if len(c.diffs) > 0 {
			x.diffs++
			if x.diffs <= 20 {
				b, _ := json.Marshal(c.d)
				t.Errorf("%s:\n  %s\n  deployment: %s", c.name, strings.Join(c.diffs, "\n  "), b)
			}
		}
	}
	x.pending = x.pending[:0]
}

func (x *differ) report(what string) {
	x.flush()
	x.t.Logf("%s: %d states compared, %d with a difference", what, x.states, x.diffs)
	for _, tool := range []string{"kubectl", "kstatus", "helm3", "helm4", "argocd"} {
		x.t.Logf("  %-8s %v", tool, x.seen[tool])
	}
}

// argoBin is the argocd program, built once per test binary.
var argoBin struct {
	once sync.Once
	path string
	err  error
}

// buildArgo builds the argocd program of the module beside this one.
func buildArgo(t *testing.T) string {
	t.Helper()
	argoBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "verdicts-argocd")
		if err != nil {
			argoBin.err = err
			return
		}
		bin := filepath.Join(dir, "argocd")
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Dir = filepath.Join("..", "argocd")
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			argoBin.err = fmt.Errorf("building the argocd program: %v\n%s", err, out)
			return
		}
		argoBin.path = bin
	})
	if argoBin.err != nil {
		t.Fatal(argoBin.err)
	}
	return argoBin.path
}

// TestMain removes the argocd program after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if argoBin.path != "" {
		os.RemoveAll(filepath.Dir(argoBin.path))
	}
	os.Exit(code)
}

func withKind(d *appsv1.Deployment) *appsv1.Deployment {
	d = d.DeepCopy()
	d.APIVersion, d.Kind = "apps/v1", "Deployment"
	return d
}

// asRead is d as a client reads it: JSON, decoded into unstructured.
func asRead(d *appsv1.Deployment) (*unstructured.Unstructured, error) {
	b, err := json.Marshal(withKind(d))
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	return u, u.UnmarshalJSON(b)
}

// kubectlWants is k8s.io/kubectl's DeploymentStatusViewer.
func kubectlWants(d *appsv1.Deployment) verdict.Verdict {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d.DeepCopy())
	if err != nil {
		return verdict.Verdict{Tool: verdict.Kubectl, Message: "conversion: " + err.Error()}
	}
	msg, done, err := (&polymorphichelpers.DeploymentStatusViewer{}).Status(&unstructured.Unstructured{Object: m}, 0)
	if err != nil {
		return verdict.Verdict{Tool: verdict.Kubectl, Failed: true, Message: err.Error()}
	}
	return verdict.Verdict{Tool: verdict.Kubectl, Done: done, Message: msg}
}

// kstatusWants is sigs.k8s.io/cli-utils's status.Compute.
func kstatusWants(d *appsv1.Deployment) (verdict.Verdict, error) {
	u, err := asRead(d)
	if err != nil {
		return verdict.Verdict{}, err
	}
	res, err := status.Compute(u)
	if err != nil {
		return verdict.Verdict{}, err
	}
	return verdict.Verdict{Tool: verdict.Kstatus, Done: res.Status == status.CurrentStatus, Failed: res.Status == status.FailedStatus,
		Status: string(res.Status), Message: res.Message}, nil
}

// helm4Wants is Helm 4's --wait on a Deployment: statuswait.go's wait
// leaves out a paused Deployment; the Deployment status reader of
// github.com/fluxcd/cli-utils computes the status with status.Compute;
// Current ends the wait, Failed ends it with an error, and the error for a
// resource that is not Current is statuswait.go's
// "resource %s/%s/%s not ready. status: %s, message: %s".
func helm4Wants(d *appsv1.Deployment) (verdict.Verdict, error) {
	if d.Spec.Paused {
		return verdict.Verdict{Tool: verdict.Helm4, Done: true}, nil
	}
	u, err := asRead(d)
	if err != nil {
		return verdict.Verdict{}, err
	}
	res, err := fluxstatus.Compute(u)
	if err != nil {
		return verdict.Verdict{}, err
	}
	v := verdict.Verdict{Tool: verdict.Helm4, Done: res.Status == fluxstatus.CurrentStatus, Failed: res.Status == fluxstatus.FailedStatus, Status: string(res.Status)}
	if !v.Done {
		v.Message = fmt.Sprintf("resource %s/%s/%s not ready. status: %s, message: %s", "Deployment", d.Namespace, d.Name, res.Status, res.Message)
	}
	return v, nil
}

// helm3Wants is Helm 3's ReadyChecker, built as its Client.Wait builds it
// (PausedAsReady), over a fake clientset holding the Deployment and the
// ReplicaSets; Message is the last line it logs.
func helm3Wants(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (verdict.Verdict, error) {
	objs := []runtime.Object{d.DeepCopy()}
	for _, rs := range rss {
		objs = append(objs, rs.DeepCopy())
	}
	cs := fake.NewClientset(objs...)
	var last string
	log := func(format string, args ...interface{}) { last = fmt.Sprintf(format, args...) }
	checker := helm3kube.NewReadyChecker(cs, log, helm3kube.PausedAsReady(true))
	ready, err := checker.IsReady(context.Background(), &resource.Info{Object: withKind(d), Namespace: d.Namespace, Name: d.Name})
	if err != nil {
		return verdict.Verdict{}, err
	}
	v := verdict.Verdict{Tool: verdict.Helm3, Done: ready}
	if !ready {
		v.Message = last
	}
	return v, nil
}

// perturb moves a generated state toward the branches the tools have and
// the generator seldom draws: Argo CD's hook finalizer, kstatus's
// Reconciling and Stalled conditions, a second Progressing condition, no
// progress deadline, the new
// ReplicaSet's generation not yet observed, finished rollouts (all counts
// equal) and the conditions of one.
func perturb(r *rand.Rand, d *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
	if r.IntN(10) == 0 {
		d.Finalizers = append(d.Finalizers, "argocd.argoproj.io/hook-finalizer")
	}
	if r.IntN(20) == 0 {
		t := []appsv1.DeploymentConditionType{"Reconciling", "Stalled"}[r.IntN(2)]
		st := []corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionFalse}[r.IntN(2)]
		d.Status.Conditions = append(d.Status.Conditions, appsv1.DeploymentCondition{Type: t, Status: st, Reason: "Tool", Message: "set by a tool"})
	}
	if r.IntN(10) == 0 {
		// a second Progressing condition: kubectl and Argo CD read the
		// first, kstatus every one
		st := []corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionFalse}[r.IntN(2)]
		reason := []string{"ProgressDeadlineExceeded", "NewReplicaSetAvailable"}[r.IntN(2)]
		d.Status.Conditions = append(d.Status.Conditions, appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: st, Reason: reason})
	}
	if r.IntN(10) == 0 {
		d.Spec.ProgressDeadlineSeconds = ptr.To[int32](math.MaxInt32)
	}
	if r.IntN(4) == 0 {
		// finished: every count at spec.replicas
		n := *d.Spec.Replicas
		s := &d.Status
		s.Replicas, s.UpdatedReplicas, s.ReadyReplicas, s.AvailableReplicas = n, n, n, n
		s.ObservedGeneration = d.Generation
		if r.IntN(2) == 0 {
			s.UnavailableReplicas = 0
			s.Conditions = []appsv1.DeploymentCondition{
				{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable"},
				{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: []string{"NewReplicaSetAvailable", "DeploymentPaused", "ReplicaSetUpdated", "ProgressDeadlineExceeded"}[r.IntN(4)]},
			}
		}
	}
	for _, rs := range rss {
		if r.IntN(8) == 0 {
			rs.Generation = rs.Status.ObservedGeneration + 1
		} else if r.IntN(3) == 0 {
			rs.Status.ObservedGeneration = rs.Generation
		}
	}
}

// TestNamedCases runs the rows of docs/verdicts.md's table (internal/testing/verdictcases)
// through every tool's own code.
func TestNamedCases(t *testing.T) {
	x := newDiffer(t)
	for _, c := range verdictcases.All() {
		x.check(c.Name, c.Deployment, c.ReplicaSets)
	}
	x.report("named cases")
	if x.states != len(verdictcases.All()) || x.states == 0 {
		t.Fatalf("%d cases compared", x.states)
	}
}

// TestRandomStates compares every tool on generated states (internal/testing/randstate,
// as conformance/suite draws them), perturbed toward the tools' branches.
// States an apiserver refuses (facts.Validate) are skipped.
func TestRandomStates(t *testing.T) {
	n := size("DEPLOYSYNC_STATES", 20_000, 1_000_000)
	x := newDiffer(t)
	skipped := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		c := randstate.Valid(randstate.NewRand(seed))
		s := c.State
		perturb(rand.New(rand.NewPCG(seed, 17)), s.Deployment, s.ReplicaSets)
		if facts.Validate(s.Deployment, s.ReplicaSets, s.Pods) != nil {
			skipped++
			continue
		}
		x.check(fmt.Sprintf("random state seed %d", seed), s.Deployment, s.ReplicaSets)
	}
	x.report(fmt.Sprintf("random states (%d drawn, %d refused as an apiserver would)", n, skipped))
}

// TestTrajectories compares every tool at every sync of simulated
// rollouts (the simulator's world, with image changes, scaling, pause and
// rollbacks along the way), where the Deployment's status is the one the
// controller wrote.
func TestTrajectories(t *testing.T) {
	n := size("DEPLOYSYNC_TRAJECTORIES", 500, 20_000)
	x := newDiffer(t)
	runs := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		src := randstate.NewRand(seed)
		c := randstate.Valid(src)
		d := c.State.Deployment
		d.DeletionTimestamp, d.Spec.Paused = nil, false
		delete(d.Annotations, deployutil.RollbackToAnnotation)
		if *d.Spec.Replicas > 200 {
			d.Spec.Replicas = ptr.To[int32](10)
		}
		if facts.IsSelectingAll(d) {
			d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
		}
		steady, err := simulate.Steady(d, c.State.Now)
		if errors.Is(err, deployutil.ErrInvalidInput) {
			continue
		}
		if err != nil {
			t.Fatalf("seed %d: steady state: %v", seed, err)
		}
		runs++
		step := 0
		opts := randstate.WorldOptions(src, c, true)
		opts = append(opts, simulate.WithSyncFunc(func(s deploysync.State) (deploysync.Plan, error) {
			step++
			x.check(fmt.Sprintf("trajectory seed %d, sync %d", seed, step), s.Deployment, s.ReplicaSets)
			return deploysync.Sync(s, deploysync.WithTerminatingReplicas(c.TerminatingReplicas))
		}))
		if _, err := simulate.Run(steady, opts...); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
	x.report(fmt.Sprintf("trajectories (%d rollouts)", runs))
}
