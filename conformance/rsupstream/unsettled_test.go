package rsupstream

import (
	"math/rand/v2"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/controller"

	"github.com/deploysync/deploysync/replicaset"
)

// TestUnsettledAgainstUpstream judges replicaset.Unsettled by upstream's
// own comparison (pkg/controller's ActivePodsWithRanks.Less) on the pods
// of random states (the states TestRandomStates draws, every second one
// with its times crowded into one logarithmic bucket): for a cut of
// DeletionOrder's order at a random n, each deleted pod's count must be
// the number of kept pods upstream's Less puts before it. With distinct
// UIDs a pair upstream orders neither way is equal in every rule but the
// UID, which Unsettled leaves out as a tie, so the two counts are the same
// thing.
func TestUnsettledAgainstUpstream(t *testing.T) {
	n := states()
	cuts, unsettled, skipped := 0, 0, 0
	for seed := 1; seed <= n; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 27))
		in := randomInput(r)
		pods := in.Pods
		if seed%2 == 0 {
			pods = crowded(r, pods, in.Now)
		}
		if len(pods) < 2 || !distinctUIDs(pods) {
			skipped++
			continue
		}
		onNode := map[string]int{}
		for _, p := range pods {
			onNode[p.Spec.NodeName]++
		}
		order, ranks := replicaset.DeletionOrder(pods, onNode, in.Now)
		cut := 1 + r.IntN(len(order)-1)
		got := replicaset.Unsettled(ranks, cut, in.Now)
		cuts++
		for i := range cut {
			want := 0
			for j := cut; j < len(order); j++ {
				pair := controller.ActivePodsWithRanks{Pods: []*corev1.Pod{order[i], order[j]},
					Rank: []int{onNode[order[i].Spec.NodeName], onNode[order[j].Spec.NodeName]}, Now: metav1.NewTime(in.Now)}
				if pair.Less(1, 0) {
					want++
				}
			}
			if got[i] != want {
				t.Fatalf("seed %d: %d of %d pods deleted: Unsettled gives %s %d, upstream's Less puts %d kept pods before it",
					seed, cut, len(order), order[i].Name, got[i], want)
			}
			if want > 0 {
				unsettled++
			}
		}
	}
	t.Logf("%d cuts judged (%d states without two pods of distinct UIDs skipped); %d deleted pods with kept pods upstream puts before them", cuts, skipped, unsettled)
	if n >= 2000 && unsettled == 0 {
		t.Error("no cut had a deleted pod upstream puts a kept pod before: the draw lost the case")
	}
}

func distinctUIDs(pods []*corev1.Pod) bool {
	seen := map[string]bool{}
	for _, p := range pods {
		if seen[string(p.UID)] {
			return false
		}
		seen[string(p.UID)] = true
	}
	return true
}

// crowded copies pods with their non-zero ready and creation times moved
// into a few seconds of bucket 33 (2^33 ns is 8.6 s, 2^34 ns 17.2 s) and
// just past it, where upstream's comparison goes by UID among different
// times and by its later rules among equal ones: the circles of rules 6
// and 8.
func crowded(r *rand.Rand, pods []*corev1.Pod, now time.Time) []*corev1.Pod {
	out := make([]*corev1.Pod, len(pods))
	for i, p := range pods {
		q := p.DeepCopy()
		if !q.CreationTimestamp.IsZero() {
			q.CreationTimestamp = metav1.NewTime(now.Add(-time.Duration(9+r.IntN(20)) * time.Second))
		}
		for j := range q.Status.Conditions {
			if c := &q.Status.Conditions[j]; c.Type == corev1.PodReady && !c.LastTransitionTime.IsZero() {
				c.LastTransitionTime = metav1.NewTime(now.Add(-time.Duration(9+r.IntN(4)) * time.Second))
			}
		}
		out[i] = q
	}
	return out
}
