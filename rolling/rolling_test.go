package rolling_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/rolling"
)

// TestScaleNew restates upstream's
// TestDeploymentController_reconcileNewReplicaSet (5 rows): 10 replicas,
// maxUnavailable 0, an old ReplicaSet and the new one. (Upstream gives both
// the same name; here the old one is foo-v1.)
func TestScaleNew(t *testing.T) {
	tests := []struct {
		name      string
		surge     int32
		old, new  int32
		wantScale bool
		want      int32
		reason    string
	}{
		{name: "no surge, old full", surge: 0, old: 10, new: 0, wantScale: false,
			reason: "upstream: 0/0 resolves to surge 0, and 10 old pods leave no room"},
		{name: "surge 2, old full", surge: 2, old: 10, new: 0, wantScale: true, want: 2,
			reason: "upstream: maxSurge 2 makes room for 2 new pods"},
		{name: "surge 2, old half", surge: 2, old: 5, new: 0, wantScale: true, want: 7,
			reason: "upstream: 12 allowed, 5 exist: 7 new pods"},
		{name: "surge 2, already surging", surge: 2, old: 10, new: 2, wantScale: false,
			reason: "upstream: 12 pods already, no room"},
		{name: "too large", surge: 2, old: 2, new: 11, wantScale: true, want: 10,
			reason: "upstream: a new ReplicaSet above spec.replicas shrinks to it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d := testutil.Deployment("foo", 10, testutil.Fenceposts(tt.surge, 0))
			newRS, oldRS := testutil.ReplicaSet("foo-v2", tt.new, testutil.Status(tt.new, 0, 0)), testutil.ReplicaSet("foo-v1", tt.old, testutil.Status(tt.old, 0, 0))
			all := []*appsv1.ReplicaSet{newRS, oldRS}
			frozen := testutil.Freeze(t, d, all)
			s, ok, err := rolling.ScaleNew(d, all, newRS)
			frozen.Check(t)
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if ok != tt.wantScale {
				t.Fatalf("scaled = %v, want %v (%s)", ok, tt.wantScale, tt.reason)
			}
			if ok && (s.From != newRS || *s.To.Spec.Replicas != tt.want || len(s.Why) == 0) {
				t.Errorf("scale %s to %d (%q), want %s to %d (%s)", s.To.Name, *s.To.Spec.Replicas, s.Why, newRS.Name, tt.want, tt.reason)
			}
		})
	}
}

func TestScaleNewError(t *testing.T) {
	d := testutil.Deployment("foo", 10, testutil.Fenceposts(2, 0))
	d.Spec.Strategy.RollingUpdate.MaxSurge = nil
	newRS := testutil.ReplicaSet("foo-v2", 0, testutil.Status(0, 0, 0))
	frozen := testutil.Freeze(t, d, newRS)
	defer frozen.Check(t)
	if _, ok, err := rolling.ScaleNew(d, []*appsv1.ReplicaSet{newRS}, newRS); err == nil || ok {
		t.Errorf("ScaleNew with a nil maxSurge = %v, %v; want an error, as upstream's NewRSNewReplicas", ok, err)
	}
}

type write struct {
	Name     string
	From, To int32
}

// scaleDownCase is a call of ScaleDownOld: the Deployment's fenceposts,
// the old ReplicaSets (oldest first) and the new one.
type scaleDownCase struct {
	name        string
	replicas    int32
	surge, unav int32
	old         []*appsv1.ReplicaSet
	newRS       *appsv1.ReplicaSet
	wantWrites  []write
	wantScaled  bool
	reason      string
}

func runScaleDown(t *testing.T, tests []scaleDownCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d := testutil.Deployment("foo", tt.replicas, testutil.Fenceposts(tt.surge, tt.unav))
			all := append(append([]*appsv1.ReplicaSet(nil), tt.old...), tt.newRS)
			frozen := testutil.Freeze(t, d, all, tt.old, tt.newRS)
			scales, scaled := rolling.ScaleDownOld(d, all, tt.old, tt.newRS)
			frozen.Check(t)
			var got []write
			for _, s := range scales {
				if len(s.Why) == 0 {
					t.Errorf("write of %s has no reason", s.To.Name)
				}
				got = append(got, write{Name: s.To.Name, From: *s.From.Spec.Replicas, To: *s.To.Spec.Replicas})
			}
			if diff := cmp.Diff(tt.wantWrites, got); diff != "" || scaled != tt.wantScaled {
				t.Errorf("scaled = %v, want %v; writes (-want +got):\n%s\n(%s)", scaled, tt.wantScaled, diff, tt.reason)
			}
		})
	}
}

