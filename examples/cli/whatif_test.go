package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

const whatIfNow = "2026-11-29T12:00:00Z"

// runCLI runs the command with globals g (a test's client) and returns
// stdout, stderr and the error.
func runCLI(t *testing.T, g *globals, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	g.clock = func() time.Time { panic("the wall clock was read although --now was given") }
	cmd := newCommand(&out, &errOut, g)
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func exitOf(err error) int {
	var e *ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &e):
		return e.Code
	}
	return 1
}

// TestDiffOffline answers each manifest change against the state file of
// a completed rollout (store/shop at registry.example/shop:12, revision 1
// at :11, scaled to 0): the verdict, the exit code and the golden text.
func TestDiffOffline(t *testing.T) {
	for _, tt := range []struct {
		manifest, verdict string
		state             string // testdata/STATE.yaml; complete when empty
		exit              int
		output            string
		reason            string
	}{
		{manifest: "same", verdict: VerdictNothing, reason: "the manifest as written, without defaults: after defaulting it is the live Deployment"},
		{manifest: "explicit-defaults", verdict: VerdictNothing, reason: "imagePullPolicy IfNotPresent with a tagged image and the default terminationMessagePath spelled out: defaulting makes them a no-op"},
		{manifest: "image", verdict: VerdictRolls, exit: ExitRollsNew, reason: "a new image: a new ReplicaSet, its name from the template's hash"},
		{manifest: "image", verdict: VerdictRolls, exit: ExitRollsNew, output: "json", reason: "the same as JSON for CI: verdict, changes, the new ReplicaSet, the prediction"},
		{manifest: "replicas", verdict: VerdictNoRollout, reason: "only spec.replicas: a scaling event, no pod replaced"},
		{manifest: "no-replicas", verdict: VerdictNothing, reason: "a manifest without replicas leaves the live count (an autoscaler's) alone, as kubectl apply does"},
		{manifest: "back", verdict: VerdictRollsBack, exit: ExitRollsBack, reason: "the template of revision 1: its ReplicaSet scales back up, no new name"},
		{manifest: "strategy", verdict: VerdictNoRollout, reason: "maxSurge, maxUnavailable and minReadySeconds change outside the template: said as such, no rollout"},
		{manifest: "image-and-replicas", verdict: VerdictRolls, exit: ExitRollsNew, reason: "a new image and a new size: a rollout to 6 replicas"},
		{manifest: "annotation", verdict: VerdictRolls, exit: ExitRollsNew, reason: "kubectl rollout restart's annotation on the template rolls"},
		{manifest: "paused", verdict: VerdictHeld, reason: "a new image applied paused: kube-controller-manager creates no ReplicaSet while paused (its paused sync never creates one), so no rollout now; the answer names the ReplicaSet resuming creates (found on the e2e cluster, step 20-image-while-paused)"},
		{manifest: "resume", state: "paused", verdict: VerdictRolls, exit: ExitRollsNew, reason: "the paused line deleted from a Deployment paused with a new image: the template does not change now, but no ReplicaSet has it, so resuming creates one (found on the e2e cluster, step 21-resume)"},
		{manifest: "resume-reverted", state: "paused", verdict: VerdictNoRollout, reason: "resumed with the template its pods run (the held image undone): the controller finds that ReplicaSet, nothing rolls"},
	} {
		name := tt.manifest
		if tt.output != "" {
			name += "." + tt.output
		}
		t.Run(name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			state := tt.state
			if state == "" {
				state = "complete"
			}
			args := []string{"diff", "-f", "testdata/whatif/" + tt.manifest + ".yaml", "--state", "testdata/" + state + ".yaml", "--now", whatIfNow}
			if tt.output != "" {
				args = append(args, "-o", tt.output)
			}
			out, stderr, err := runCLI(t, &globals{}, "", args...)
			if got := exitOf(err); got != tt.exit {
				t.Fatalf("%s: exit %d (%v), want %d\nstderr: %s", tt.reason, got, err, tt.exit, stderr)
			}
			if !strings.Contains(out, tt.verdict) {
				t.Errorf("%s: the answer does not say %q:\n%s", tt.reason, tt.verdict, out)
			}
			ext := ".txt"
			if tt.output == "json" {
				ext = ".json"
			}
			golden(t, "diff-"+tt.manifest+ext, out)
		})
	}
}

