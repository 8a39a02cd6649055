package simulate_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/simulate"
)

// run runs a state and fails the test on an error or a broken invariant.
func run(t *testing.T, s deploysync.State, opts ...simulate.Option) *simulate.Timeline {
	t.Helper()
	tl, err := simulate.Run(s, opts...)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := tl.Err(); err != nil {
		t.Errorf("invariants: %v", err)
	}
	return tl
}

// sizes maps the ReplicaSets of a step to their sizes after its plan.
func sizes(rss []simulate.ReplicaSetState) map[string]int32 {
	out := map[string]int32{}
	for _, rs := range rss {
		out[rs.Name] = rs.Replicas
	}
	return out
}

// TestFixStaleDesiredReplicasRollout runs two stuck rollouts of
// kubernetes/kubernetes#102551 each way.
//
//   - Reference trace B.7: a steady 3-replica Deployment whose ReplicaSet's
//     desired-replicas annotation says 2 gets a new image.
//   - The issue's own reproduction: a steady 5-replica Deployment (maxSurge
//     0, maxUnavailable 1) gets a new image; step 0 creates the new
//     ReplicaSet at 0 and scales the old one to 4 with annotations 5/5;
//     before step 1 spec.replicas is set to 4.
//
// Without the fix, every sync from the stale annotation on is a scaling
// event that writes no ReplicaSet: the new ReplicaSet stays at 0 (or is
// never created) and the run stalls with 0 updated replicas. With
// FixStaleDesiredReplicas that sync rewrites the annotations, the next is a
// RollingUpdate, and the rollout completes: the new ReplicaSet ends with
// every replica, the old one with 0.
func TestFixStaleDesiredReplicasRollout(t *testing.T) {
	tests := []struct {
		name     string
		state    func(t *testing.T) deploysync.State
		opts     []simulate.Option
		stuckAt  int // the first step that is a scaling event
		replicas int32
		reason   string
	}{
		{name: "B.7",
			state: func(t *testing.T) deploysync.State {
				s := steady(t, deployment(3))
				rs := s.ReplicaSets[0].DeepCopy()
				rs.Annotations[deployutil.DesiredReplicasAnnotation] = "2"
				s.ReplicaSets[0] = rs
				return s
			},
			opts: []simulate.Option{simulate.WithChanges(upgrade)}, stuckAt: 0, replicas: 3,
			reason: "the stale annotation is there from the start: no new ReplicaSet is ever created"},
		{name: "#102551 scale during a maxSurge 0 rollout",
			state: func(t *testing.T) deploysync.State {
				return steady(t, deployment(5, fenceposts(intstr.FromInt32(0), intstr.FromInt32(1))))
			},
			// On a 1 s tick the scale lands at step 1, before the new
			// ReplicaSet has a pod.
			opts: []simulate.Option{simulate.WithTick(time.Second), simulate.WithChanges(upgrade, simulate.SetReplicas(time.Second, 4))}, stuckAt: 1, replicas: 4,
			reason: "the old ReplicaSet already has the 4 replicas asked for, but says desired 5: the new ReplicaSet stays at 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oldName := tt.state(t).ReplicaSets[0].Name

			off := run(t, tt.state(t), tt.opts...)
			if off.Outcome != simulate.Stalled {
				t.Errorf("fix off: outcome %s, want %s (%s)", off.Outcome, simulate.Stalled, tt.reason)
			}
			for _, st := range off.Steps[tt.stuckAt:] {
				if st.Branch != deploysync.ScalingEvent {
					t.Errorf("fix off: step %d is %s, want a ScalingEvent from step %d on", st.Index, st.Branch, tt.stuckAt)
				}
			}
			for _, rs := range off.Final.ReplicaSets {
				if rs.Name != oldName && *rs.Spec.Replicas != 0 {
					t.Errorf("fix off: new ReplicaSet %s has %d replicas, want 0", rs.Name, *rs.Spec.Replicas)
				}
			}
			if got := off.Final.Deployment.Status.UpdatedReplicas; got != 0 {
				t.Errorf("fix off: %d updated replicas, want 0", got)
			}

			on := run(t, tt.state(t), append(tt.opts, simulate.WithSyncOptions(deploysync.WithFixes(deploysync.FixStaleDesiredReplicas)))...)
			if on.Outcome != simulate.Complete {
				t.Fatalf("fix on: outcome %s, want %s\n%s", on.Outcome, simulate.Complete, on.Transcript())
			}
			if on.Steps[tt.stuckAt].Branch != deploysync.ScalingEvent || on.Steps[tt.stuckAt+1].Branch != deploysync.RollingUpdate {
				t.Errorf("fix on: steps %d and %d are %s and %s, want ScalingEvent (the refresh) then RollingUpdate",
					tt.stuckAt, tt.stuckAt+1, on.Steps[tt.stuckAt].Branch, on.Steps[tt.stuckAt+1].Branch)
			}
			final := map[string]int32{}
			for _, rs := range on.Final.ReplicaSets {
				final[rs.Name] = *rs.Spec.Replicas
			}
			newName := deployutil.ReplicaSetName("web", deployutil.ComputeHash(&on.Final.Deployment.Spec.Template, nil))
			if diff := cmp.Diff(map[string]int32{oldName: 0, newName: tt.replicas}, final); diff != "" {
				t.Errorf("fix on: final sizes (-want +got):\n%s", diff)
			}
			if st := on.Final.Deployment.Status; st.UpdatedReplicas != tt.replicas || st.AvailableReplicas != tt.replicas {
				t.Errorf("fix on: final status updated %d, available %d; want %d and %d", st.UpdatedReplicas, st.AvailableReplicas, tt.replicas, tt.replicas)
			}
		})
	}
}