// TestScaleDownOld restates upstream's
// TestDeploymentController_reconcileOldReplicaSets (5 rows): 10 replicas,
// maxSurge 0, one old ReplicaSet foo-old and the new foo-new. Upstream
// checks whether anything was scaled; its expected old sizes are checked
// here too (the last write of foo-old).
func TestScaleDownOld(t *testing.T) {
	runScaleDown(t, []scaleDownCase{
		{name: "0/0, all old available", replicas: 10, unav: 0,
			old: []*appsv1.ReplicaSet{testutil.ReplicaSet("foo-old", 10, testutil.Status(10, 10, 10))}, newRS: testutil.ReplicaSet("foo-new", 0, testutil.Status(0, 0, 0)),
			wantWrites: []write{{"foo-old", 10, 9}}, wantScaled: true,
			reason: "upstream: 0/0 allows 1 unavailable, so one old pod goes"},
		{name: "unavailable 2, all old available", replicas: 10, unav: 2,
			old: []*appsv1.ReplicaSet{testutil.ReplicaSet("foo-old", 10, testutil.Status(10, 10, 10))}, newRS: testutil.ReplicaSet("foo-new", 0, testutil.Status(0, 0, 0)),
			wantWrites: []write{{"foo-old", 10, 8}}, wantScaled: true,
			reason: "upstream: two old pods go"},
		{name: "unavailable 2, two old unhealthy", replicas: 10, unav: 2,
			old: []*appsv1.ReplicaSet{testutil.ReplicaSet("foo-old", 10, testutil.Status(10, 8, 8))}, newRS: testutil.ReplicaSet("foo-new", 0, testutil.Status(0, 0, 0)),
			wantWrites: []write{{"foo-old", 10, 8}}, wantScaled: true,
			reason: "upstream: the two unhealthy old replicas are cleaned up; then 8 available is the minimum, no healthy pod goes"},
		{name: "unavailable 2, one old unhealthy", replicas: 10, unav: 2,
			old: []*appsv1.ReplicaSet{testutil.ReplicaSet("foo-old", 10, testutil.Status(10, 9, 9))}, newRS: testutil.ReplicaSet("foo-new", 0, testutil.Status(0, 0, 0)),
			wantWrites: []write{{"foo-old", 10, 9}, {"foo-old", 9, 8}}, wantScaled: true,
			reason: "upstream: the unhealthy replica is cleaned up, then one available pod goes (a plan merges the two writes)"},
		{name: "new pods unavailable", replicas: 10, unav: 2,
			old: []*appsv1.ReplicaSet{testutil.ReplicaSet("foo-old", 8, testutil.Status(8, 8, 8))}, newRS: testutil.ReplicaSet("foo-new", 2, testutil.Status(2, 0, 0)),
			wantWrites: nil, wantScaled: false,
			reason: "upstream: the 2 unavailable new pods use up maxUnavailable; no old pod may go"},
	})
}

// TestCleanupUnhealthyReplicas restates upstream's
// TestDeploymentController_cleanupUnhealthyReplicas (4 rows): an old
// ReplicaSet of 10, 8 or 10 of them available, cleaned up within a maximum.
// ScaleDownOld derives the maximum from the Deployment (all pods −
// minAvailable − unavailable new pods), so each row sets maxUnavailable to
// the maximum, with 10 replicas, maxSurge 2 and an empty new ReplicaSet;
// the first write is the cleanup, and a second one is the healthy
// scale-down that follows in the same pass.
func TestCleanupUnhealthyReplicas(t *testing.T) {
	runScaleDown(t, []scaleDownCase{
		{name: "max 1 of 2 unhealthy", replicas: 10, surge: 2, unav: 1,
			old: []*appsv1.ReplicaSet{testutil.ReplicaSet("foo-v2", 10, testutil.Status(10, 8, 8))}, newRS: testutil.ReplicaSet("foo-new", 0, testutil.Status(0, 0, 0)),
			wantWrites: []write{{"foo-v2", 10, 9}}, wantScaled: true,
			reason: "upstream: cleanup count 1; then 8 available is below the minimum 9, nothing more"},
		{name: "max 3 of 2 unhealthy", replicas: 10, surge: 2, unav: 3,
			old: []*appsv1.ReplicaSet{testutil.ReplicaSet("foo-v2", 10, testutil.Status(10, 8, 8))}, newRS: testutil.ReplicaSet("foo-new", 0, testutil.Status(0, 0, 0)),
			wantWrites: []write{{"foo-v2", 10, 8}, {"foo-v2", 8, 7}}, wantScaled: true,
			reason: "upstream: cleanup count 2 (all unhealthy); the room left (1) then takes an available pod"},
		{name: "max 0", replicas: 10, surge: 2, unav: 0,
			old: []*appsv1.ReplicaSet{testutil.ReplicaSet("foo-v2", 10, testutil.Status(10, 8, 8))}, newRS: testutil.ReplicaSet("foo-new", 0, testutil.Status(0, 0, 0)),
			wantWrites: nil, wantScaled: false,
			reason: "upstream: cleanup count 0 with no room"},
		{name: "max 3, all healthy", replicas: 10, surge: 2, unav: 3,
			old: []*appsv1.ReplicaSet{testutil.ReplicaSet("foo-v2", 10, testutil.Status(10, 10, 10))}, newRS: testutil.ReplicaSet("foo-new", 0, testutil.Status(0, 0, 0)),
			wantWrites: []write{{"foo-v2", 10, 7}}, wantScaled: true,
			reason: "upstream: cleanup count 0 (nothing unhealthy); the single write is the healthy scale-down of 3"},
	})
}

