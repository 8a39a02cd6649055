package diagnose_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/diagnose"
	"github.com/deploysync/deploysync/internal/testing/scenarios"
	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/simulate"
)

// steady is a complete Deployment of n replicas of nginx:1, as the
// simulator builds one.
func steady(t *testing.T, n int32, edit func(*appsv1.Deployment)) deploysync.State {
	t.Helper()
	d := scenarios.Deployment(n)
	if edit != nil {
		edit(d)
	}
	s, err := simulate.Steady(d, scenarios.Now)
	require.NoError(t, err)
	return s
}

// quotaRefused is a rollout two steps in whose new ReplicaSet reports a
// quota refusal. The simulator's ReplicaSet controller never fails a
// create; this is the condition the real one sets on a quota refusal.
func quotaRefused(t *testing.T) deploysync.State {
	s := runTo(t, steady(t, 4, nil), simulate.WithChanges(simulate.SetImage(0, "web", "nginx:2")), simulate.WithMaxSteps(2))
	for i, rs := range s.ReplicaSets {
		if rs.Spec.Template.Spec.Containers[0].Image == "nginx:2" {
			rs = rs.DeepCopy()
			rs.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
				Reason: "FailedCreate", Message: `pods "web-x" is forbidden: exceeded quota: pods`}}
			s.ReplicaSets[i] = rs
		}
	}
	return s
}

// rsQuotaMessage is the apiserver's error for a ReplicaSet create a full
// quota refuses.
const rsQuotaMessage = `replicasets.apps "web-x" is forbidden: exceeded quota: rs, requested: count/replicasets.apps=1, used: count/replicasets.apps=2, limited: count/replicasets.apps=2`

// runTo simulates from s and returns the state after the last step. It
// runs on a 1 s tick (the simulator's default is 10 ms): the rows'
// scripted times and step limits pick their moments on that grid.
func runTo(t *testing.T, s deploysync.State, opts ...simulate.Option) deploysync.State {
	t.Helper()
	tl, err := simulate.Run(s, append([]simulate.Option{simulate.WithTick(time.Second)}, opts...)...)
	require.NoError(t, err)
	return tl.Final
}

func kinds(cs []diagnose.Cause) []diagnose.Kind {
	out := make([]diagnose.Kind, len(cs))
	for i, c := range cs {
		out[i] = c.Kind
	}
	return out
}

