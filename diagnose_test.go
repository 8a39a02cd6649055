package deploysync_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
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

// runTo simulates from s and returns the state after the last step.
func runTo(t *testing.T, s deploysync.State, opts ...simulate.Option) deploysync.State {
	t.Helper()
	tl, err := simulate.Run(s, opts...)
	require.NoError(t, err)
	return tl.Final
}

func reasons(cs []deploysync.Cause) []deploysync.CauseReason {
	out := make([]deploysync.CauseReason, len(cs))
	for i, c := range cs {
		out[i] = c.Reason
	}
	return out
}

// TestDiagnose runs each cause's simulator scenario (or a state the
// simulator cannot reach by itself, said in the row) and checks that
// Diagnose names the cause with its numbers, in order of importance.
func TestDiagnose(t *testing.T) {
	rollout := simulate.WithChanges(simulate.SetImage(0, "web", "nginx:2"))
	tests := []struct {
		name   string
		state  func(t *testing.T) deploysync.State
		want   []deploysync.CauseReason // in this order, none else
		text   []string                 // in the messages, in order of the causes
		reason string
	}{
		{name: "complete", state: func(t *testing.T) deploysync.State {
			return runTo(t, steady(t, 10, nil), rollout)
		}, reason: "a rollout the simulator completed has nothing holding it back"},
		{name: "never ready", state: func(t *testing.T) deploysync.State {
			return runTo(t, steady(t, 10, nil), rollout, simulate.WithFailingImage("nginx:2"), simulate.WithEveryTick(), simulate.WithMaxSteps(8))
		}, want: []deploysync.CauseReason{deploysync.CauseNewPodsUnavailable, deploysync.CauseScaleDownBlocked, deploysync.CauseSurgeExhausted},
			text:   []string{"0 of 5 pods of the new ReplicaSet", "8 pods are available and at least 8 must stay so (replicas 10 − maxUnavailable 2)", "hold 13 pods and replicas 10 + maxSurge 3 = 13"},
			reason: "new pods that never become ready: the new ReplicaSet waits for them, the old ones may not shrink below replicas − maxUnavailable, and the surge is used up"},
		{name: "deadline", state: func(t *testing.T) deploysync.State {
			return runTo(t, steady(t, 10, nil), rollout, simulate.WithFailingImage("nginx:2"))
		}, want: []deploysync.CauseReason{deploysync.CauseDeadlineExceeded, deploysync.CauseNewPodsUnavailable, deploysync.CauseScaleDownBlocked, deploysync.CauseSurgeExhausted},
			text:   []string{"progressDeadlineSeconds (600 s)", "0 of 5"},
			reason: "the same run to its end: the progress deadline is exceeded first, the causes below it stay"},
		{name: "deadline due", state: func(t *testing.T) deploysync.State {
			s := runTo(t, steady(t, 10, nil), rollout, simulate.WithFailingImage("nginx:2"), simulate.WithEveryTick(), simulate.WithMaxSteps(8))
			s.Now = s.Now.Add(11 * time.Minute)
			return s
		}, want: []deploysync.CauseReason{deploysync.CauseDeadlineExceeded, deploysync.CauseNewPodsUnavailable, deploysync.CauseScaleDownBlocked, deploysync.CauseSurgeExhausted, deploysync.CauseNextSync},
			text:   []string{"the deadline of 600 s passed at"},
			reason: "eleven minutes after the last progress, before the sync that marks it: Diagnose says the deadline passed, and the next sync writes the condition"},
		{name: "paused", state: func(t *testing.T) deploysync.State {
			return runTo(t, steady(t, 4, nil), simulate.WithChanges(simulate.Pause(0), simulate.SetImage(time.Second, "web", "nginx:2")))
		}, want: []deploysync.CauseReason{deploysync.CausePaused},
			text:   []string{"no ReplicaSet has its pod template"},
			reason: "a template changed while paused is not rolled out"},
		{name: "recreate waits", state: func(t *testing.T) deploysync.State {
			s := steady(t, 3, func(d *appsv1.Deployment) { scenarios.Recreate(d) })
			return runTo(t, s, rollout, simulate.WithTerminationDelay(time.Minute), simulate.WithMaxSteps(3))
		}, want: []deploysync.CauseReason{deploysync.CauseRecreateWaiting},
			text:   []string{"old ReplicaSets report 0 pods; of the old pods, 0 running, 3 terminating"},
			reason: "Recreate scaled the old ReplicaSet to 0; its pods take a minute to terminate and the new one waits"},
		{name: "stale desired-replicas", state: func(t *testing.T) deploysync.State {
			s := steady(t, 4, nil)
			rs := s.ReplicaSets[0].DeepCopy()
			rs.Annotations[deployutil.DesiredReplicasAnnotation] = "3"
			s.ReplicaSets[0] = rs
			return runTo(t, s, rollout, simulate.WithMaxSteps(5))
		}, want: []deploysync.CauseReason{deploysync.CauseStaleDesiredReplicas},
			text:   []string{`spec.replicas is 4 but web-`, `desired-replicas="3"`},
			reason: "kubernetes#102551: a stale annotation on the only active ReplicaSet keeps every sync on the scaling branch, and the image change never rolls out"},
		{name: "replica failure", state: func(t *testing.T) deploysync.State {
			s := runTo(t, steady(t, 4, nil), rollout, simulate.WithMaxSteps(2))
			// The simulator's ReplicaSet controller never fails a create;
			// this is the condition the real one sets on a quota refusal.
			for i, rs := range s.ReplicaSets {
				if rs.Spec.Template.Spec.Containers[0].Image == "nginx:2" {
					rs = rs.DeepCopy()
					rs.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
						Reason: "FailedCreate", Message: `pods "web-x" is forbidden: exceeded quota: pods`}}
					s.ReplicaSets[i] = rs
				}
			}
			return s
		}, want: []deploysync.CauseReason{deploysync.CauseReplicaFailure, deploysync.CauseNewPodsUnavailable, deploysync.CauseScaleDownBlocked,
			deploysync.CauseSurgeExhausted, deploysync.CauseNextSync},
			text:   []string{"FailedCreate: pods \"web-x\" is forbidden: exceeded quota: pods"},
			reason: "a quota refusal reported by the ReplicaSet controller comes before the pods it keeps from existing"},
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
		}, want: []deploysync.CauseReason{deploysync.CauseHashCollision},
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
		}, want: []deploysync.CauseReason{deploysync.CauseSelectorOverlap, deploysync.CauseOrphanAdoption, deploysync.CauseNextSync},
			text:   []string{"ReplicaSet api-1 of Deployment api matches this Deployment's selector app=web", "the next sync adopts it with its 1 replicas", "adopt replicaset web-orphan"},
			reason: "a ReplicaSet of another Deployment under the same selector, and an orphan the next sync adopts (which makes the rollout incomplete until it is scaled away)"},
		{name: "not synced yet", state: func(t *testing.T) deploysync.State {
			s := steady(t, 4, nil)
			d := s.Deployment.DeepCopy()
			d.Spec.Template.Spec.Containers[0].Image = "nginx:2"
			d.Generation++
			s.Deployment = d
			return s
		}, want: []deploysync.CauseReason{deploysync.CauseNextSync},
			text:   []string{"its next sync does", "create replicaset"},
			reason: "kubectl set image a moment ago: nothing blocks, the controller has not acted yet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.state(t)
			frozen := testutil.Freeze(t, s.Deployment, s.ReplicaSets)
			causes, err := deploysync.Diagnose(s)
			require.NoError(t, err, tt.reason)
			frozen.Check(t)
			require.Equal(t, tt.want, nilIfEmpty(reasons(causes)), "%s\ncauses:\n%s", tt.reason, list(causes))
			all := list(causes)
			t.Logf("causes:\n%s", all)
			for _, want := range tt.text {
				require.Contains(t, all, want, tt.reason)
			}
			for _, c := range causes {
				require.NotEmpty(t, c.Unblock, "cause %s says nothing about what unblocks it", c.Reason)
			}
		})
	}
}

func nilIfEmpty(r []deploysync.CauseReason) []deploysync.CauseReason {
	if len(r) == 0 {
		return nil
	}
	return r
}

func list(cs []deploysync.Cause) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintln(&b, c)
	}
	return b.String()
}

// Diagnose a rollout whose new pods never become ready, six seconds in.
func ExampleDiagnose() {
	d := scenarios.Deployment(4)
	s, _ := simulate.Steady(d, scenarios.Now)
	tl, _ := simulate.Run(s, simulate.WithChanges(simulate.SetImage(0, "web", "nginx:2")),
		simulate.WithFailingImage("nginx:2"), simulate.WithEveryTick(), simulate.WithMaxSteps(6))
	causes, _ := deploysync.Diagnose(tl.Final)
	for _, c := range causes {
		fmt.Println(c.Reason)
	}
	// Output:
	// NewPodsUnavailable
	// ScaleDownBlocked
	// SurgeExhausted
}
