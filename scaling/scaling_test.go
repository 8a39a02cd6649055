package scaling_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/scaling"
)

type rsSpec struct {
	name    string
	size    int32
	created metav1.Time
}

// TestScale restates upstream's TestScale (17 rows): a Deployment resized
// from oldReplicas (with oldSurge) to its spec, its ReplicaSets annotated
// for the old size. want holds every ReplicaSet's size afterwards;
// unwritten lists those that must not be written at all (upstream's
// wasntUpdated). Old ReplicaSets are given newest first, as upstream sorts
// them before scaling.
func TestResizes(t *testing.T) {
	anotherLabel := func(d *appsv1.Deployment) *appsv1.Deployment {
		d.Spec.Template.Labels = map[string]string{"foo": "bar", "another": "label"}
		return d
	}
	tests := []struct {
		name                  string
		d                     *appsv1.Deployment
		oldReplicas, oldSurge int32
		newRS                 *rsSpec
		old                   []rsSpec
		desired               map[string]int32 // desired-replicas annotations that differ from oldReplicas
		available             map[string]int32
		want                  map[string]int32
		unwritten             []string
		reason                string
	}{
		{name: "normal scaling event: 10 -> 12", d: testutil.Deployment("foo", 12, testutil.Fenceposts(0, 0)), oldReplicas: 10,
			newRS: &rsSpec{"foo-v1", 10, newTime}, want: map[string]int32{"foo-v1": 12},
			reason: "upstream: the only active ReplicaSet takes the new size"},
		{name: "normal scaling event: 10 -> 5", d: testutil.Deployment("foo", 5, testutil.Fenceposts(0, 0)), oldReplicas: 10,
			newRS: &rsSpec{"foo-v1", 10, newTime}, want: map[string]int32{"foo-v1": 5},
			reason: "upstream: and shrinks with it"},
		{name: "proportional scaling: 5 -> 10", d: testutil.Deployment("foo", 10, testutil.Fenceposts(0, 0)), oldReplicas: 5,
			newRS: &rsSpec{"foo-v2", 2, newTime}, old: []rsSpec{{"foo-v1", 3, oldTime}},
			want:   map[string]int32{"foo-v2": 4, "foo-v1": 6},
			reason: "upstream: both double"},
		{name: "proportional scaling: 5 -> 3", d: testutil.Deployment("foo", 3, testutil.Fenceposts(0, 0)), oldReplicas: 5,
			newRS: &rsSpec{"foo-v2", 2, newTime}, old: []rsSpec{{"foo-v1", 3, oldTime}},
			want:   map[string]int32{"foo-v2": 1, "foo-v1": 2},
			reason: "upstream: each loses one"},
		{name: "proportional scaling: 9 -> 4", d: testutil.Deployment("foo", 4, testutil.Fenceposts(0, 0)), oldReplicas: 9,
			newRS: &rsSpec{"foo-v2", 8, newTime}, old: []rsSpec{{"foo-v1", 1, oldTime}},
			want:   map[string]int32{"foo-v2": 4, "foo-v1": 0},
			reason: "upstream: the small old ReplicaSet goes to 0"},
		{name: "proportional scaling: 7 -> 10", d: testutil.Deployment("foo", 10, testutil.Fenceposts(0, 0)), oldReplicas: 7,
			newRS: &rsSpec{"foo-v3", 2, newTime}, old: []rsSpec{{"foo-v2", 3, oldTime}, {"foo-v1", 2, olderTime}},
			want:   map[string]int32{"foo-v3": 3, "foo-v2": 4, "foo-v1": 3},
			reason: "upstream: three ReplicaSets share 3 more"},
		{name: "proportional scaling: 13 -> 8", d: testutil.Deployment("foo", 8, testutil.Fenceposts(0, 0)), oldReplicas: 13,
			newRS: &rsSpec{"foo-v3", 2, newTime}, old: []rsSpec{{"foo-v2", 8, oldTime}, {"foo-v1", 3, olderTime}},
			want:   map[string]int32{"foo-v3": 1, "foo-v2": 5, "foo-v1": 2},
			reason: "upstream: three ReplicaSets share 5 fewer"},
		{name: "leftover distribution: 3 -> 4", d: testutil.Deployment("foo", 4, testutil.Fenceposts(0, 0)), oldReplicas: 3,
			newRS: &rsSpec{"foo-v3", 1, newTime}, old: []rsSpec{{"foo-v2", 1, oldTime}, {"foo-v1", 1, olderTime}},
			want:   map[string]int32{"foo-v3": 2, "foo-v2": 1, "foo-v1": 1},
			reason: "upstream: on a size tie, the newest gets the leftover when scaling up"},
		{name: "leftover distribution: 3 -> 2", d: testutil.Deployment("foo", 2, testutil.Fenceposts(0, 0)), oldReplicas: 3,
			newRS: &rsSpec{"foo-v3", 1, newTime}, old: []rsSpec{{"foo-v2", 1, oldTime}, {"foo-v1", 1, olderTime}},
			want:   map[string]int32{"foo-v3": 1, "foo-v2": 1, "foo-v1": 0},
			reason: "upstream: on a size tie, the oldest loses when scaling down"},
		{name: "proportional scaling (no new rs): 4 -> 5", d: testutil.Deployment("foo", 5, testutil.Fenceposts(0, 0)), oldReplicas: 4,
			old:    []rsSpec{{"foo-v2", 2, oldTime}, {"foo-v1", 2, olderTime}},
			want:   map[string]int32{"foo-v2": 3, "foo-v1": 2},
			reason: "upstream: without a new ReplicaSet the latest old one scales up first"},
		{name: "proportional scaling: 6 -> 0", d: testutil.Deployment("foo", 0, testutil.Fenceposts(0, 0)), oldReplicas: 6,
			newRS: &rsSpec{"foo-v3", 3, newTime}, old: []rsSpec{{"foo-v2", 2, oldTime}, {"foo-v1", 1, olderTime}},
			want:   map[string]int32{"foo-v3": 0, "foo-v2": 0, "foo-v1": 0},
			reason: "upstream: scaling to zero empties every ReplicaSet"},
		{name: "proportional scaling: 0 -> 6", d: testutil.Deployment("foo", 6, testutil.Fenceposts(0, 0)), oldReplicas: 6,
			newRS: &rsSpec{"foo-v3", 0, newTime}, old: []rsSpec{{"foo-v2", 0, oldTime}, {"foo-v1", 0, olderTime}},
			want: map[string]int32{"foo-v3": 6, "foo-v2": 0, "foo-v1": 0}, unwritten: []string{"foo-v2", "foo-v1"},
			reason: "upstream: with nothing active, the new ReplicaSet takes everything and the old ones are not touched"},
		{name: "failed rs update", d: testutil.Deployment("foo", 5, testutil.Fenceposts(0, 0)), oldReplicas: 5,
			newRS: &rsSpec{"foo-v3", 2, newTime}, old: []rsSpec{{"foo-v2", 1, oldTime}, {"foo-v1", 1, olderTime}},
			desired: map[string]int32{"foo-v2": 3},
			want:    map[string]int32{"foo-v3": 2, "foo-v2": 2, "foo-v1": 1}, unwritten: []string{"foo-v3", "foo-v1"},
			reason: "upstream: foo-v2 was last sized for 3 (its update for 5 failed); it alone catches up, 1 × 5/3 rounds to 2"},
		{name: "deployment with surge pods", d: testutil.Deployment("foo", 20, testutil.Fenceposts(2, 0)), oldReplicas: 10, oldSurge: 2,
			newRS: &rsSpec{"foo-v2", 6, newTime}, old: []rsSpec{{"foo-v1", 6, oldTime}},
			want:   map[string]int32{"foo-v2": 11, "foo-v1": 11},
			reason: "upstream: 12 (10 + 2 surge) become 22 (20 + 2), shared equally"},
		{name: "change both surge and size", d: testutil.Deployment("foo", 50, testutil.Fenceposts(6, 0)), oldReplicas: 10, oldSurge: 3,
			newRS: &rsSpec{"foo-v2", 5, newTime}, old: []rsSpec{{"foo-v1", 8, oldTime}},
			want:   map[string]int32{"foo-v2": 22, "foo-v1": 34},
			reason: "upstream: 13 become 56, each ReplicaSet by the ratio 56/13"},
		{name: "change both size and template", d: anotherLabel(testutil.Deployment("foo", 14, testutil.Fenceposts(0, 0))), oldReplicas: 10,
			old:    []rsSpec{{"foo-v2", 7, newTime}, {"foo-v1", 3, oldTime}},
			want:   map[string]int32{"foo-v2": 10, "foo-v1": 4},
			reason: "upstream: the old ReplicaSets are scaled first; the new template waits for a later sync"},
		{name: "saturated but broken new replica set does not affect old pods", d: testutil.Deployment("foo", 2, testutil.Fenceposts(1, 1)), oldReplicas: 2, oldSurge: 1,
			newRS: &rsSpec{"foo-v2", 2, newTime}, old: []rsSpec{{"foo-v1", 1, oldTime}},
			want:   map[string]int32{"foo-v2": 2, "foo-v1": 1},
			reason: "upstream: the new ReplicaSet has its size but no available pods, so it is not saturated and the old one keeps its pod"},

		{name: "saturated new replica set", d: testutil.Deployment("foo", 2, testutil.Fenceposts(1, 1)), oldReplicas: 2, oldSurge: 1,
			newRS: &rsSpec{"foo-v2", 2, newTime}, old: []rsSpec{{"foo-v1", 1, oldTime}}, available: map[string]int32{"foo-v2": 2},
			want: map[string]int32{"foo-v2": 2, "foo-v1": 0}, unwritten: []string{"foo-v2"},
			reason: "upstream scale(): a saturated new ReplicaSet (size, desired-replicas and available all 2) makes the old ones go to 0"},
		{name: "only active already sized", d: testutil.Deployment("foo", 3, testutil.Fenceposts(0, 0)), oldReplicas: 2,
			newRS: &rsSpec{"foo-v1", 3, newTime}, want: map[string]int32{"foo-v1": 3}, unwritten: []string{"foo-v1"},
			reason: "the stale desired-replicas bug (kubernetes/kubernetes#102551): the only active ReplicaSet already has the size; its stale desired-replicas is not refreshed here"},
		{name: "nothing at all", d: testutil.Deployment("foo", 3, testutil.Fenceposts(0, 0)), oldReplicas: 3, want: map[string]int32{},
			reason: "no ReplicaSets, nothing to scale"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			build := func(s rsSpec) *appsv1.ReplicaSet {
				desired := tt.oldReplicas
				if v, ok := tt.desired[s.name]; ok {
					desired = v
				}
				rs := replicaSet(s.name, s.size, s.created, desired, tt.oldSurge)
				rs.Status.AvailableReplicas = tt.available[s.name]
				return rs
			}
			var newRS *appsv1.ReplicaSet
			if tt.newRS != nil {
				newRS = build(*tt.newRS)
			}
			old := []*appsv1.ReplicaSet{}
			for _, s := range tt.old {
				old = append(old, build(s))
			}
			frozen := testutil.Freeze(t, tt.d, newRS, old)
			scales := scaling.Resizes(tt.d, newRS, old, scaling.Fixes{})
			frozen.Check(t)

			got := map[string]int32{}
			for _, rs := range append(old[:len(old):len(old)], newRS) {
				if rs != nil {
					got[rs.Name] = *rs.Spec.Replicas
				}
			}
			written := map[string]bool{}
			for _, s := range scales {
				if written[s.To.Name] {
					t.Errorf("%s written twice", s.To.Name)
				}
				written[s.To.Name] = true
				got[s.To.Name] = *s.To.Spec.Replicas
				wantAnn := map[string]string{
					deployutil.DesiredReplicasAnnotation: itoa(*tt.d.Spec.Replicas),
					deployutil.MaxReplicasAnnotation:     itoa(facts.MaxReplicas(tt.d)),
				}
				if diff := cmp.Diff(wantAnn, s.To.Annotations); diff != "" {
					t.Errorf("%s: a write carries the Deployment's replica annotations (-want +got):\n%s", s.To.Name, diff)
				}
				if len(s.Why) == 0 {
					t.Errorf("%s: the write has no reason", s.To.Name)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("sizes (-want +got):\n%s\n(%s)", diff, tt.reason)
			}
			for _, name := range tt.unwritten {
				if written[name] {
					t.Errorf("%s was written, want untouched (%s)", name, tt.reason)
				}
			}
		})
	}
}

