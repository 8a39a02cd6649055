package simulate_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/simulate"
)

// withPods returns s with its pods given as the world itself makes them
// for s: the Final pods of a run of s without changes (a steady state
// stays at step 0, so they are the count-made ones, ready a day ago).
func withPods(t *testing.T, s deploysync.State, opts ...simulate.Option) deploysync.State {
	t.Helper()
	tl, err := simulate.Run(s, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Steps) != 1 {
		t.Fatalf("the run without changes took %d steps, want 1", len(tl.Steps))
	}
	s.Pods = tl.Final.Pods
	return s
}

// steps are a timeline's steps with the pods' identities blanked in their
// deletions, what may differ between count-made and given pods.
func steps(tl *simulate.Timeline) []simulate.Step {
	out := slices.Clone(tl.Steps)
	for i := range out {
		out[i].Deleted = slices.Clone(out[i].Deleted)
		for j := range out[i].Deleted {
			out[i].Deleted[j].Pod, out[i].Deleted[j].Rank.UID = "", ""
		}
	}
	return out
}

// TestRunGivenPodsSameAsCounted gives a steady state the pods the world
// would make for it: the run must be the one without them.
func TestRunGivenPodsSameAsCounted(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		d            *appsv1.Deployment
		opts         []simulate.Option
	}{
		{"rolling", "the default rollout: every scale-down ranks the given pods as the count-made ones", deployment(10), nil},
		{"nodes and stagger", "pods on three nodes keep their nodes and the spreading of new pods; staggered readiness slots the new pods as before",
			deployment(9), []simulate.Option{simulate.WithNodes(3), simulate.WithReadyStagger(3 * time.Second)}},
		{"recreate", "Recreate reads the pods at every sync; the given ones must look as the world's", deployment(4, recreate), nil},
		{"failures", "the failure draws are made only for new pods, so given ready pods leave the draws as they were",
			deployment(12), []simulate.Option{simulate.WithFailureRate(0.3), simulate.WithSeed(5), simulate.WithNodes(2)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := steady(t, tc.d)
			given := withPods(t, s, tc.opts...)
			if len(given.Pods) != 1 || len(given.Pods[s.ReplicaSets[0].UID]) != int(*tc.d.Spec.Replicas) {
				t.Fatalf("the world made %v, want the steady ReplicaSet's pods", given.Pods)
			}
			frozen := testutil.Freeze(t, given.Deployment, given.ReplicaSets, given.Pods)
			opts := append(slices.Clone(tc.opts), simulate.WithChanges(upgrade))
			want, err := simulate.Run(s, opts...)
			if err != nil {
				t.Fatal(err)
			}
			got, err := simulate.Run(given, opts...)
			if err != nil {
				t.Fatal(err)
			}
			frozen.Check(t)
			if diff := cmp.Diff(steps(want), steps(got)); diff != "" {
				t.Errorf("%s: steps differ (-counted +given):\n%s", tc.reason, diff)
			}
			if got.Outcome != want.Outcome {
				t.Errorf("%s: outcome %s, want %s", tc.reason, got.Outcome, want.Outcome)
			}
			gp, gt := got.PeakPods()
			wp, wt := want.PeakPods()
			ga, gs := got.MinAvailable()
			wa, ws := want.MinAvailable()
			if gp != wp || gt != wt || ga != wa || gs != ws {
				t.Errorf("%s: peak %d/%d, min available %d at %d; want %d/%d, %d at %d", tc.reason, gp, gt, ga, gs, wp, wt, wa, ws)
			}
		})
	}
}

// inputPod is a pod of rs named name on node, created two hours before the
// start, Running and ready since ready (zero: not ready).
func inputPod(rs *appsv1.ReplicaSet, name, node string, ready time.Duration) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: rs.Namespace, UID: types.UID(name + "-uid"),
			CreationTimestamp: metav1.NewTime(start.Add(-2 * time.Hour)),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID,
				Controller: ptr.To(true)}}},
		Spec:   corev1.PodSpec{NodeName: node},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	c := corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse}
	if ready != 0 {
		c.Status, c.LastTransitionTime = corev1.ConditionTrue, metav1.NewTime(start.Add(-ready))
	}
	p.Status.Conditions = []corev1.PodCondition{c}
	return p
}

