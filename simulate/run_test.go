package simulate_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/simulate"
)

// TestDeterministic runs the same state, options and seed twice and demands
// the same transcript; a different seed must change which pods fail.
func TestDeterministic(t *testing.T) {
	opts := func(seed uint64) []simulate.Option {
		return []simulate.Option{simulate.WithFailureRate(0.3), simulate.WithSeed(seed), simulate.WithChanges(upgrade,
			simulate.SetReplicas(4*time.Second, 15), simulate.SetImage(9*time.Second, "web", "nginx:1.29"))}
	}
	run := func(seed uint64) string {
		tl, err := simulate.Run(steady(t, deployment(20)), opts(seed)...)
		if err != nil {
			t.Fatal(err)
		}
		return tl.Transcript()
	}
	a, b := run(1), run(1)
	if a != b {
		t.Fatalf("same seed, different timelines:\n%s\n---\n%s", a, b)
	}
	if c := run(2); c == a {
		t.Errorf("seeds 1 and 2 gave the same timeline; the failure draws ignore the seed")
	}
}

// TestEveryTickSameOutcome checks that skipping idle ticks changes nothing
// but the number of steps: the same outcome, the same final state.
func TestEveryTickSameOutcome(t *testing.T) {
	for _, sc := range scenarios() {
		if sc.name == "rolling 1000 replicas" || sc.want == simulate.DeadlineExceeded {
			continue // long runs at every tick
		}
		if strings.HasPrefix(sc.name, "replica sets refused") {
			// Every tick is a sync, so a failing one fails at every tick,
			// sooner than its backoff, and the controller gives up after
			// 15 ticks (WithEveryTick says so).
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			skip, err := simulate.Run(sc.state(t), sc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			every, err := simulate.Run(sc.state(t), append(sc.opts, simulate.WithEveryTick())...)
			if err != nil {
				t.Fatal(err)
			}
			if skip.Outcome != every.Outcome || skip.Duration() != every.Duration() {
				t.Errorf("skipping: %s after %v; every tick: %s after %v", skip.Outcome, skip.Duration(), every.Outcome, every.Duration())
			}
			if err := every.Err(); err != nil {
				t.Errorf("every tick breaks invariants: %v", err)
			}
			if len(every.Steps) < len(skip.Steps) {
				t.Errorf("every tick took %d steps, fewer than %d", len(every.Steps), len(skip.Steps))
			}
		})
	}
}

