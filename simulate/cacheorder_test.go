package simulate_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync/replicaset"
	"github.com/deploysync/deploysync/simulate"
)

// TestCacheOrder: with WithCacheOrder the pods a scale-down deletes are
// upstream's first for the list in the seed's order: the same pods for
// every seed where the ranking settles the cut, other pods for some seeds
// where it does not (a circle, a tie). Each row scales three pods to two.
func TestCacheOrder(t *testing.T) {
	const seeds = 32
	for _, tt := range []struct {
		name          string
		ready, create [3]time.Duration // ago at the scale-down, per pod
		// wantPods is how many different pods the seeds delete.
		wantPods int
		reason   string
	}{
		{"a circle", [3]time.Duration{10 * time.Second, 12 * time.Second, 10 * time.Second}, [3]time.Duration{40 * time.Second, time.Minute, 12 * time.Second}, 3,
			"a before b and b before c by UID, c before a by creation: each can come out first, as the list has them"},
		{"a tie", [3]time.Duration{3 * time.Second, 12 * time.Second, 12 * time.Second}, [3]time.Duration{time.Minute, 40 * time.Second, 40 * time.Second}, 1,
			"a was ready most recently and goes first in every comparison; b and c tie behind it, and a cut of one does not reach them"},
		{"a tie at the cut", [3]time.Duration{12 * time.Second, 12 * time.Second, 40 * time.Second}, [3]time.Duration{time.Minute, time.Minute, time.Minute}, 2,
			"a and b tie in every rule ahead of c: either goes, as the list has them"},
		{"buckets apart", [3]time.Duration{3 * time.Second, 12 * time.Second, 40 * time.Second}, [3]time.Duration{time.Minute, time.Minute, time.Minute}, 1,
			"the most recently ready pod goes first in every comparison"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := threePods(t, tt.ready, tt.create)
			deleted := map[string]bool{}
			for seed := uint64(0); seed < seeds; seed++ {
				var listed, chosen []*corev1.Pod
				var onNode map[string]int
				var at time.Time
				seen := simulate.WithScaleDownSeen(func(pods, del []*corev1.Pod, n map[string]int, clock time.Time) {
					listed, chosen, onNode, at = pods, del, n, clock
				})
				tl, err := simulate.Run(s, simulate.WithChanges(simulate.SetReplicas(time.Second, 2)), simulate.WithCacheOrder(seed), seen)
				if err != nil {
					t.Fatal(err)
				}
				var got []simulate.Deletion
				for _, st := range tl.Steps {
					got = append(got, st.Deleted...)
				}
				if len(got) != 1 || len(chosen) != 1 {
					t.Fatalf("seed %d: %d deletions (%d seen), want 1", seed, len(got), len(chosen))
				}
				// The deletion is the ranking's first of the list as the
				// seed ordered it, and the world deleted that very pod.
				order, _ := replicaset.DeletionOrder(listed, onNode, at)
				if order[0].Name != got[0].Pod || chosen[0].Name != got[0].Pod {
					t.Errorf("seed %d: deleted %s; the ranking of the listed pods puts %s first", seed, got[0].Pod, order[0].Name)
				}
				deleted[got[0].Pod] = true
			}
			if len(deleted) != tt.wantPods {
				t.Errorf("%d seeds deleted %d different pods (%v), want %d: %s", seeds, len(deleted), deleted, tt.wantPods, tt.reason)
			}
		})
	}
}

// TestCacheOrderListsEveryPod: the seed reorders the list the ranking
// sees, not its contents: a rollout's first scale-down sees the default's
// pods in another order, and every scale-down as many pods as the
// default's (the steady pods tie, so later lists hold other pods).
func TestCacheOrderListsEveryPod(t *testing.T) {
	s := steady(t, deployment(10))
	names := func(ps []*corev1.Pod) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = p.Name
		}
		return out
	}
	opts := []simulate.Option{simulate.WithChanges(simulate.SetImage(0, "web", "nginx:1.28")), simulate.WithReadyStagger(400 * time.Millisecond)}
	lists := func(extra ...simulate.Option) [][]string {
		var out [][]string
		seen := simulate.WithScaleDownSeen(func(pods, _ []*corev1.Pod, _ map[string]int, _ time.Time) {
			out = append(out, names(pods))
		})
		if _, err := simulate.Run(s, append(slices.Clone(opts), append(extra, seen)...)...); err != nil {
			t.Fatal(err)
		}
		return out
	}
	plain, shuffled := lists(), lists(simulate.WithCacheOrder(7))
	if len(plain) < 2 || len(plain) != len(shuffled) {
		t.Fatalf("%d scale-downs by default, %d with a cache order; want the same, at least 2", len(plain), len(shuffled))
	}
	if slices.Equal(plain[0], shuffled[0]) || !slices.Equal(sorted(plain[0]), sorted(shuffled[0])) {
		t.Errorf("first scale-down: listed %v with a cache order, %v by default; want the same pods in another order", shuffled[0], plain[0])
	}
	for i := range plain {
		if len(plain[i]) != len(shuffled[i]) {
			t.Errorf("scale-down %d: %d pods listed with a cache order, %d by default", i, len(shuffled[i]), len(plain[i]))
		}
	}
}

// TestCacheOrderRepeats: a seed gives one timeline, run after run, and on
// a 10-replica rollout from steady pods, whose deletions are all exact
// ties (Tied), every seed deletes other pods of the same ranks: the
// timelines match the default's once the pods' names are blanked.
func TestCacheOrderRepeats(t *testing.T) {
	s := steady(t, deployment(10))
	opts := []simulate.Option{simulate.WithChanges(simulate.SetImage(0, "web", "nginx:1.28")), simulate.WithReadyStagger(400 * time.Millisecond)}
	run := func(extra ...simulate.Option) *simulate.Timeline {
		tl, err := simulate.Run(s, append(slices.Clone(opts), extra...)...)
		if err != nil {
			t.Fatal(err)
		}
		return tl
	}
	a, b := run(simulate.WithCacheOrder(3)), run(simulate.WithCacheOrder(3))
	if diff := cmp.Diff(a.Transcript(), b.Transcript()); diff != "" {
		t.Errorf("seed 3 twice gave two timelines (-first +second):\n%s", diff)
	}
	def := run()
	for seed := uint64(0); seed < 8; seed++ {
		tl := run(simulate.WithCacheOrder(seed))
		if diff := cmp.Diff(steps(def), steps(tl)); diff != "" {
			t.Errorf("seed %d: the timeline differs from the default's beyond the pods' names (-default +seed):\n%s", seed, diff)
		}
	}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