// TestRollout runs each cause's simulator scenario (or a state the
// simulator cannot reach by itself, said in the row) and checks that
// Rollout names the cause with its numbers, in order of importance, each
// cause built with the value names of one of its kind's sentences; the
// rows together produce every sentence of every kind.
func TestRollout(t *testing.T) {
	rollout := simulate.WithChanges(simulate.SetImage(0, "web", "nginx:2"))
	tests := []struct {
		name   string
		state  func(t *testing.T) deploysync.State
		want   []diagnose.Kind // in this order, none else
		text   []string        // in the messages, in order of the causes
		reason string
	}{
		{name: "complete", state: func(t *testing.T) deploysync.State {
			return runTo(t, steady(t, 10, nil), rollout)
		}, reason: "a rollout the simulator completed has nothing holding it back"},
		{name: "never ready", state: func(t *testing.T) deploysync.State {
			return runTo(t, steady(t, 10, nil), rollout, simulate.WithFailingImage("nginx:2"), simulate.WithEveryTick(), simulate.WithMaxSteps(8))
		}, want: []diagnose.Kind{diagnose.NewPodsUnavailable, diagnose.ScaleDownBlocked, diagnose.SurgeExhausted},
			text:   []string{"0 of 5 pods of the new ReplicaSet", "8 pods are available and at least 8 must stay so (replicas 10 − maxUnavailable 2)", "hold 13 pods and replicas 10 + maxSurge 3 = 13"},
			reason: "new pods that never become ready: the new ReplicaSet waits for them, the old ones may not shrink below replicas − maxUnavailable, and the surge is used up"},
		{name: "deadline", state: func(t *testing.T) deploysync.State {
			return runTo(t, steady(t, 10, nil), rollout, simulate.WithFailingImage("nginx:2"))
		}, want: []diagnose.Kind{diagnose.DeadlineExceeded, diagnose.NewPodsUnavailable, diagnose.ScaleDownBlocked, diagnose.SurgeExhausted},
			text:   []string{"progressDeadlineSeconds (600 s)", "0 of 5"},
			reason: "the same run to its end: the progress deadline is exceeded first, the causes below it stay"},
		{name: "deadline due", state: func(t *testing.T) deploysync.State {
			s := runTo(t, steady(t, 10, nil), rollout, simulate.WithFailingImage("nginx:2"), simulate.WithEveryTick(), simulate.WithMaxSteps(8))
			s.Now = s.Now.Add(11 * time.Minute)
			return s
		}, want: []diagnose.Kind{diagnose.DeadlineExceeded, diagnose.NewPodsUnavailable, diagnose.ScaleDownBlocked, diagnose.SurgeExhausted, diagnose.NextSync},
			text:   []string{"the deadline of 600 s passed at"},
			reason: "eleven minutes after the last progress, before the sync that marks it: Diagnose says the deadline passed, and the next sync writes the condition"},
		{name: "paused", state: func(t *testing.T) deploysync.State {
			return runTo(t, steady(t, 4, nil), simulate.WithChanges(simulate.Pause(0), simulate.SetImage(time.Second, "web", "nginx:2")))
		}, want: []diagnose.Kind{diagnose.Paused},
			text:   []string{"no ReplicaSet has its pod template"},
			reason: "a template changed while paused is not rolled out"},
		{name: "recreate waits", state: func(t *testing.T) deploysync.State {
			s := steady(t, 3, func(d *appsv1.Deployment) { scenarios.Recreate(d) })
			return runTo(t, s, rollout, simulate.WithTerminationDelay(time.Minute), simulate.WithMaxSteps(3))
		}, want: []diagnose.Kind{diagnose.RecreateWaiting},
			text:   []string{"old ReplicaSets report 0 pods; of the old pods, 0 running, 3 terminating"},
			reason: "Recreate scaled the old ReplicaSet to 0; its pods take a minute to terminate and the new one waits"},
		{name: "stale desired-replicas", state: func(t *testing.T) deploysync.State {
			s := steady(t, 4, nil)
			rs := s.ReplicaSets[0].DeepCopy()
			rs.Annotations[deployutil.DesiredReplicasAnnotation] = "3"
			s.ReplicaSets[0] = rs
			return runTo(t, s, rollout, simulate.WithMaxSteps(5))
		}, want: []diagnose.Kind{diagnose.StaleDesiredReplicas},
			text:   []string{`spec.replicas is 4 but web-`, `desired-replicas="3"`},
			reason: "kubernetes#102551: a stale annotation on the only active ReplicaSet keeps every sync on the scaling branch, and the image change never rolls out"},
		{name: "replica failure", state: quotaRefused, want: []diagnose.Kind{diagnose.ReplicaFailure, diagnose.NewPodsUnavailable, diagnose.ScaleDownBlocked,
			diagnose.SurgeExhausted, diagnose.NextSync},
			text:   []string{"FailedCreate: pods \"web-x\" is forbidden: exceeded quota: pods"},
			reason: "a quota refusal reported by the ReplicaSet controller comes before the pods it keeps from existing"},
		{name: "replica set refused", state: func(t *testing.T) deploysync.State {
			return runTo(t, steady(t, 10, nil), rollout, simulate.WithRefusedReplicaSets(0, rsQuotaMessage), simulate.WithMaxSteps(4))
		}, want: []diagnose.Kind{diagnose.ReplicaSetCreateFailed, diagnose.NextSync},
			text: []string{"the apiserver refuses the new ReplicaSet: Progressing is False (ReplicaSetCreateError) since 2026-11-02T10:00:00Z (3s ago)",
				"exceeded quota: rs", "next at about 2026-11-02T10:00:05Z (5.11s after the first failure)", "after 15 retries, about 2026-11-02T10:02:43Z, it stops", "create replicaset"},
			reason: "a full quota on ReplicaSets: the create fails, the controller retries with backoff; the next sync would create it again (Sync does not know the apiserver refuses)"},
		{name: "replica set refused past the retries", state: func(t *testing.T) deploysync.State {
			s := runTo(t, steady(t, 10, nil), rollout, simulate.WithRefusedReplicaSets(0, rsQuotaMessage), simulate.WithMaxSteps(4))
			s.Now = s.Now.Add(5 * time.Minute)
			return s
		}, want: []diagnose.Kind{diagnose.ReplicaSetCreateFailed, diagnose.NextSync},
			text:   []string{"then change the Deployment (kubectl annotate, kubectl rollout restart)", "stopped retrying after 15 retries"},
			reason: "five minutes later the controller has dropped the Deployment (16 failures by 2m44s): a raised quota alone brings nothing back"},
		{name: "replica failure on the Deployment", state: func(t *testing.T) deploysync.State {
			s := quotaRefused(t)
			plan, err := deploysync.Sync(s)
			require.NoError(t, err)
			s, err = deploysync.Apply(s, plan)
			require.NoError(t, err)
			return s
		}, want: []diagnose.Kind{diagnose.ReplicaFailure, diagnose.NewPodsUnavailable, diagnose.ScaleDownBlocked, diagnose.SurgeExhausted},
			text:   []string{"the ReplicaSet controller cannot create pods: FailedCreate: pods \"web-x\" is forbidden"},
			reason: "the sync after the refusal copies the ReplicaSet's condition to the Deployment, which Rollout reads first"},
		{name: "paused mid-rollout", state: func(t *testing.T) deploysync.State {
			return runTo(t, steady(t, 4, nil), simulate.WithChanges(simulate.SetImage(0, "web", "nginx:2"), simulate.Pause(3*time.Second)), simulate.WithMaxSteps(7))
		}, want: []diagnose.Kind{diagnose.Paused},
			text:   []string{"the Deployment is paused: its pod template, in ReplicaSet web-"},
			reason: "paused once the new ReplicaSet has pods: it keeps its size, the old ReplicaSet its pods"},
		{name: "minReadySeconds", state: func(t *testing.T) deploysync.State {
			s := steady(t, 3, func(d *appsv1.Deployment) { d.Spec.MinReadySeconds = 30 })
			return runTo(t, s, rollout, simulate.WithMaxSteps(4))
		}, want: []diagnose.Kind{diagnose.NewPodsUnavailable, diagnose.ScaleDownBlocked, diagnose.SurgeExhausted},
			text:   []string{"0 of 1 pods of the new ReplicaSet", "(1 ready; 1 of them not yet ready for minReadySeconds 30 s)"},
			reason: "a ready pod is available only after minReadySeconds"},
		{name: "old pods terminating", state: func(t *testing.T) deploysync.State {
			return runTo(t, steady(t, 3, nil), rollout, simulate.WithTerminationDelay(time.Minute), simulate.WithMaxSteps(12))
		}, want: []diagnose.Kind{diagnose.NextSync},
			text:   []string{"nothing blocks the rollout and the next sync writes nothing"},
			reason: "every replica is updated and available, the old pods take a minute to shut down: the rollout is not finished and the controller has nothing to do"},
		{name: "hash collision", state: func(t *testing.T) deploysync.State {
			s := steady(t, 3, nil)
			d := s.Deployment.DeepCopy()
			d.Spec.Template.Spec.Containers[0].Image = "nginx:2"
			d.Generation++
			name := deployutil.ReplicaSetName(d.Name, deployutil.ComputeHash(&d.Spec.Template, d.Status.CollisionCount))
			taken := scenarios.ReplicaSet(scenarios.Steady(name, "nginx:9", 1, "", time.Hour))
			taken.Namespace = d.Namespace
			taken.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "other", UID: "other-uid", Controller: ptr.To(true)}}
			taken.Labels = map[string]string{"app": "other"}
			s.Deployment = d
			s.ReplicaSets = append(s.ReplicaSets, taken)
			return s
		}, want: []diagnose.Kind{diagnose.HashCollision},
			text:   []string{"is taken by a ReplicaSet that is not this Deployment's with its template; collisionCount becomes 1"},
			reason: "another owner holds the name of the new ReplicaSet: the sync raises collisionCount and creates nothing"},
		{name: "overlap and orphan", state: func(t *testing.T) deploysync.State {
			s := steady(t, 2, nil)
			foreign := scenarios.ReplicaSet(scenarios.Steady("api-1", "nginx:1", 1, "1", time.Hour))
			foreign.Namespace = s.Deployment.Namespace
			foreign.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "api", UID: "api-uid", Controller: ptr.To(true)}}
			orphan := scenarios.ReplicaSet(scenarios.Steady("web-orphan", "nginx:0", 1, "", 2*time.Hour))
			orphan.Namespace = s.Deployment.Namespace
			orphan.OwnerReferences = nil
			s.ReplicaSets = append(s.ReplicaSets, foreign, orphan)
			return runTo(t, s, simulate.WithMaxSteps(1), simulate.WithSyncFunc(func(deploysync.State) (deploysync.Plan, error) {
				return deploysync.Plan{}, nil // no controller yet: the world as it stands
			}))
		}, want: []diagnose.Kind{diagnose.SelectorOverlap, diagnose.OrphanAdoption, diagnose.NextSync},
			text:   []string{"ReplicaSet api-1 of Deployment api matches this Deployment's selector app=web", "the next sync adopts it with its 1 replicas", "adopt replicaset web-orphan"},
			reason: "a ReplicaSet of another Deployment under the same selector, and an orphan the next sync adopts (which makes the rollout incomplete until it is scaled away)"},
		{name: "not synced yet", state: func(t *testing.T) deploysync.State {
			s := steady(t, 4, nil)
			d := s.Deployment.DeepCopy()
			d.Spec.Template.Spec.Containers[0].Image = "nginx:2"
			d.Generation++
			s.Deployment = d
			return s
		}, want: []diagnose.Kind{diagnose.NextSync},
			text:   []string{"its next sync does", "create replicaset"},
			reason: "kubectl set image a moment ago: nothing blocks, the controller has not acted yet"},
	}
	type form struct {
		kind diagnose.Kind
		i    int
	}
	produced := map[form]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.state(t)
			frozen := testutil.Freeze(t, s.Deployment, s.ReplicaSets, s.Pods)
			causes, err := diagnose.Rollout(s)
			require.NoError(t, err, tt.reason)
			frozen.Check(t)
			require.Equal(t, tt.want, nilIfEmpty(kinds(causes)), "%s\ncauses:\n%s", tt.reason, list(causes))
			all := list(causes)
			t.Logf("causes:\n%s", all)
			for _, want := range tt.text {
				require.Contains(t, all, want, tt.reason)
			}
			for _, c := range causes {
				require.NotEmpty(t, c.Unblock, "cause %s says nothing about what unblocks it", c.Kind)
				i, err := diagnose.Form(c)
				require.NoError(t, err, "a cause built with value names its kind's sentences do not use")
				produced[form{c.Kind, i}] = true
			}
		})
	}
	all, n := diagnose.Forms()
	for k, kind := range all {
		for i := range n[k] {
			if !produced[form{kind, i}] {
				t.Errorf("no row produces sentence %d of %s", i, kind)
			}
		}
	}
}

