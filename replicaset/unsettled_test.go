package replicaset_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync/replicaset"
)

var unsettledNow = time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)

// rankedPod is a ready (or, readyAgo < 0, not ready) Running pod created
// createdAgo before unsettledNow.
func rankedPod(name string, readyAgo, createdAgo time.Duration) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name), CreationTimestamp: metav1.NewTime(unsettledNow.Add(-createdAgo))},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
	if readyAgo >= 0 {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(unsettledNow.Add(-readyAgo))}}
	}
	return p
}

// TestUnsettled: rows whose counts follow from DeletionOrder's rules by
// hand; each names the pair that makes a count.
func TestUnsettled(t *testing.T) {
	// 2^33 ns is 8.59 s, 2^34 ns 17.18 s: ages of 9 to 17 s share bucket 33.
	tests := []struct {
		name string
		pods []*corev1.Pod
		n    int
		want map[string]int // deleted pod → count
	}{
		{
			name: "buckets apart: each deleted pod before each kept one",
			pods: []*corev1.Pod{rankedPod("a", 3*time.Second, time.Minute), rankedPod("b", 12*time.Second, time.Minute), rankedPod("c", 40*time.Second, time.Minute)},
			n:    1, want: map[string]int{"a": 0},
		},
		{
			name: "one bucket, ready times differ: the lower UID goes, for any order",
			pods: []*corev1.Pod{rankedPod("b", 10*time.Second, time.Minute), rankedPod("a", 12*time.Second, time.Minute), rankedPod("c", 14*time.Second, time.Minute)},
			n:    1, want: map[string]int{"a": 0},
		},
		{
			name: "a circle: a before b (UID), b before c (UID), c before a (same ready time, newer creation)",
			// a and c ready at the same instant, c created in a younger
			// bucket; b ready at another time of the bucket.
			pods: []*corev1.Pod{rankedPod("a", 10*time.Second, 40*time.Second), rankedPod("b", 12*time.Second, time.Minute), rankedPod("c", 10*time.Second, 12*time.Second)},
			n:    1,
			// Whichever goes first, one kept pod is not after it.
			want: nil,
		},
		{
			name: "a tie is not counted: same ready and creation instants",
			pods: []*corev1.Pod{rankedPod("a", 10*time.Second, time.Minute), rankedPod("b", 10*time.Second, time.Minute), rankedPod("c", 30*time.Second, time.Minute)},
			n:    1, want: nil,
		},
		{
			name: "not ready pods of one creation bucket go by UID, not ready before ready",
			pods: []*corev1.Pod{rankedPod("r", 10*time.Second, time.Minute), rankedPod("y", -1, 10*time.Second), rankedPod("x", -1, 12*time.Second)},
			n:    2, want: map[string]int{"x": 0, "y": 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			order, ranks := replicaset.DeletionOrder(tt.pods, nil, unsettledNow)
			got := replicaset.Unsettled(ranks, tt.n, unsettledNow)
			require.Len(t, got, tt.n)
			want := bruteUnsettled(ranks, tt.n, unsettledNow)
			assert.Equal(t, want, got, "against the pairwise count")
			if tt.want != nil {
				for i, p := range order[:tt.n] {
					assert.Equal(t, tt.want[p.Name], got[i], "pod %s", p.Name)
				}
			}
		})
	}
	// The circle's and the tie's counts, by hand.
	_, ranks := replicaset.DeletionOrder(tests[2].pods, nil, unsettledNow)
	assert.Equal(t, []int{1}, replicaset.Unsettled(ranks, 1, unsettledNow), "the circle: one kept pod goes before the deleted one")
	_, ranks = replicaset.DeletionOrder(tests[3].pods, nil, unsettledNow)
	assert.Equal(t, []int{0}, replicaset.Unsettled(ranks, 1, unsettledNow), "the tie: counted by no one here (simulate's Tied counts it)")
}

// bruteUnsettled counts pair by pair with the order's own comparisons:
// kept pods not after the deleted one, ties (equal in every rule but the
// UID) aside. The comparison is read from DeletionOrder itself: q goes
// before p when DeletionOrder of the two, in either input order, puts q
// first (of two pods, the sort compares them once, so the input order
// does not matter unless they compare neither way).
func bruteUnsettled(ranks []replicaset.Rank, n int, now time.Time) []int {
	out := make([]int, n)
	for i := range n {
		for j := n; j < len(ranks); j++ {
			p, q := &ranks[i], &ranks[j]
			if sameButUID(p, q) {
				continue
			}
			if !before(p, q, now) {
				out[i]++
			}
		}
	}
	return out
}

// before reports whether DeletionOrder puts p's pod before q's whichever
// of the two is listed first.
func before(p, q *replicaset.Rank, now time.Time) bool {
	pp, qp := podOfRank(p, "p"), podOfRank(q, "q")
	onNode := map[string]int{}
	// OnNode is per node: give each pod's node its count (pods on one node
	// share it, as in the ranks).
	onNode[p.Node], onNode[q.Node] = p.OnNode, q.OnNode
	if p.Node == q.Node && p.OnNode != q.OnNode {
		panic("ranks on one node with different counts")
	}
	o1, _ := replicaset.DeletionOrder([]*corev1.Pod{pp, qp}, onNode, now)
	o2, _ := replicaset.DeletionOrder([]*corev1.Pod{qp, pp}, onNode, now)
	return o1[0] == pp && o2[0] == pp
}