func TestScaleRecreate(t *testing.T) {
	d := testutil.Deployment("foo", 4, testutil.Fenceposts(0, 0))
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	tests := []struct {
		name   string
		newRS  *appsv1.ReplicaSet
		old    []*appsv1.ReplicaSet
		want   int
		reason string
	}{
		{name: "two active", newRS: replicaSet("foo-v2", 1, newTime, 2, 0), old: []*appsv1.ReplicaSet{replicaSet("foo-v1", 1, oldTime, 2, 0)}, want: 0,
			reason: "upstream's scale(): proportional scaling is for RollingUpdate only; Recreate with several active ReplicaSets does nothing"},
		{name: "one active", newRS: replicaSet("foo-v2", 0, newTime, 2, 0), old: []*appsv1.ReplicaSet{replicaSet("foo-v1", 2, oldTime, 2, 0)}, want: 1,
			reason: "a single active ReplicaSet is resized whatever the strategy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, d, tt.newRS, tt.old)
			got := scaling.Resizes(d, tt.newRS, tt.old, scaling.Fixes{})
			frozen.Check(t)
			if len(got) != tt.want {
				t.Errorf("%d writes, want %d (%s)", len(got), tt.want, tt.reason)
			}
		})
	}
}

// TestIsScalingEvent follows upstream's isScalingEvent: an active
// ReplicaSet whose readable desired-replicas differs from spec.replicas.
func TestIsScalingEvent(t *testing.T) {
	unreadable := replicaSet("foo-v1", 2, oldTime, 2, 0)
	unreadable.Annotations[deployutil.DesiredReplicasAnnotation] = "-1"
	tests := []struct {
		name   string
		newRS  *appsv1.ReplicaSet
		old    []*appsv1.ReplicaSet
		want   bool
		reason string
	}{
		{name: "sized for 3", newRS: replicaSet("foo-v2", 3, newTime, 3, 0), want: false, reason: "desired-replicas equals spec.replicas"},
		{name: "sized for 2", newRS: replicaSet("foo-v2", 3, newTime, 2, 0), want: true, reason: "spec.replicas changed since the last write"},
		{name: "old one sized for 2", newRS: replicaSet("foo-v2", 1, newTime, 3, 0), old: []*appsv1.ReplicaSet{replicaSet("foo-v1", 2, oldTime, 2, 0)}, want: true,
			reason: "old ReplicaSets count too"},
		{name: "inactive one sized for 2", newRS: replicaSet("foo-v2", 3, newTime, 3, 0), old: []*appsv1.ReplicaSet{replicaSet("foo-v1", 0, oldTime, 2, 0)}, want: false,
			reason: "ReplicaSets scaled to 0 are not looked at"},
		{name: "unreadable", old: []*appsv1.ReplicaSet{unreadable}, want: false,
			reason: "upstream parses the annotation as a non-negative int32 and ignores it otherwise"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d := testutil.Deployment("foo", 3, testutil.Fenceposts(0, 0))
			frozen := testutil.Freeze(t, d, tt.newRS, tt.old)
			got := scaling.IsScalingEvent(d, tt.newRS, tt.old)
			frozen.Check(t)
			if got != tt.want {
				t.Errorf("IsScalingEvent = %v, want %v (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

// TestActiveOrLatest follows upstream's FindActiveOrLatest.
func TestActiveOrLatest(t *testing.T) {
	v1, v2 := replicaSet("foo-v1", 0, olderTime, 1, 0), replicaSet("foo-v2", 0, oldTime, 1, 0)
	active := replicaSet("foo-v3", 2, newTime, 1, 0)
	tests := []struct {
		name   string
		newRS  *appsv1.ReplicaSet
		old    []*appsv1.ReplicaSet
		want   *appsv1.ReplicaSet
		reason string
	}{
		{name: "nothing", want: nil, reason: "no ReplicaSets"},
		{name: "none active, new exists", newRS: active.DeepCopy(), old: []*appsv1.ReplicaSet{v2, v1}, reason: "filled in below"},
		{name: "none active, no new", old: []*appsv1.ReplicaSet{v2, v1}, want: v2, reason: "the newest old one (old is newest first)"},
		{name: "one active", newRS: v2, old: []*appsv1.ReplicaSet{active, v1}, want: active, reason: "the only active one, old or new"},
		{name: "two active", newRS: active, old: []*appsv1.ReplicaSet{replicaSet("foo-v4", 1, oldTime, 1, 0)}, want: nil, reason: "no single answer"},
	}
	tests[1].newRS.Spec.Replicas = ptr.To[int32](0)
	tests[1].want = tests[1].newRS
	tests[1].reason = "with nothing active, the new ReplicaSet"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, tt.newRS, tt.old)
			got := scaling.ActiveOrLatest(tt.newRS, tt.old)
			frozen.Check(t)
			if got != tt.want {
				t.Errorf("ActiveOrLatest = %v, want %v (%s)", got, tt.want, tt.reason)
			}
		})
	}
}