func nilIfEmpty(r []diagnose.Kind) []diagnose.Kind {
	if len(r) == 0 {
		return nil
	}
	return r
}

func list(cs []diagnose.Cause) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintln(&b, c)
	}
	return b.String()
}

// Diagnose a rollout whose new pods never become ready, six seconds in.
func ExampleRollout() {
	d := scenarios.Deployment(4)
	s, _ := simulate.Steady(d, scenarios.Now)
	tl, _ := simulate.Run(s, simulate.WithChanges(simulate.SetImage(0, "web", "nginx:2")),
		simulate.WithFailingImage("nginx:2"), simulate.WithEveryTick(), simulate.WithMaxSteps(6))
	causes, _ := diagnose.Rollout(tl.Final)
	for _, c := range causes {
		fmt.Println(c.Kind)
		fmt.Println(" ", c.Message())
	}
	// Output:
	// NewPodsUnavailable
	//   0 of 2 pods of the new ReplicaSet web-7cb486c8b6 are available (0 ready)
	// ScaleDownBlocked
	//   old ReplicaSets keep 3 replicas: 3 pods are available and at least 3 must stay so (replicas 4 − maxUnavailable 1), so none may go
	// SurgeExhausted
	//   the new ReplicaSet web-7cb486c8b6 stays at 2 of 4: the ReplicaSets hold 5 pods and replicas 4 + maxSurge 1 = 5 are allowed
}