// firstDeleted returns the names of the pods the first scale-down deletes.
func firstDeleted(tl *simulate.Timeline) []string {
	for _, st := range tl.Steps {
		if len(st.Deleted) > 0 {
			var out []string
			for _, d := range st.Deleted {
				out = append(out, d.Pod)
			}
			slices.Sort(out)
			return out
		}
	}
	return nil
}

// TestRunGivenPodsRanked gives the old ReplicaSet pods that differ in what
// upstream's ranking reads: the rollout's first scale-down (two pods, as
// maxUnavailable 2 and maxSurge 0 allow) deletes the ones it ranks first,
// named as given.
func TestRunGivenPodsRanked(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		pods         func(rs *appsv1.ReplicaSet) []*corev1.Pod
		want         []string
	}{
		{"ready time", "pods ready for less time go first: the two ready 10s ago, not the two ready an hour ago",
			func(rs *appsv1.ReplicaSet) []*corev1.Pod {
				return []*corev1.Pod{inputPod(rs, "old-a", "n1", time.Hour), inputPod(rs, "recent-a", "n1", 10*time.Second),
					inputPod(rs, "old-b", "n1", time.Hour), inputPod(rs, "recent-b", "n1", 10*time.Second)}
			}, []string{"recent-a", "recent-b"}},
		{"crowded node", "pods on the node with more of the Deployment's pods go first: n1 holds three, n2 one",
			func(rs *appsv1.ReplicaSet) []*corev1.Pod {
				return []*corev1.Pod{inputPod(rs, "p1", "n2", time.Hour), inputPod(rs, "p2", "n1", time.Hour),
					inputPod(rs, "p3", "n1", time.Hour), inputPod(rs, "p4", "n1", time.Hour)}
			}, []string{"p2", "p3", "p4"}},
		{"not ready", "a Running pod not ready goes before ready ones, and is given as not ready",
			func(rs *appsv1.ReplicaSet) []*corev1.Pod {
				return []*corev1.Pod{inputPod(rs, "ready-a", "n1", time.Hour), inputPod(rs, "unready", "n1", 0),
					inputPod(rs, "ready-b", "n1", 10*time.Second), inputPod(rs, "ready-c", "n1", time.Hour)}
			}, []string{"ready-b", "unready"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := steady(t, deployment(4, fenceposts(intstr.FromInt32(0), intstr.FromInt32(2))))
			rs := s.ReplicaSets[0]
			s.Pods = map[types.UID][]*corev1.Pod{rs.UID: tc.pods(rs)}
			frozen := testutil.Freeze(t, s.Deployment, s.ReplicaSets, s.Pods)
			tl, err := simulate.Run(s, simulate.WithChanges(upgrade))
			if err != nil {
				t.Fatal(err)
			}
			frozen.Check(t)
			got := firstDeleted(tl)
			if tc.name == "crowded node" {
				// Two of the three on n1, whichever.
				if len(got) != 2 || !strings.HasPrefix(got[0], "p") || got[0] == "p1" || got[1] == "p1" {
					t.Errorf("%s: first scale-down deleted %v, want two of %v", tc.reason, got, tc.want)
				}
			} else if !slices.Equal(got, tc.want) {
				t.Errorf("%s: first scale-down deleted %v, want %v", tc.reason, got, tc.want)
			}
			if tl.Outcome != simulate.Complete || tl.Err() != nil {
				t.Errorf("outcome %s, err %v; want Complete", tl.Outcome, tl.Err())
			}
		})
	}
}