// TestScaleDownHealthy restates upstream's
// TestDeploymentController_scaleDownOldReplicaSetsForRollingUpdate (5
// rows): 10 replicas, maxSurge 0, one old ReplicaSet foo-v2 with some
// available pods. Upstream calls the healthy scale-down alone with no new
// ReplicaSet; here an empty new ReplicaSet is passed, and ScaleDownOld runs
// the unhealthy cleanup first: where upstream's row expects no healthy
// scale-down but the old ReplicaSet has unavailable replicas, the one write
// is that cleanup.
func TestScaleDownHealthy(t *testing.T) {
	runScaleDown(t, []scaleDownCase{
		{name: "0/0, all available", replicas: 10, unav: 0,
			old: []*appsv1.ReplicaSet{testutil.ReplicaSet("foo-v2", 10, testutil.Status(10, 10, 10))}, newRS: testutil.ReplicaSet("foo-new", 0, testutil.Status(0, 0, 0)),
			wantWrites: []write{{"foo-v2", 10, 9}}, wantScaled: true,
			reason: "upstream: 10 → 9 (0/0 allows one unavailable)"},
		{name: "unavailable 2, all available", replicas: 10, unav: 2,
			old: []*appsv1.ReplicaSet{testutil.ReplicaSet("foo-v2", 10, testutil.Status(10, 10, 10))}, newRS: testutil.ReplicaSet("foo-new", 0, testutil.Status(0, 0, 0)),
			wantWrites: []write{{"foo-v2", 10, 8}}, wantScaled: true,
			reason: "upstream: 10 → 8"},
		{name: "unavailable 2, 8 available", replicas: 10, unav: 2,
			old: []*appsv1.ReplicaSet{testutil.ReplicaSet("foo-v2", 10, testutil.Status(10, 8, 8))}, newRS: testutil.ReplicaSet("foo-new", 0, testutil.Status(0, 0, 0)),
			wantWrites: []write{{"foo-v2", 10, 8}}, wantScaled: true,
			reason: "upstream: no healthy scale-down (8 available is the minimum); the write is the cleanup of the 2 unhealthy replicas"},
		{name: "old at 0", replicas: 10, unav: 2,
			old: []*appsv1.ReplicaSet{testutil.ReplicaSet("foo-v2", 0, testutil.Status(0, 0, 0))}, newRS: testutil.ReplicaSet("foo-new", 0, testutil.Status(0, 0, 0)),
			wantWrites: nil, wantScaled: false,
			reason: "upstream: nothing to scale down"},
		{name: "unavailable 2, 1 available", replicas: 10, unav: 2,
			old: []*appsv1.ReplicaSet{testutil.ReplicaSet("foo-v2", 10, testutil.Status(10, 1, 1))}, newRS: testutil.ReplicaSet("foo-new", 0, testutil.Status(0, 0, 0)),
			wantWrites: []write{{"foo-v2", 10, 8}}, wantScaled: true,
			reason: "upstream: no healthy scale-down (1 available); the cleanup takes 2 of the 9 unhealthy replicas, all the room allows"},

		{name: "status lags a scale-down", replicas: 5, unav: 2,
			old: []*appsv1.ReplicaSet{testutil.ReplicaSet("foo-a", 2, testutil.Status(2, 1, 1)), func() *appsv1.ReplicaSet {
				rs := testutil.ReplicaSet("foo-b", 3, testutil.Status(3, 3, 3))
				rs.Status.AvailableReplicas, rs.Status.ReadyReplicas, rs.Status.Replicas = 5, 5, 5
				return rs
			}()}, newRS: testutil.ReplicaSet("foo-new", 0, testutil.Status(0, 0, 0)),
			wantWrites: []write{{"foo-a", 2, 1}}, wantScaled: false,
			reason: "upstream's swallowed cleanup error: an old ReplicaSet with more available than its spec stops the cleanup with an error upstream swallows; the write before it stands, the rest of the pass is skipped"},
		{name: "oldest first", replicas: 4, unav: 2,
			old: []*appsv1.ReplicaSet{testutil.ReplicaSet("foo-b", 3, testutil.Status(3, 3, 3)), testutil.ReplicaSet("foo-a", 1, testutil.Status(1, 1, 1))}, newRS: testutil.ReplicaSet("foo-new", 0, testutil.Status(0, 0, 0)),
			wantWrites: []write{{"foo-a", 1, 0}, {"foo-b", 3, 2}}, wantScaled: true,
			reason: "upstream sorts the old ReplicaSets oldest first (by name at equal times): 4 available and 2 must stay, so foo-a gives its 1, then foo-b 1"},
	})
}
