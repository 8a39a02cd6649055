package e2e

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync/simulate"
)

// TestCompareDeletions holds TestE2E/deletions' judge to what each row
// says.
func TestCompareDeletions(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 1, 0, 0, 0, time.UTC)
	pod := func(name string, ready time.Time) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), CreationTimestamp: metav1.NewTime(t0.Add(-time.Hour))},
			Spec: corev1.PodSpec{NodeName: "n"},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue,
				LastTransitionTime: metav1.NewTime(ready)}}}}
	}
	pods := map[types.UID][]*corev1.Pod{"rs": {
		pod("a", t0.Add(-5*time.Second)), pod("b", t0.Add(-50*time.Second)), pod("c", t0.Add(-50*time.Second)), pod("d", t0.Add(-200*time.Second)),
	}}
	del := func(name string, tied int) simulate.Deletion { return simulate.Deletion{Pod: name, Tied: tied} }
	for _, tt := range []struct {
		name      string
		predicted []simulate.Deletion
		deleted   []string
		ok        bool
		reason    string
	}{
		{"exact", []simulate.Deletion{del("a", 0)}, []string{"a"}, true, "the untied pod named is the one deleted"},
		{"tie, other pod", []simulate.Deletion{del("a", 0), del("b", 1)}, []string{"a", "c"}, true, "b and c tie: the cluster may delete c for b"},
		{"tie, same pod", []simulate.Deletion{del("a", 0), del("b", 1)}, []string{"a", "b"}, true, "the simulator's own pod of the tie"},
		{"untied missed", []simulate.Deletion{del("a", 0)}, []string{"d"}, false, "a is not tied: the cluster must delete a"},
		{"tie, outside it", []simulate.Deletion{del("a", 0), del("b", 1)}, []string{"a", "d"}, false, "d does not tie with b"},
		{"count", []simulate.Deletion{del("a", 0)}, []string{"a", "d"}, false, "the cluster deleted more pods"},
	} {
		verdict, problems := compareDeletions(tt.predicted, tt.deleted, pods, t0)
		if ok := len(problems) == 0; ok != tt.ok {
			t.Errorf("%s: ok %v (%s; %s), want %v (%s)", tt.name, ok, verdict, strings.Join(problems, "; "), tt.ok, tt.reason)
		}
	}
}