// TestReplicaFailureRetry holds what the ReplicaFailure cause says of the
// ReplicaSet controller's retries to the simulator's model of its
// workqueue (simulate.WithRefusedImageUntil, which e2e's "refused pods
// then allowed" checks against kube-controller-manager: 11 refusals, the
// pods at +10.273 s): for a refusal fixed at each time, diagnose's bound
// on the state of that moment ("within about T of the fix", T as long as
// it has been refused) holds for the retry that makes the pods.
func TestReplicaFailureRetry(t *testing.T) {
	const msg = `pods "web-x" is forbidden: image nginx:2 is not allowed`
	for _, tt := range []struct {
		fix    time.Duration
		within string
		reason string
	}{
		{3 * time.Second, "within about 3s of the fix", "early: the retry at 5.128s, 2.128s after the fix"},
		{7 * time.Second, "within about 7s of the fix", "the e2e scenario's lift: the retry at 10.252s, 3.252s after"},
		{100 * time.Second, "within about 1m40s of the fix", "long: the waits keep doubling, the retry at 2m43.868s, 1m3.868s after"},
		{30 * time.Minute, "within about 16m40s of the fix", "past the limiter's 1000s ceiling: the retry at 38m30.764s, 8m30.764s after, and no wait is longer than 16m40s"},
	} {
		t.Run(tt.fix.String(), func(t *testing.T) {
			opts := []simulate.Option{simulate.WithTick(10 * time.Millisecond), simulate.WithChanges(simulate.SetImage(0, "web", "nginx:2"))}
			// The state at the fix: refused to the end, the run stopped at
			// the last step before it, the clock moved to the fix.
			full, err := simulate.Run(steady(t, 10, nil), append(opts, simulate.WithRefusedImage("nginx:2", msg))...)
			require.NoError(t, err)
			n := 0
			for n < len(full.Steps) && full.Steps[n].Elapsed < tt.fix {
				n++
			}
			at, err := simulate.Run(steady(t, 10, nil), append(opts, simulate.WithRefusedImage("nginx:2", msg), simulate.WithMaxSteps(n))...)
			require.NoError(t, err)
			s := at.Final
			s.Now = scenarios.Now.Add(tt.fix)
			unblock := replicaFailureUnblock(t, s)
			if !strings.Contains(unblock, tt.within) || !strings.Contains(unblock, "kubectl annotate") {
				t.Fatalf("unblock %q, want %q and the annotate that brings a sync at once (%s)", unblock, tt.within, tt.reason)
			}
			// The retry that makes the pods when the refusal ends then.
			lifted, err := simulate.Run(steady(t, 10, nil), append(opts, simulate.WithRefusedImageUntil("nginx:2", msg, tt.fix))...)
			require.NoError(t, err)
			var admitted *simulate.Admission
			for _, st := range lifted.Steps {
				if len(st.Admitted) > 0 {
					admitted = &st.Admitted[0]
					break
				}
			}
			require.NotNil(t, admitted, "no retry made the pods")
			t.Logf("fix %v: retry at %v after %d failures", tt.fix, admitted.At, admitted.Failures)
			bound := min(tt.fix, 1000*time.Second)
			if wait := admitted.At - tt.fix; wait < 0 || wait > bound {
				t.Errorf("the pods come %v after the fix (the retry at %v), diagnose says within about %v (%s)", wait, admitted.At, bound, tt.reason)
			}
		})
	}
}

