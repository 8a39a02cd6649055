package scaling_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/scaling"
)

// written is what one Scale call wrote: size and replica annotations by
// ReplicaSet name, in the order written.
type written struct {
	Name        string
	Replicas    int32
	Desired     string
	Max         string
	Resized     bool
	Explanation string
}

func scaleAll(t *testing.T, d *appsv1.Deployment, newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet, fixes scaling.Fixes) []written {
	t.Helper()
	frozen := testutil.Freeze(t, d, newRS, old)
	scales := scaling.Resizes(d, newRS, old, fixes)
	frozen.Check(t)
	var out []written
	for _, s := range scales {
		out = append(out, written{Name: s.To.Name, Replicas: *s.To.Spec.Replicas,
			Desired: s.To.Annotations[deployutil.DesiredReplicasAnnotation], Max: s.To.Annotations[deployutil.MaxReplicasAnnotation],
			Resized: s.Resized(), Explanation: s.Why.String()})
	}
	return out
}

// TestScaleStaleDesiredReplicas shows FixStaleDesiredReplicas
// (kubernetes/kubernetes#102551): with the fix off, upstream's scale()
// writes nothing when the only active ReplicaSet already has
// spec.replicas, whatever its annotations say; with it on, stale replica
// annotations are rewritten at the same size. Rows where the annotations
// are current or the size differs decide the same either way.
func TestScaleStaleDesiredReplicas(t *testing.T) {
	annotated := func(rs *appsv1.ReplicaSet, desired, max string) *appsv1.ReplicaSet {
		rs.Annotations = map[string]string{}
		if desired != "" {
			rs.Annotations[deployutil.DesiredReplicasAnnotation] = desired
		}
		if max != "" {
			rs.Annotations[deployutil.MaxReplicasAnnotation] = max
		}
		return rs
	}
	tests := []struct {
		name       string
		d          *appsv1.Deployment
		newRS      *appsv1.ReplicaSet
		old        []*appsv1.ReplicaSet
		off, on    []written
		reason     string
		whyHasWith string
	}{
		{name: "B.7: old ReplicaSet sized, desired stale",
			d: testutil.Deployment("foo", 3, testutil.Fenceposts(0, 1)), old: []*appsv1.ReplicaSet{annotated(replicaSet("foo-v1", 3, oldTime, 0, 0), "2", "2")},
			off:        nil,
			on:         []written{{Name: "foo-v1", Replicas: 3, Desired: "3", Max: "3"}},
			whyHasWith: `desired-replicas ("2") and max-replicas ("2") annotations are stale; they become 3 and 3`,
			reason:     "the stale desired-replicas bug (kubernetes/kubernetes#102551): upstream leaves desired-replicas 2 on the 3-replica ReplicaSet, so every sync is a scaling event; the fix writes 3 (max 3 + 0 surge) at the same size, without a resize"},
		{name: "new ReplicaSet sized, desired stale, surge 1",
			d: testutil.Deployment("foo", 3, testutil.Fenceposts(1, 1)), newRS: annotated(replicaSet("foo-v2", 3, newTime, 0, 0), "2", "3"),
			off:        nil,
			on:         []written{{Name: "foo-v2", Replicas: 3, Desired: "3", Max: "4"}},
			whyHasWith: "(replicas 3 + maxSurge 1)",
			reason:     "the new ReplicaSet as the only active one: its annotations become desired 3, max 3+1"},
		{name: "only max-replicas stale",
			d: testutil.Deployment("foo", 3, testutil.Fenceposts(1, 1)), newRS: annotated(replicaSet("foo-v2", 3, newTime, 0, 0), "3", "5"),
			off:    nil,
			on:     []written{{Name: "foo-v2", Replicas: 3, Desired: "3", Max: "4"}},
			reason: "upstream's ReplicasAnnotationsNeedUpdate looks at both annotations, so a stale max-replicas is rewritten too (no scaling event, but the paused path reaches it)"},
		{name: "annotations missing",
			d: testutil.Deployment("foo", 3, testutil.Fenceposts(0, 1)), newRS: annotated(replicaSet("foo-v2", 3, newTime, 0, 0), "", ""),
			off:    nil,
			on:     []written{{Name: "foo-v2", Replicas: 3, Desired: "3", Max: "3"}},
			reason: "a ReplicaSet without replica annotations needs them, as upstream's ReplicasAnnotationsNeedUpdate says"},
		{name: "nothing active, replicas 0, latest stale",
			d: testutil.Deployment("foo", 0, testutil.Fenceposts(1, 1)), newRS: annotated(replicaSet("foo-v2", 0, newTime, 0, 0), "2", "3"), old: []*appsv1.ReplicaSet{annotated(replicaSet("foo-v1", 0, oldTime, 0, 0), "2", "3")},
			off:    nil,
			on:     []written{{Name: "foo-v2", Replicas: 0, Desired: "0", Max: "1"}},
			reason: "ActiveOrLatest names the new ReplicaSet when nothing is active; it has spec.replicas 0, so only the fix writes its annotations (0 and 0+1); the old one is not touched"},
		{name: "annotations current",
			d: testutil.Deployment("foo", 3, testutil.Fenceposts(0, 1)), newRS: annotated(replicaSet("foo-v2", 3, newTime, 0, 0), "3", "3"),
			off: nil, on: nil,
			reason: "nothing is stale: no write with the fix either"},
		{name: "size differs",
			d: testutil.Deployment("foo", 3, testutil.Fenceposts(0, 1)), newRS: annotated(replicaSet("foo-v2", 2, newTime, 0, 0), "2", "2"),
			off:    []written{{Name: "foo-v2", Replicas: 3, Desired: "3", Max: "3", Resized: true}},
			on:     []written{{Name: "foo-v2", Replicas: 3, Desired: "3", Max: "3", Resized: true}},
			reason: "upstream resizes and refreshes the annotations itself; the fix changes nothing"},
		{name: "two active",
			d: testutil.Deployment("foo", 4, testutil.Fenceposts(0, 1)), newRS: annotated(replicaSet("foo-v2", 2, newTime, 0, 0), "4", "4"), old: []*appsv1.ReplicaSet{annotated(replicaSet("foo-v1", 2, oldTime, 0, 0), "2", "2")},
			off:    []written{{Name: "foo-v1", Replicas: 2, Desired: "4", Max: "4"}},
			on:     []written{{Name: "foo-v1", Replicas: 2, Desired: "4", Max: "4"}},
			reason: "proportional scaling already refreshes every active ReplicaSet whose annotations are stale (foo-v2's are current, so it is not written); the fix is not involved"},
	}
	ignoreWhy := cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Explanation" }, cmp.Ignore())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			off := scaleAll(t, tt.d, tt.newRS, tt.old, scaling.Fixes{})
			if diff := cmp.Diff(tt.off, off, ignoreWhy); diff != "" {
				t.Errorf("fix off (-want +got):\n%s\n(%s)", diff, tt.reason)
			}
			on := scaleAll(t, tt.d, tt.newRS, tt.old, scaling.Fixes{StaleDesiredReplicas: true})
			if diff := cmp.Diff(tt.on, on, ignoreWhy); diff != "" {
				t.Errorf("fix on (-want +got):\n%s\n(%s)", diff, tt.reason)
			}
			for _, w := range on {
				if !strings.Contains(w.Explanation, tt.whyHasWith) {
					t.Errorf("reason %q does not say %q", w.Explanation, tt.whyHasWith)
				}
			}
		})
	}
}

