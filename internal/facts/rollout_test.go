package facts_test

import (
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/randstate"
	sc "github.com/deploysync/deploysync/internal/testing/scenarios"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// finished is a rollout of 4 replicas with nothing left: status counts at
// 4, the new ReplicaSet at 4 and available, the old one at 0.
func finished() (*appsv1.Deployment, []*appsv1.ReplicaSet) {
	d := sc.Observed(sc.Deployment(4), 4, 4, 4)
	return d, []*appsv1.ReplicaSet{
		sc.ReplicaSet(sc.Steady("web-new", "nginx:1", 4, "2", time.Minute)),
		sc.ReplicaSet(sc.Steady("web-old", "nginx:0", 0, "1", time.Hour)),
	}
}

// TestRolloutGaps checks each gap on one edit of a finished rollout.
func TestRolloutGaps(t *testing.T) {
	type gap struct {
		rule facts.GapRule
		rs   string
		pods []string
	}
	tests := []struct {
		name   string
		edit   func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet
		pods   func(rss []*appsv1.ReplicaSet) map[types.UID][]*corev1.Pod
		want   []gap
		reason string
	}{
		{name: "finished", reason: "nothing left: no gap"},
		{name: "generation behind", edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
			d.Generation = 2
			return rss
		},
			want: []gap{{rule: facts.GapGeneration}}, reason: "a status of an older generation proves nothing about the current spec"},
		{name: "generation ahead", edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
			d.Status.ObservedGeneration = 3
			return rss
		}, want: []gap{{rule: facts.GapGeneration}}, reason: "Complete accepts an observedGeneration above generation; the strict layer does not"},
		{name: "no new ReplicaSet", edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet { return rss[1:] },
			want: []gap{{rule: facts.GapNoNewReplicaSet}}, reason: "the counts say done, but no ReplicaSet has the template"},
		{name: "no new ReplicaSet at 0 replicas", edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
			d.Spec.Replicas = ptr.To[int32](0)
			d.Status = sc.Observed(d, 0, 0, 0).Status
			return rss[1:]
		}, reason: "a Deployment of 0 replicas needs no new ReplicaSet"},
		{name: "status counts", edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
			d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.AvailableReplicas = 6, 5, 3
			return rss
		}, want: []gap{{rule: facts.GapAvailableBelow}, {rule: facts.GapUpdatedAbove}, {rule: facts.GapOldCounted}},
			reason: "each failing part of upstream's DeploymentComplete is its own gap"},
		{name: "updated below", edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
			d.Status.UpdatedReplicas = 3
			return rss
		}, want: []gap{{rule: facts.GapUpdatedBelow}, {rule: facts.GapOldCounted}}, reason: "3 of 4 updated, so one replica is old"},
		{name: "status refused by an apiserver", edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
			d.Status.AvailableReplicas = 5
			return rss
		}, want: []gap{{rule: facts.GapStatus}}, reason: "availableReplicas above replicas: no detail rule fires, Complete is false, so the catch-all does"},
		{name: "new ReplicaSet grew", edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
			rss[0].Spec.Replicas = ptr.To[int32](5)
			return rss
		}, want: []gap{{rule: facts.GapNewReplicaSetBehind, rs: "web-new"}}, reason: "the status says done, the new ReplicaSet was resized since"},
		{name: "new ReplicaSet lost availability", edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
			rss[0].Status.AvailableReplicas = 3
			return rss
		}, want: []gap{{rule: facts.GapNewReplicaSetBehind, rs: "web-new"}}, reason: "the status was written before a pod became unavailable"},
		{name: "new ReplicaSet behind, status says so", edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
			d.Status.UpdatedReplicas, rss[0].Status.Replicas = 3, 3
			return rss
		}, want: []gap{{rule: facts.GapUpdatedBelow}, {rule: facts.GapOldCounted}},
			reason: "when the status already says the rollout is not complete, the new ReplicaSet adds no gap"},
		{name: "old ReplicaSets", edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
			rss[1].Spec.Replicas = ptr.To[int32](1)
			older := sc.ReplicaSet(sc.RS{Name: "web-older", Image: "nginx:00", Current: 1, Age: 2 * time.Hour})
			return append([]*appsv1.ReplicaSet{rss[0]}, rss[1], older)
		}, want: []gap{{rule: facts.GapOldReplicaSet, rs: "web-old"}, {rule: facts.GapOldReplicaSet, rs: "web-older"}},
			reason: "one gap per old ReplicaSet with spec or status replicas, by name"},
		{name: "second ReplicaSet with the template", edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
			dup := sc.ReplicaSet(sc.RS{Name: "web-dup", Image: "nginx:1", Replicas: 1, Age: time.Second})
			return append(rss, dup)
		}, want: []gap{{rule: facts.GapOldReplicaSet, rs: "web-dup"}},
			reason: "upstream's new ReplicaSet is the oldest with the template; a younger one is old and scaled away"},
		{name: "terminating replicas", edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
			d.Status.TerminatingReplicas = ptr.To[int32](2)
			rss[1].Status.TerminatingReplicas = ptr.To[int32](2)
			return rss
		}, want: []gap{{rule: facts.GapTerminatingReplicas}}, reason: "the Deployment's status counts them: one gap, the ReplicaSets' reports add none"},
		{name: "ReplicaSet reports terminating", edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
			d.Status.TerminatingReplicas = nil
			rss[1].Status.TerminatingReplicas = ptr.To[int32](2)
			return rss
		}, want: []gap{{rule: facts.GapReplicaSetTerminating, rs: "web-old"}}, reason: "the Deployment's status does not count terminating replicas; its ReplicaSet does"},
		{name: "terminating pods", pods: func(rss []*appsv1.ReplicaSet) map[types.UID][]*corev1.Pod {
			foreign := sc.Pod(rss[0], "web-foreign", corev1.PodRunning, true)
			foreign.OwnerReferences[0].UID = "someone-else"
			return map[types.UID][]*corev1.Pod{rss[1].UID: {
				sc.Pod(rss[1], "web-old-b", corev1.PodRunning, true),
				sc.Pod(rss[1], "web-old-a", corev1.PodPending, true),
				sc.Pod(rss[1], "web-old-done", corev1.PodFailed, true),
				sc.Pod(rss[1], "web-old-live", corev1.PodRunning, false),
			}, rss[0].UID: {foreign}}
		}, want: []gap{{rule: facts.GapTerminatingPods, pods: []string{"web-old-a", "web-old-b"}}},
			reason: "unfinished pods with a deletion timestamp, controlled by the ReplicaSet they are listed under"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d, rss := finished()
			if tt.edit != nil {
				rss = tt.edit(d, rss)
			}
			var pods map[types.UID][]*corev1.Pod
			if tt.pods != nil {
				pods = tt.pods(rss)
			}
			frozen := testutil.Freeze(t, d, rss, pods)
			gaps := facts.RolloutGaps(d, rss, pods)
			frozen.Check(t)
			var got []gap
			for _, g := range gaps {
				e := gap{rule: g.Rule, pods: g.Pods}
				if g.ReplicaSet != nil {
					e.rs = g.ReplicaSet.Name
				}
				got = append(got, e)
			}
			if !slices.EqualFunc(got, tt.want, func(a, b gap) bool { return a.rule == b.rule && a.rs == b.rs && slices.Equal(a.pods, b.pods) }) {
				t.Errorf("%s\n got %+v\nwant %+v", tt.reason, got, tt.want)
			}
			if facts.RolledOut(d, rss, pods) != (len(tt.want) == 0) {
				t.Errorf("RolledOut disagrees with the gaps %+v", got)
			}
		})
	}
}