// TestPodQuotaAdvice: a ReplicaFailure worded by the ResourceQuota
// admission plugin (apiserver v0.37.2's controller.go: "exceeded quota:
// %s, requested: %s, used: %s, limited: %s", each list sorted "k=v"
// joined by commas) gets advice for the Deployment's strategy.
func TestPodQuotaAdvice(t *testing.T) {
	const full = `pods "web-x" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=4, limited: pods=4`
	for _, tt := range []struct {
		name   string
		edit   func(*appsv1.Deployment)
		msg    string
		want   []string
		not    string
		reason string
	}{
		{"25% each", nil, full, []string{"quota pods is full (4 of 4 pods)", "maxSurge (1) more pods than spec.replicas", "moves only as old pods are gone (maxUnavailable 1)", "raise the quota's pods by 1"}, "",
			"4 replicas at 25%: one surge pod refused; one old pod may go, so the rollout crawls"},
		{"maxUnavailable 0", fenceposts(intstr.FromInt32(1), intstr.FromInt32(0)), full, []string{"with maxUnavailable 0 no old pod goes", "cannot move", "set maxSurge 0 and maxUnavailable at least 1"}, "",
			"the deadlock: no room to surge, no old pod to give way"},
		{"maxSurge 0", fenceposts(intstr.FromInt32(0), intstr.FromInt32(1)), full, []string{"with maxSurge 0 the new pods come as old ones are gone", "something else holds the room"}, "raise the quota",
			"a rollout that never surges fits the quota it ran in: the advice is not to surge less"},
		{"count/pods and other resources", nil, `pods "web-x" is forbidden: exceeded quota: q, requested: count/pods=1,cpu=1, used: count/pods=4,cpu=1, limited: count/pods=4,cpu=2`,
			[]string{"quota q is full (4 of 4 pods)"}, "", "the object-count form of the resource, beside another"},
		{"cpu only", nil, `pods "web-x" is forbidden: exceeded quota: q, requested: cpu=1, used: cpu=2, limited: cpu=2`, nil, "quota q is full",
			"not a quota on pods: nothing to say of surge"},
		{"a webhook", nil, `admission webhook "x" denied the request: no`, nil, "is full", "no quota at all"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := runTo(t, steady(t, 4, tt.edit), simulate.WithChanges(simulate.SetImage(0, "web", "nginx:2")), simulate.WithMaxSteps(2))
			for i, rs := range s.ReplicaSets {
				if rs.Spec.Template.Spec.Containers[0].Image == "nginx:2" {
					rs = rs.DeepCopy()
					rs.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
						Reason: "FailedCreate", Message: tt.msg}}
					s.ReplicaSets[i] = rs
				}
			}
			unblock := replicaFailureUnblock(t, s)
			require.NotEmpty(t, unblock, "no ReplicaFailure cause")
			for _, w := range tt.want {
				if !strings.Contains(unblock, w) {
					t.Errorf("unblock %q lacks %q (%s)", unblock, w, tt.reason)
				}
			}
			if tt.not != "" && strings.Contains(unblock, tt.not) {
				t.Errorf("unblock %q says %q (%s)", unblock, tt.not, tt.reason)
			}
		})
	}
}

// fenceposts sets a rolling update's maxSurge and maxUnavailable.
func fenceposts(surge, unavailable intstr.IntOrString) func(*appsv1.Deployment) {
	return func(d *appsv1.Deployment) {
		d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}}
	}
}

// replicaFailureUnblock is the unblock of the last ReplicaFailure cause
// diagnose.Rollout names for s, "" if none.
func replicaFailureUnblock(t *testing.T, s deploysync.State) string {
	t.Helper()
	causes, err := diagnose.Rollout(s)
	require.NoError(t, err)
	var unblock string
	for _, c := range causes {
		if c.Kind == diagnose.ReplicaFailure {
			unblock = c.Unblock
		}
	}
	return unblock
}