func TestRunErrors(t *testing.T) {
	for _, tt := range []struct {
		name   string
		opts   []simulate.Option
		edit   func(*appsv1.Deployment)
		want   string
		reason string
	}{
		{name: "bad tick", opts: []simulate.Option{simulate.WithTick(0)}, want: "tick",
			reason: "a zero tick would never advance the clock"},
		{name: "bad rate", opts: []simulate.Option{simulate.WithFailureRate(1.5)}, want: "failure rate",
			reason: "a probability is between 0 and 1"},
		{name: "negative delay", opts: []simulate.Option{simulate.WithReadinessDelay(-time.Second)}, want: "delays",
			reason: "pods cannot become ready before they start"},
		{name: "negative stagger", opts: []simulate.Option{simulate.WithReadyStagger(-time.Millisecond)}, want: "ready stagger",
			reason: "pods cannot be spaced by a negative time"},
		{name: "bad burst", opts: []simulate.Option{simulate.WithBurstReplicas(0)}, want: "burst",
			reason: "a ReplicaSet controller that creates no pods never converges"},
		{name: "bad step limit", opts: []simulate.Option{simulate.WithMaxSteps(0)}, want: "step limit",
			reason: "a run has at least one step"},
		{name: "change before start", opts: []simulate.Option{simulate.WithChanges(simulate.SetReplicas(-time.Second, 3))}, want: "before the start",
			reason: "a change happens during the run"},
		{name: "unknown container", opts: []simulate.Option{simulate.WithChanges(simulate.SetImage(time.Second, "nope", "x"))}, want: `no container "nope"`,
			reason: "set image names a container of the template"},
		{name: "invalid deployment", edit: func(d *appsv1.Deployment) { d.Spec.Replicas = nil }, want: "spec.replicas",
			reason: "Run validates the state as Sync does"},
		{name: "bad pod limit", opts: []simulate.Option{simulate.WithMaxPods(0)}, want: "pod limit",
			reason: "a world holds at least one pod"},
		{name: "too many pods at the start", opts: []simulate.Option{simulate.WithMaxPods(2)}, want: "the world holds 3 pods; the limit is 2",
			reason: "the three running pods of the steady state exceed the limit"},
		{name: "too many pods later", opts: []simulate.Option{simulate.WithMaxPods(5), simulate.WithChanges(simulate.SetReplicas(time.Second, 100))},
			want: "the limit is 5", reason: "scaling to 100 grows the world past the limit instead of exhausting memory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			s := steady(t, deployment(3))
			if tt.edit != nil {
				tt.edit(s.Deployment)
			}
			_, err := simulate.Run(s, tt.opts...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Run error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestInvalidStateIsInputError(t *testing.T) {
	s := steady(t, deployment(3))
	s.Deployment.Spec.Replicas = nil
	_, err := simulate.Run(s)
	var ie *deployutil.InputError
	if !errors.As(err, &ie) || ie.Field != "spec.replicas" {
		t.Errorf("error %v, want an *InputError on spec.replicas", err)
	}
}

func TestStepLimit(t *testing.T) {
	tl, err := simulate.Run(steady(t, deployment(10)), simulate.WithChanges(upgrade), simulate.WithMaxSteps(3))
	if err != nil {
		t.Fatal(err)
	}
	if tl.Outcome != simulate.StepLimit || len(tl.Steps) != 3 {
		t.Errorf("outcome %s after %d steps, want StepLimit after 3", tl.Outcome, len(tl.Steps))
	}
}

// TestTerminatingPodsExceedSurge shows the documented limit of SurgeBound:
// with slow termination, pods including terminating ones exceed
// replicas+maxSurge while the pods that are not terminating stay within it.
func TestTerminatingPodsExceedSurge(t *testing.T) {
	tl, err := simulate.Run(steady(t, deployment(10)), simulate.WithChanges(upgrade), simulate.WithTerminationDelay(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	pods, withTerm := tl.PeakPods()
	if pods > 13 || withTerm <= 13 {
		t.Errorf("peak %d pods (%d with terminating); want at most 13, and more than 13 with terminating", pods, withTerm)
	}
	if err := tl.Err(); err != nil {
		t.Error(err)
	}
}

func TestStalledWithoutDeadline(t *testing.T) {
	d := deployment(4, func(d *appsv1.Deployment) { d.Spec.ProgressDeadlineSeconds = nil })
	s := steady(t, d)
	s.Deployment.Spec.ProgressDeadlineSeconds = nil
	tl, err := simulate.Run(s, simulate.WithFailingImage("nginx:bad"), simulate.WithChanges(simulate.SetImage(0, "web", "nginx:bad")))
	if err != nil {
		t.Fatal(err)
	}
	if tl.Outcome != simulate.Stalled {
		t.Errorf("outcome %s, want Stalled: without a progress deadline a broken rollout waits forever", tl.Outcome)
	}
}

// TestFencepostsChangeMidRollout lowers maxSurge to 0 during the rollout,
// with 13 pods up: upstream removes the surplus only as old pods may go, so
// the surge check waits until the pods fit the new bound (and the
// availability check until every replica is available); the run keeps every
// invariant and ends with 10 pods.
func TestFencepostsChangeMidRollout(t *testing.T) {
	tl, err := simulate.Run(steady(t, deployment(10)), simulate.WithChanges(upgrade,
		simulate.SetFenceposts(2*time.Second, intstr.FromInt32(0), intstr.FromInt32(1))))
	if err != nil {
		t.Fatal(err)
	}
	if err := tl.Err(); err != nil {
		t.Error(err)
	}
	if tl.Outcome != simulate.Complete {
		t.Errorf("outcome %s, want Complete", tl.Outcome)
	}
	if s := tl.Steps[3]; s.Totals.Pods <= 10 {
		t.Errorf("step 3: %d pods; the scenario means to start above the new bound", s.Totals.Pods)
	}
	if s := tl.Steps[len(tl.Steps)-1]; s.Totals.Pods != 10 {
		t.Errorf("the run ends with %d pods, want 10", s.Totals.Pods)
	}
}