// TestRolloutGapsLayers checks on random states that the definition is
// built on upstream's: rolled out implies Complete, and on a status an
// apiserver accepts the catch-all never fires (the detail rules say why
// Complete fails).
func TestRolloutGapsLayers(t *testing.T) {
	r := randstate.NewRand(25)
	rolledOut, incomplete := 0, 0
	for i := 0; i < 3000; i++ {
		s := randstate.Valid(r).State
		d := s.Deployment
		if d.Spec.Replicas == nil {
			continue
		}
		gaps := facts.RolloutGaps(d, s.ReplicaSets, s.Pods)
		complete := facts.Complete(d, &d.Status)
		if len(gaps) == 0 {
			rolledOut++
			if !complete {
				t.Fatalf("state %d: no gap, but Complete is false: %+v", i, d.Status)
			}
		}
		if !complete {
			incomplete++
		}
		if facts.Validate(d, s.ReplicaSets, s.Pods) == nil && slices.ContainsFunc(gaps, func(g facts.RolloutGap) bool { return g.Rule == facts.GapStatus }) {
			t.Fatalf("state %d: the catch-all fired on a valid status %+v", i, d.Status)
		}
	}
	t.Logf("3000 random states: %d rolled out, %d not Complete", rolledOut, incomplete)
	if rolledOut == 0 || incomplete == 0 {
		t.Fatalf("the random states do not exercise both sides: %d rolled out, %d incomplete", rolledOut, incomplete)
	}
}