// TestRunGivenPodsStates gives a ReplicaSet of 5 pods in every state, plus
// pods the world must ignore, and reads the counts at step 0 and at the end.
func TestRunGivenPodsStates(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		opts         []simulate.Option
		wantReady    int32 // the ReplicaSet's ready pods at the end
	}{
		{"all become ready", "the not-ready Running and the Pending pod become ready after their delays, as the world's own", nil, 5},
		{"failing image", "the Pending pod's own image fails: it never becomes ready, the others do",
			[]simulate.Option{simulate.WithFailingImage("broken:1")}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := steady(t, deployment(5))
			rs := s.ReplicaSets[0]
			pending := inputPod(rs, "pending", "", 0)
			pending.Status = corev1.PodStatus{Phase: corev1.PodPending}
			pending.Spec.Containers = []corev1.Container{{Name: "web", Image: "broken:1"}}
			gone := inputPod(rs, "gone", "n1", time.Hour)
			gone.DeletionTimestamp = ptr.To(metav1.NewTime(start.Add(-time.Second)))
			done := inputPod(rs, "done", "n1", time.Hour)
			done.Status.Phase = corev1.PodSucceeded
			foreign := inputPod(rs, "foreign", "n1", time.Hour)
			foreign.OwnerReferences[0].UID = "other-uid"
			s.Pods = map[types.UID][]*corev1.Pod{
				rs.UID:       {inputPod(rs, "ready", "n1", time.Hour), inputPod(rs, "unready", "n2", 0), pending, gone, done, foreign, nil},
				"nobody-uid": {inputPod(rs, "stray", "n1", time.Hour)},
			}
			frozen := testutil.Freeze(t, s.Deployment, s.ReplicaSets, s.Pods)
			tl, err := simulate.Run(s, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			frozen.Check(t)
			if got, want := tl.Steps[0].Totals, (simulate.Counts{Pods: 3, Ready: 1, Available: 1, Terminating: 1}); got != want {
				t.Errorf("%s: step 0 counts %+v, want %+v (ready, unready and pending active; gone terminating; the rest ignored)", tc.reason, got, want)
			}
			final := tl.Final.ReplicaSets[0].Status
			if final.Replicas != 5 || final.ReadyReplicas != tc.wantReady || final.TerminatingReplicas == nil || *final.TerminatingReplicas != 0 {
				t.Errorf("%s: final status %+v, want 5 pods, %d ready, none terminating", tc.reason, final, tc.wantReady)
			}
			var names []string
			for _, p := range tl.Final.Pods[rs.UID] {
				names = append(names, p.Name+"@"+p.Spec.NodeName)
			}
			for _, want := range []string{"ready@n1", "unready@n2", "pending@n1"} {
				if !slices.Contains(names, want) {
					t.Errorf("%s: final pods %v lack %s (name and node kept; no node: the world places it on the input's nodes, fewest pods first, ties to the first name)", tc.reason, names, want)
				}
			}
			for _, n := range names {
				if strings.HasSuffix(n, "@node-1") {
					t.Errorf("%s: final pod %s is on node-1: without WithNodes the input's nodes n1 and n2 are the world's, and the pods it creates spread over them", tc.reason, n)
				}
			}
		})
	}
}

// TestRunGivenPodsStaggered gives pods not yet ready under
// WithReadyStagger: they queue for slots with the pods the world creates,
// so no step sees two pods become ready at once.
func TestRunGivenPodsStaggered(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		opts         []simulate.Option
	}{
		{"given only", "three Running pods not ready and two Pending ones take five slots", nil},
		{"with a rollout", "the new ReplicaSet's pods queue behind the given ones, and a scale-down's freed slots move the queue up",
			[]simulate.Option{simulate.WithChanges(upgrade)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := steady(t, deployment(5))
			rs := s.ReplicaSets[0]
			var pods []*corev1.Pod
			for _, n := range []string{"u1", "u2", "u3"} {
				pods = append(pods, inputPod(rs, n, "n1", 0))
			}
			for _, n := range []string{"p1", "p2"} {
				p := inputPod(rs, n, "", 0)
				p.Status = corev1.PodStatus{Phase: corev1.PodPending}
				pods = append(pods, p)
			}
			s.Pods = map[types.UID][]*corev1.Pod{rs.UID: pods}
			opts := append([]simulate.Option{simulate.WithReadyStagger(2 * time.Second), simulate.WithEveryTick()}, tc.opts...)
			tl, err := simulate.Run(s, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if tl.Outcome != simulate.Complete || tl.Err() != nil {
				t.Fatalf("%s: outcome %s, err %v; want Complete", tc.reason, tl.Outcome, tl.Err())
			}
			if tl.Steps[0].Totals.Ready != 0 {
				t.Errorf("%s: %d ready at step 0, want 0", tc.reason, tl.Steps[0].Totals.Ready)
			}
			ready := make(map[string]int32) // per ReplicaSet, the last step's
			for _, st := range tl.Steps[1:] {
				for _, r := range st.ReplicaSets {
					if r.Pods.Ready > ready[r.Name]+1 {
						t.Errorf("%s: step %d: %s ready %d→%d, more than one slot in a tick of 1s under a 2s stagger", tc.reason, st.Index, r.Name, ready[r.Name], r.Pods.Ready)
					}
					ready[r.Name] = r.Pods.Ready
				}
			}
		})
	}
}