// unhealthyState is the shape of kubernetes/kubernetes#119536 at 10
// replicas (maxSurge 2, maxUnavailable 0, so 12 pods): the new ReplicaSet
// (nginx:1.28) and the oldest one (nginx:1.26) run 4 available pods each;
// the middle one is a broken release (nginx:bad) with 4 pods that never
// become ready.
func unhealthyState(t *testing.T) (s deploysync.State, v1, v2, v3 string) {
	d := deployment(10, fenceposts(intstr.FromInt32(2), intstr.FromInt32(0)),
		func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
			d.Annotations = map[string]string{deployutil.RevisionAnnotation: "3"}
		})
	s = steady(t, d)
	cur := s.ReplicaSets[0]
	cur.Spec.Replicas = ptr.To[int32](4)
	cur.Status.Replicas, cur.Status.FullyLabeledReplicas, cur.Status.ReadyReplicas, cur.Status.AvailableReplicas = 4, 4, 4, 4
	oldRS := func(image, revision string, age time.Duration, available int32) *appsv1.ReplicaSet {
		rs := cur.DeepCopy()
		rs.Spec.Template.Spec.Containers[0].Image = image
		delete(rs.Spec.Template.Labels, deployutil.PodTemplateHashLabel)
		hash := deployutil.ComputeHash(&rs.Spec.Template, nil)
		rs.Spec.Template.Labels[deployutil.PodTemplateHashLabel] = hash
		rs.Labels = rs.Spec.Template.Labels
		rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: rs.Spec.Template.Labels}
		rs.Name = deployutil.ReplicaSetName("web", hash)
		rs.UID = types.UID(rs.Name + "-uid")
		rs.CreationTimestamp = metav1.NewTime(start.Add(-age))
		rs.Annotations[deployutil.RevisionAnnotation] = revision
		rs.Status.ReadyReplicas, rs.Status.AvailableReplicas = available, available
		return rs
	}
	r1 := oldRS("nginx:1.26", "1", 3*time.Hour, 4)
	r2 := oldRS("nginx:bad", "2", 2*time.Hour, 0)
	s.ReplicaSets = []*appsv1.ReplicaSet{r1, r2, cur}
	st := &s.Deployment.Status
	st.Replicas, st.UpdatedReplicas, st.ReadyReplicas, st.AvailableReplicas, st.UnavailableReplicas = 12, 4, 8, 8, 4
	return s, r1.Name, r2.Name, cur.Name
}

// TestFixUnhealthyFirstScaleDown scales that Deployment to 6 (8 pods with
// the surge) at the start. Upstream shares the 4 fewer pods in proportion
// to size: 2, 3, 3 — the new ReplicaSet loses a healthy pod, the broken one
// keeps 3 pods that never become ready, and available pods drop from 8 to
// 5. With FixUnhealthyFirst the broken ReplicaSet's 4 unavailable pods
// cover the scale-down: 4, 0, 4, and all 8 available pods stay. Both runs
// then complete; over the whole run upstream's dips to 5 available pods,
// below the 6 that maxUnavailable 0 promises at 6 replicas, while the
// fixed one never has fewer than 6 (the rollout's own scale-down of the
// oldest ReplicaSet, 4 → 2, at step 1).
func TestFixUnhealthyFirstScaleDown(t *testing.T) {
	opts := []simulate.Option{simulate.WithFailingImage("nginx:bad"), simulate.WithChanges(simulate.SetReplicas(0, 6))}
	tests := []struct {
		name          string
		fixes         []deploysync.Fix
		step0         func(v1, v2, v3 string) map[string]int32
		availableNext int32
		minAvailable  int32
		reason        string
	}{
		{name: "fix off",
			step0:         func(v1, v2, v3 string) map[string]int32 { return map[string]int32{v1: 2, v2: 3, v3: 3} },
			availableNext: 5, minAvailable: 5,
			reason: "upstream: round(4 × 8/12) = 3 each, the leftover from the oldest: 3 of the 8 available pods are deleted"},
		{name: "fix on", fixes: []deploysync.Fix{deploysync.FixUnhealthyFirst},
			step0:         func(v1, v2, v3 string) map[string]int32 { return map[string]int32{v1: 4, v2: 0, v3: 4} },
			availableNext: 8, minAvailable: 6,
			reason: "the fix: the broken ReplicaSet's 4 unavailable pods go first and cover the scale-down; no available pod is deleted by it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, v1, v2, v3 := unhealthyState(t)
			tl := run(t, s, append(opts, simulate.WithSyncOptions(deploysync.WithFixes(tt.fixes...)))...)
			if tl.Steps[0].Branch != deploysync.ScalingEvent {
				t.Errorf("step 0 is %s, want ScalingEvent", tl.Steps[0].Branch)
			}
			if tl.Steps[0].Totals.Available != 8 {
				t.Errorf("step 0 saw %d available, want 8", tl.Steps[0].Totals.Available)
			}
			if diff := cmp.Diff(tt.step0(v1, v2, v3), sizes(tl.Steps[0].ReplicaSets)); diff != "" {
				t.Errorf("sizes after step 0 (-want +got):\n%s\n(%s)", diff, tt.reason)
			}
			if got := tl.Steps[1].Totals.Available; got != tt.availableNext {
				t.Errorf("available at step 1: %d, want %d (%s)", got, tt.availableNext, tt.reason)
			}
			if got, at := tl.MinAvailable(); got != tt.minAvailable {
				t.Errorf("fewest available: %d (step %d), want %d", got, at, tt.minAvailable)
			}
			if tl.Outcome != simulate.Complete {
				t.Errorf("outcome %s, want %s", tl.Outcome, simulate.Complete)
			}
		})
	}
}
