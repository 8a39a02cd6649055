package simulate

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/replicaset"
)

// TestTieKeyIsUpstreamsTie draws pairs of pods from small domains (so that
// most rules tie) and holds the tie key to upstream's order as
// replicaset.DeletionOrder sorts it: two pods tie, each staying first when
// given first, exactly when their keys are equal.
func TestTieKeyIsUpstreamsTie(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 2))
	now := time.Date(2026, 12, 7, 1, 0, 0, 0, time.UTC)
	pick := func(n int) int { return rng.IntN(n) }
	times := []time.Time{{}, now.Add(-time.Second), now.Add(-time.Second + time.Nanosecond), now.Add(-1500 * time.Millisecond), now.Add(-20 * time.Second), now.Add(time.Second)}
	pod := func(i int) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", i), UID: types.UID(fmt.Sprintf("uid-%d-%d", i, pick(1000))),
			CreationTimestamp: metav1.NewTime(times[pick(len(times))])}}
		p.Spec.NodeName = []string{"", "n1", "n2"}[pick(3)]
		p.Status.Phase = []corev1.PodPhase{"", corev1.PodPending, corev1.PodRunning, corev1.PodUnknown, corev1.PodFailed}[pick(5)]
		if pick(3) > 0 {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady,
				Status:             []corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionFalse}[pick(2)],
				LastTransitionTime: metav1.NewTime(times[pick(len(times))])}}
		}
		if c := pick(4); c > 0 {
			p.Annotations = map[string]string{replicaset.DeletionCostAnnotation: []string{"", "0", "1", "-1"}[c]}
		}
		p.Spec.InitContainers = []corev1.Container{{Name: "side", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "web", RestartCount: int32(pick(2))}}
		p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "side", RestartCount: int32(pick(2))}}
		return p
	}
	ties, pairs := 0, 20000
	for i := range pairs {
		a, b := pod(2*i), pod(2*i+1)
		if pick(2) == 0 {
			// A near twin: a's copy with its own UID and one thing of
			// another draw's, which may or may not tell the two apart.
			other := b
			b = a.DeepCopy()
			b.Name, b.UID = other.Name, other.UID
			switch pick(7) {
			case 0:
				b.Spec.NodeName = other.Spec.NodeName
			case 1:
				b.Status.Phase = other.Status.Phase
			case 2:
				b.Status.Conditions = other.Status.Conditions
			case 3:
				b.Annotations = other.Annotations
			case 4:
				b.Status.ContainerStatuses = other.Status.ContainerStatuses
			case 5:
				b.Status.InitContainerStatuses = other.Status.InitContainerStatuses
			case 6:
				b.CreationTimestamp = other.CreationTimestamp
			}
		}
		onNode := map[string]int{"": pick(3), "n1": pick(3), "n2": pick(3)}
		at := now.Add(time.Duration(pick(3)) * time.Second)
		ab, ranks := replicaset.DeletionOrder([]*corev1.Pod{a, b}, onNode, at)
		ba, _ := replicaset.DeletionOrder([]*corev1.Pod{b, a}, onNode, at)
		tie := ab[0] == a && ba[0] == b
		same := keyOf(&ranks[0]) == keyOf(&ranks[1])
		if tie != same {
			t.Fatalf("pair %d at %v: upstream's order ties them: %v, keys equal: %v\n%+v\n%+v", i, at, tie, same, ranks[0], ranks[1])
		}
		if tie {
			ties++
		}
	}
	// The draw must hold both kinds: ties and pairs the order tells apart.
	if ties < pairs/10 || ties > pairs/2 {
		t.Errorf("%d ties in %d pairs: the domains do not exercise both sides", ties, pairs)
	}
	t.Logf("%d ties in %d pairs", ties, pairs)
}

// TestTiedWithKept: each deleted pod counts the kept pods tied with it.
func TestTiedWithKept(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	r := func(created time.Time, uid string) replicaset.Rank {
		return replicaset.Rank{Node: "n", Phase: corev1.PodRunning, Ready: true, ReadySince: t0, Created: created, UID: types.UID(uid)}
	}
	a, b := t0.Add(-time.Second), t0.Add(-2*time.Second)
	for _, tt := range []struct {
		name   string
		ranks  []replicaset.Rank
		n      int
		want   []int
		reason string
	}{
		{"all go", []replicaset.Rank{r(a, "1"), r(a, "2")}, 2, []int{0, 0}, "nothing kept: nothing to tie with"},
		{"one of two tied", []replicaset.Rank{r(a, "1"), r(a, "2")}, 1, []int{1}, "the kept pod has the same times"},
		{"two classes", []replicaset.Rank{r(a, "1"), r(b, "2"), r(a, "3"), r(a, "4"), r(b, "5")}, 2, []int{2, 1}, "each counts its own class among the kept"},
		{"no tie", []replicaset.Rank{r(a, "1"), r(b, "2")}, 1, []int{0}, "a different creation time is ordered (by bucket or UID)"},
	} {
		if got := tiedWithKept(tt.ranks, tt.n); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: tiedWithKept = %v, want %v (%s)", tt.name, got, tt.want, tt.reason)
		}
	}
}