// TestProportionsUnhealthyFirst shows FixUnhealthyFirst
// (kubernetes/kubernetes#119536): with the fix off, upstream shares a
// scale-down in proportion to size; with it on, old ReplicaSets first give
// up their unavailable replicas (spec − available, not below 0), oldest
// first, and the rest is shared by upstream's rules over the reduced
// sizes. Each ReplicaSet's annotations say the old size (oldReplicas,
// oldSurge); sizes are listed as "name: spec/available". Every active
// ReplicaSet is written either way.
func TestProportionsUnhealthyFirst(t *testing.T) {
	type rs struct {
		name       string
		size, avai int32
		created    metav1.Time
	}
	tests := []struct {
		name                  string
		d                     *appsv1.Deployment
		oldReplicas, oldSurge int32
		newRS                 *rs
		old                   []rs // newest first, as Scale expects
		off, on               map[string]int32
		whyHas                map[string]string // with the fix, a part of each ReplicaSet's reason
		reason                string
	}{
		{name: "old unhealthy pays first: 10 -> 6",
			d: testutil.Deployment("foo", 6, testutil.Fenceposts(2, 0)), oldReplicas: 10, oldSurge: 2,
			newRS: &rs{"foo-v3", 4, 4, newTime}, old: []rs{{"foo-v2", 4, 0, oldTime}, {"foo-v1", 4, 4, olderTime}},
			off: map[string]int32{"foo-v1": 2, "foo-v2": 3, "foo-v3": 3},
			on:  map[string]int32{"foo-v1": 4, "foo-v2": 0, "foo-v3": 4},
			whyHas: map[string]string{"foo-v2": "had 4 unavailable (4 replicas, 0 available) and gave up 4",
				"foo-v3": "this is the new ReplicaSet", "foo-v1": "no unavailable replica (4 replicas, 4 available)"},
			reason: "12 → 8: upstream takes 1 from each (leftover 1 from the oldest), so 3 of the 8 available pods go; with the fix the 4 unavailable pods of foo-v2 cover the whole scale-down"},
		{name: "unhealthy cover part: 12 -> 6",
			d: testutil.Deployment("foo", 6, testutil.Fenceposts(2, 0)), oldReplicas: 12, oldSurge: 2,
			newRS: &rs{"foo-v3", 6, 6, newTime}, old: []rs{{"foo-v2", 2, 0, oldTime}, {"foo-v1", 6, 6, olderTime}},
			off:    map[string]int32{"foo-v1": 3, "foo-v2": 2, "foo-v3": 3},
			on:     map[string]int32{"foo-v1": 3, "foo-v2": 0, "foo-v3": 5},
			whyHas: map[string]string{"foo-v3": "give up 2 unavailable replicas first, oldest first, and the other 4 are shared"},
			reason: "14 → 8: upstream takes 3 + 3 from the two 6s (48/14 rounds to 3) and keeps both unavailable pods; with the fix foo-v2's 2 go first and the other 4 are shared over 6, 6, 0: foo-v1 gives 3, foo-v3 the 1 left"},
		{name: "oldest first: 10 -> 8",
			d: testutil.Deployment("foo", 8, testutil.Fenceposts(0, 1)), oldReplicas: 10,
			newRS: &rs{"foo-v3", 4, 4, newTime}, old: []rs{{"foo-v2", 3, 0, oldTime}, {"foo-v1", 3, 1, olderTime}},
			off:    map[string]int32{"foo-v1": 2, "foo-v2": 3, "foo-v3": 3},
			on:     map[string]int32{"foo-v1": 1, "foo-v2": 3, "foo-v3": 4},
			whyHas: map[string]string{"foo-v2": "has 3 unavailable, but older ReplicaSets already gave up all 2"},
			reason: "2 to remove: foo-v1 is older and has 2 unavailable, so it gives both; foo-v2's 3 are not needed; upstream takes 1 from foo-v3 and 1 from foo-v1"},
		{name: "available above spec counts as none: 10 -> 8",
			d: testutil.Deployment("foo", 8, testutil.Fenceposts(0, 1)), oldReplicas: 10,
			newRS: &rs{"foo-v3", 4, 4, newTime}, old: []rs{{"foo-v2", 2, 1, oldTime}, {"foo-v1", 4, 5, olderTime}},
			off:    map[string]int32{"foo-v1": 3, "foo-v2": 2, "foo-v3": 3},
			on:     map[string]int32{"foo-v1": 3, "foo-v2": 1, "foo-v3": 4},
			whyHas: map[string]string{"foo-v1": "no unavailable replica (4 replicas, 5 available)"},
			reason: "foo-v1 reports 5 available for 4 replicas (its status lags a scale-down): 4 − 5 is taken as 0; foo-v2 gives its 1, the other 1 comes from foo-v1 (round(4 × 8/10) − 4 = −1)"},
		{name: "only the new ReplicaSet unavailable: 8 -> 4",
			d: testutil.Deployment("foo", 4, testutil.Fenceposts(0, 1)), oldReplicas: 8,
			newRS: &rs{"foo-v2", 4, 0, newTime}, old: []rs{{"foo-v1", 4, 4, oldTime}},
			off:    map[string]int32{"foo-v1": 2, "foo-v2": 2},
			on:     map[string]int32{"foo-v1": 2, "foo-v2": 2},
			reason: "the new ReplicaSet's unavailable pods may just be starting (as OpenKruise argues): not taken first, so the fix changes nothing"},
		{name: "scale up: 4 -> 6",
			d: testutil.Deployment("foo", 6, testutil.Fenceposts(0, 1)), oldReplicas: 4,
			newRS: &rs{"foo-v2", 2, 2, newTime}, old: []rs{{"foo-v1", 2, 0, oldTime}},
			off:    map[string]int32{"foo-v1": 3, "foo-v2": 3},
			on:     map[string]int32{"foo-v1": 3, "foo-v2": 3},
			reason: "the fix is about scale-downs; scaling up is upstream's"},
		{name: "to zero: 6 -> 0",
			d: testutil.Deployment("foo", 0, testutil.Fenceposts(0, 1)), oldReplicas: 6,
			newRS: &rs{"foo-v2", 3, 3, newTime}, old: []rs{{"foo-v1", 3, 0, oldTime}},
			off:    map[string]int32{"foo-v1": 0, "foo-v2": 0},
			on:     map[string]int32{"foo-v1": 0, "foo-v2": 0},
			reason: "with replicas 0 everything goes; the fix is not applied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			build := func(s rs) *appsv1.ReplicaSet {
				r := replicaSet(s.name, s.size, s.created, tt.oldReplicas, tt.oldSurge)
				r.Status.AvailableReplicas = s.avai
				return r
			}
			var newRS *appsv1.ReplicaSet
			if tt.newRS != nil {
				newRS = build(*tt.newRS)
			}
			var old []*appsv1.ReplicaSet
			for _, s := range tt.old {
				old = append(old, build(s))
			}
			for _, c := range []struct {
				label string
				fixes scaling.Fixes
				want  map[string]int32
			}{{"fix off", scaling.Fixes{}, tt.off}, {"fix on", scaling.Fixes{UnhealthyFirst: true}, tt.on}} {
				got := map[string]int32{}
				for _, w := range scaleAll(t, tt.d, newRS, old, c.fixes) {
					if _, dup := got[w.Name]; dup {
						t.Errorf("%s: %s written twice", c.label, w.Name)
					}
					got[w.Name] = w.Replicas
					if want := itoa(*tt.d.Spec.Replicas); w.Desired != want {
						t.Errorf("%s: %s desired-replicas %q, want %q", c.label, w.Name, w.Desired, want)
					}
					if want := itoa(facts.MaxReplicas(tt.d)); w.Max != want {
						t.Errorf("%s: %s max-replicas %q, want %q", c.label, w.Name, w.Max, want)
					}
					if part, ok := tt.whyHas[w.Name]; ok && c.fixes.UnhealthyFirst && !strings.Contains(w.Explanation, part) {
						t.Errorf("%s: %s's reason %q does not say %q", c.label, w.Name, w.Explanation, part)
					}
				}
				if diff := cmp.Diff(c.want, got); diff != "" {
					t.Errorf("%s: sizes written (-want +got):\n%s\n(%s)", c.label, diff, tt.reason)
				}
			}
		})
	}
}