// TestDiffLive answers on a cluster: the manifest is defaulted and merged
// by the apiserver's server-side apply with dryRun=All, and diff sends
// nothing but reads and that dry run.
func TestDiffLive(t *testing.T) {
	m, err := LoadManifest("testdata/complete.yaml", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	objs := []runtime.Object{m.Deployment}
	for _, rs := range m.ReplicaSets {
		objs = append(objs, rs)
	}
	client := fake.NewClientset(objs...)
	out, stderr, err := runCLI(t, &globals{client: client}, "", "diff", "-f", "testdata/whatif/image.yaml", "--now", whatIfNow)
	if exitOf(err) != ExitRollsNew {
		t.Fatalf("exit %d (%v), want %d\nstderr: %s\n%s", exitOf(err), err, ExitRollsNew, stderr, out)
	}
	if !strings.Contains(out, "defaulted by the apiserver of the test cluster (server-side apply, dryRun=All)") ||
		!strings.Contains(out, "registry.example/shop:12 →") {
		t.Errorf("the answer does not come from the dry run:\n%s", out)
	}
	dryRuns := 0
	for _, a := range client.Actions() {
		switch a := a.(type) {
		case k8stesting.PatchActionImpl:
			opts := a.GetPatchOptions()
			if len(opts.DryRun) != 1 || opts.DryRun[0] != "All" || a.GetPatchType() != "application/apply-patch+yaml" {
				t.Errorf("a patch that is not a server-side apply dry run: %+v", opts)
			}
			dryRuns++
		case k8stesting.GetActionImpl, k8stesting.ListActionImpl:
		default:
			t.Errorf("diff sent %s %s: only reads and dry runs are allowed", a.GetVerb(), a.GetResource().Resource)
		}
	}
	if dryRuns != 1 {
		t.Errorf("%d dry runs, want 1", dryRuns)
	}
}

// TestDiffRefused names the object and the cause when the cluster refuses
// the dry run.
func TestDiffRefused(t *testing.T) {
	m, err := LoadManifest("testdata/complete.yaml", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset(m.Deployment)
	client.PrependReactor("patch", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errForbidden()
	})
	_, _, err = runCLI(t, &globals{client: client}, "", "diff", "-f", "testdata/whatif/image.yaml", "--now", whatIfNow)
	want := "the server-side apply dry run of Deployment store/shop (testdata/whatif/image.yaml, line 1) was refused"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "a dry run needs the rights of the write it tries") {
		t.Fatalf("error %v, want one containing %q and the RBAC hint", err, want)
	}
}

// BenchmarkDiff10Replicas is the what-if of a 10-replica Deployment from a
// state file: read, default, compare, simulate.
func BenchmarkDiff10Replicas(b *testing.B) {
	for b.Loop() {
		var out bytes.Buffer
		g := &globals{clock: func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) }}
		cmd := newCommand(&out, &out, g)
		cmd.SetArgs([]string{"diff", "-f", "testdata/whatif/image-10.yaml", "--state", "testdata/whatif-10.yaml", "--now", whatIfNow})
		if err := cmd.ExecuteContext(context.Background()); exitOf(err) != ExitRollsNew {
			b.Fatal(err, out.String())
		}
	}
}

func errForbidden() error {
	return apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "shop", errors.New("user cannot patch deployments"))
}

// TestPodEvidence reads creation-to-Ready times and takes the
// nearest-rank percentile; pods not Ready are not read.
func TestPodEvidence(t *testing.T) {
	base := time.Date(2026, 11, 29, 11, 0, 0, 0, time.UTC)
	m := newManifest("test", "")
	for i := 1; i <= 10; i++ {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(base)}}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(base.Add(time.Duration(i) * time.Second))}}
		m.Pods["rs"] = append(m.Pods["rs"], p)
	}
	m.Pods["rs"] = append(m.Pods["rs"], &corev1.Pod{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(base)}})
	d := &appsv1.Deployment{}
	d.Spec.MinReadySeconds = 5
	for _, tt := range []struct {
		percentile int
		want       string
		reason     string
	}{
		{90, "9s", "the 9th of 10 times: 90% of the pods were Ready within 9s"},
		{50, "5s", "the median of 1s..10s by nearest rank"},
		{100, "10s", "the slowest pod"},
		{1, "1s", "the fastest pod"},
	} {
		ev := podEvidence(m, d, tt.percentile)
		if ev.PodsRead != 10 || ev.StartToReady != tt.want || ev.MinReadySeconds != 5 || ev.TerminationGrace != "30s" {
			t.Errorf("p%d: %+v, want 10 pods read, %s, minReadySeconds 5, grace 30s (%s)", tt.percentile, ev, tt.want, tt.reason)
		}
	}
}