func podOfRank(r *replicaset.Rank, name string) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: r.UID, CreationTimestamp: metav1.NewTime(r.Created)},
		Spec:       corev1.PodSpec{NodeName: r.Node},
		Status: corev1.PodStatus{Phase: r.Phase,
			ContainerStatuses: []corev1.ContainerStatus{{Name: "c", RestartCount: int32(r.Restarts)}}},
	}
	if r.Cost != 0 {
		p.Annotations = map[string]string{replicaset.DeletionCostAnnotation: fmt.Sprint(r.Cost)}
	}
	if r.Ready {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(r.ReadySince)}}
	}
	return p
}

func sameButUID(p, q *replicaset.Rank) bool {
	return (p.Node == "") == (q.Node == "") && phaseRank(p.Phase) == phaseRank(q.Phase) && p.Ready == q.Ready &&
		p.Cost == q.Cost && p.OnNode == q.OnNode && (!p.Ready || p.ReadySince.Equal(q.ReadySince)) &&
		p.Restarts == q.Restarts && p.SidecarRestarts == q.SidecarRestarts && p.Created.Equal(q.Created)
}

func phaseRank(p corev1.PodPhase) int {
	switch p {
	case corev1.PodUnknown:
		return 1
	case corev1.PodRunning:
		return 2
	}
	return 0
}

// randomRankedPods draws pods from the space a cluster holds, crowded into
// few values so that buckets, equal instants, ties and circles are common:
// nodes (or none), phases, readiness, deletion costs, restarts, ready and
// creation times a few seconds apart across bucket edges (and zero ones),
// UIDs random, some empty.
func randomRankedPods(r *rand.Rand, n int) ([]*corev1.Pod, map[string]int) {
	nodes := []string{"node-1", "node-1", "node-1", "node-2", ""}
	onNode := map[string]int{"": r.IntN(3), "node-1": r.IntN(3), "node-2": r.IntN(3)}
	phases := []corev1.PodPhase{corev1.PodRunning, corev1.PodRunning, corev1.PodRunning, corev1.PodRunning, corev1.PodPending, corev1.PodUnknown}
	// Mostly spread seconds ago from base (9 s: bucket 33, 2^33 to 2^34
	// ns, is 8.6 to 17.2 s), now and then 5 to 40 s ago (across the
	// bucket's edges) or zero.
	at := func(base, spread int) metav1.Time {
		switch r.IntN(20) {
		case 0:
			return metav1.Time{}
		case 1, 2, 3:
			return metav1.NewTime(unsettledNow.Add(-time.Duration(5+r.IntN(36)) * time.Second))
		}
		return metav1.NewTime(unsettledNow.Add(-time.Duration(base+r.IntN(spread)) * time.Second))
	}
	pods := make([]*corev1.Pod, n)
	for i := range pods {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", i), UID: types.UID(fmt.Sprintf("%08x", r.Uint32())), CreationTimestamp: at(9, 20)},
			Spec:       corev1.PodSpec{NodeName: nodes[r.IntN(len(nodes))]},
			Status: corev1.PodStatus{Phase: phases[r.IntN(len(phases))],
				ContainerStatuses: []corev1.ContainerStatus{{Name: "c", RestartCount: int32(r.IntN(4) / 3)}}},
		}
		if r.IntN(30) == 0 {
			p.UID = ""
		}
		if r.IntN(10) == 0 {
			p.Annotations = map[string]string{replicaset.DeletionCostAnnotation: fmt.Sprint(r.IntN(2))}
		}
		if r.IntN(6) != 0 {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: at(9, 4)}}
		}
		pods[i] = p
	}
	return pods, onNode
}

// TestUnsettledRandom: on random states (and a zero clock now and then)
// Unsettled is the pairwise count; and where it is 0 for every deleted
// pod and no deleted pod ties with a kept one, DeletionOrder deletes the
// same pods for every order of its input tried — the claim of its doc.
func TestUnsettledRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 1))
	settled, unsettled, moved := 0, 0, 0
	for round := range 2000 {
		pods, onNode := randomRankedPods(r, 3+r.IntN(22))
		now := unsettledNow
		if round%10 == 9 {
			now = time.Time{}
		}
		order, ranks := replicaset.DeletionOrder(pods, onNode, now)
		n := 1 + r.IntN(len(pods)-1)
		got := replicaset.Unsettled(ranks, n, now)
		require.Equal(t, bruteUnsettled(ranks, n, now), got, "round %d: %d of %d pods", round, n, len(pods))
		tied := false
		for i := range n {
			for j := n; j < len(ranks); j++ {
				tied = tied || sameButUID(&ranks[i], &ranks[j])
			}
		}
		want := sortedNames(order[:n])
		anyMoved := false
		for range 20 {
			shuffled := slices.Clone(pods)
			r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			o, _ := replicaset.DeletionOrder(shuffled, onNode, now)
			if !slices.Equal(sortedNames(o[:n]), want) {
				anyMoved = true
			}
		}
		if slices.Max(got) == 0 && !tied {
			settled++
			require.False(t, anyMoved, "round %d: settled, yet another input order deleted other pods than %v", round, want)
			continue
		}
		unsettled++
		if anyMoved {
			moved++
		}
	}
	t.Logf("%d settled cuts, each the same for 20 input orders; %d unsettled or tied, %d of them moved by one of 20 orders", settled, unsettled, moved)
	// The draw must exercise both sides, and the unsettled side must be
	// real: some input order does delete other pods there.
	require.Greater(t, settled, 100)
	require.Greater(t, moved, 50)
}

func sortedNames(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	slices.Sort(out)
	return out
}
