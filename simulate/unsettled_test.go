package simulate_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/simulate"
)

// TestScaleDownUnsettled: given pods whose ranks go round in a circle
// (replicaset.Unsettled's doc), a scale-down by one marks its deletion with
// the kept pods not ranked after it, in the timeline and the transcript;
// the same pods with ready times buckets apart are settled and unmarked.
func TestScaleDownUnsettled(t *testing.T) {
	for _, tt := range []struct {
		name   string
		ready  [3]time.Duration // ready ago at the scale-down, per pod
		create [3]time.Duration
		want   int
		reason string
	}{
		{"a circle", [3]time.Duration{10 * time.Second, 12 * time.Second, 10 * time.Second}, [3]time.Duration{40 * time.Second, time.Minute, 12 * time.Second}, 1,
			"a before b and b before c by UID, c before a by creation: one kept pod is ranked before the one deleted"},
		{"buckets apart", [3]time.Duration{3 * time.Second, 12 * time.Second, 40 * time.Second}, [3]time.Duration{time.Minute, time.Minute, time.Minute}, 0,
			"the youngest ready pod goes first in every comparison"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := threePods(t, tt.ready, tt.create)
			tl, err := simulate.Run(s, simulate.WithChanges(simulate.SetReplicas(time.Second, 2)))
			if err != nil {
				t.Fatal(err)
			}
			var got []simulate.Deletion
			for _, st := range tl.Steps {
				got = append(got, st.Deleted...)
			}
			if len(got) != 1 {
				t.Fatalf("%d deletions, want 1", len(got))
			}
			if got[0].Unsettled != tt.want || got[0].Tied != 0 {
				t.Errorf("deleted %s: Unsettled %d, Tied %d; want %d, 0 (%s)", got[0].Pod, got[0].Unsettled, got[0].Tied, tt.want, tt.reason)
			}
			text := tl.Transcript()
			marked := strings.Contains(text, "kept not ranked after it") && strings.Contains(text, "pods upstream's comparison does not order")
			if marked != (tt.want > 0) {
				t.Errorf("transcript marks the deletion unsettled: %v, want %v:\n%s", marked, tt.want > 0, text)
			}
		})
	}
}

// threePods is a steady Deployment of 3 pods a, b and c (names and UIDs),
// each ready and created the given durations before a scale-down 1 s
// after the start (the clock of a SetReplicas at 1s).
func threePods(t *testing.T, ready, create [3]time.Duration) deploysync.State {
	t.Helper()
	s := withPods(t, steady(t, deployment(3)))
	now := s.Now.Add(time.Second)
	if len(s.Pods) != 1 {
		t.Fatalf("pods of %d ReplicaSets, want 1", len(s.Pods))
	}
	for _, ps := range s.Pods {
		for i, p := range ps {
			name := string(rune('a' + i))
			p.Name, p.UID = name, types.UID(name)
			p.CreationTimestamp = metav1.NewTime(now.Add(-create[i]))
			for j := range p.Status.Conditions {
				p.Status.Conditions[j].LastTransitionTime = metav1.NewTime(now.Add(-ready[i]))
			}
		}
	}
	return s
}
