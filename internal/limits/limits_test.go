package limits_test

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/limits"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

func limit(v intstr.IntOrString) limits.Rollout { return limits.New(&v) }

// TestCreate: how a limit resolves against spec.replicas, seen through the
// size of a new ReplicaSet that upstream would create with n replicas.
func TestCreate(t *testing.T) {
	tests := []struct {
		name     string
		r        limits.Rollout
		replicas int32
		recreate bool
		noOld    bool
		n        int32
		want     int32
		reason   string
	}{
		{name: "no WithLimits", r: limits.Rollout{}, replicas: 10, n: 3, want: 3,
			reason: "the zero Rollout is a sync without WithLimits: upstream's size"},
		{name: "WithLimits without a limit", r: limits.New(nil), replicas: 10, n: 3, want: 3,
			reason: "a nil MaxUpdated sets no limit"},
		{name: "integer", r: limit(intstr.FromInt32(2)), replicas: 10, n: 3, want: 2,
			reason: "maxUpdated 2 holds the new ReplicaSet at 2"},
		{name: "percent", r: limit(intstr.FromString("30%")), replicas: 10, n: 5, want: 3,
			reason: "30% of 10 is 3"},
		{name: "percent rounds up", r: limit(intstr.FromString("30%")), replicas: 5, n: 3, want: 2,
			reason: "30% of 5 is 1.5, rounded up as maxSurge is: 2"},
		{name: "zero", r: limit(intstr.FromInt32(0)), replicas: 10, n: 3, want: 0,
			reason: "0 is a limit: no pod of the new template"},
		{name: "within the limit", r: limit(intstr.FromInt32(5)), replicas: 10, n: 3, want: 3,
			reason: "maxSurge allows fewer than the limit: the limit decides nothing"},
		{name: "at spec.replicas", r: limit(intstr.FromInt32(10)), replicas: 10, n: 10, want: 10,
			reason: "a limit of spec.replicas or more does not bind"},
		{name: "100 percent", r: limit(intstr.FromString("100%")), replicas: 10, n: 10, want: 10,
			reason: "100% is spec.replicas: no limit"},
		{name: "digits beyond int64", r: limit(intstr.FromString("99999999999999999999%")), replicas: 10, n: 10, want: 10,
			reason: "far above 100%: no limit, and no overflow"},
		{name: "first rollout", r: limit(intstr.FromInt32(2)), replicas: 10, noOld: true, n: 10, want: 10,
			reason: "with no old ReplicaSet nothing would hold the rest of the replicas: not limited"},
		{name: "Recreate", r: limit(intstr.FromInt32(2)), replicas: 10, recreate: true, n: 10, want: 10,
			reason: "Recreate ignores the limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			d := testutil.Deployment("foo", tt.replicas)
			if tt.recreate {
				testutil.Recreate(d)
			}
			var old []*appsv1.ReplicaSet
			if !tt.noOld {
				old = []*appsv1.ReplicaSet{testutil.ReplicaSet("foo-v1", tt.replicas)}
			}
			got, why := tt.r.Create(d, old, tt.n)
			if got != tt.want {
				t.Errorf("Create(n=%d) = %d, want %d (%s)", tt.n, got, tt.want, tt.reason)
			}
			if limited := why != nil; limited != (tt.want != tt.n) {
				t.Errorf("Create's values %v: limited %v, want %v (%s)", why, limited, tt.want != tt.n, tt.reason)
			}
		})
	}
}

// TestNoLimitsDecideNothing: the zero Rollout leaves every decision to
// upstream's code, whatever the state shows — a stale RolloutLimited
// condition included (without WithLimits it is judged as any condition).
func TestNoLimitsDecideNothing(t *testing.T) {
	d := testutil.Deployment("foo", 10)
	old, nw := testutil.ReplicaSet("foo-v1", 10), testutil.ReplicaSet("foo-v2", 0)
	var r limits.Rollout
	if _, limited, err := r.Step(d, []*appsv1.ReplicaSet{old, nw}, []*appsv1.ReplicaSet{old}, nw); limited || err != nil {
		t.Errorf("Step = limited %v, %v; want upstream's step", limited, err)
	}
	stale := &appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: deployutil.ReasonRolloutLimited}
	st := &appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{*stale}}
	if _, _, ok := r.Progressing(d, st, stale, "ReplicaSet \"foo-v2\"", testutil.Epoch()); ok {
		t.Error("Progressing decided without WithLimits")
	}
	if r.Holds(stale) {
		t.Error("Holds without WithLimits")
	}
}

// TestProgressing: rules 4 and 5 of WithLimits, one state each. 10
// replicas held at 3: the old ReplicaSet at 7 and the new one at 3, all
// available, the generation observed.
func TestProgressing(t *testing.T) {
	began, now := metav1.NewTime(testutil.Epoch()), testutil.Epoch().Add(time.Hour)
	const subject = `ReplicaSet "foo-v2"`
	heldMsg := subject + " is held at maxUpdated 3 (3 of 10 replicas)."
	cond := func(status corev1.ConditionStatus, reason, msg string) *appsv1.DeploymentCondition {
		return &appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: status, Reason: reason, Message: msg,
			LastUpdateTime: began, LastTransitionTime: began}
	}
	tests := []struct {
		name        string
		r           limits.Rollout
		updated     int32 // the status's updatedReplicas
		cur         *appsv1.DeploymentCondition
		decides     bool
		wantReason  string
		replace     bool
		keepsTransi bool // the condition keeps cur's lastTransitionTime
		holds       bool // Holds(cur)
		reason      string
	}{
		{name: "hold begins", r: limit(intstr.FromInt32(3)), updated: 3, cur: cond(corev1.ConditionTrue, "ReplicaSetUpdated", subject+" is progressing."),
			decides: true, wantReason: deployutil.ReasonRolloutLimited,
			reason: "held: RolloutLimited, set over the old condition (SetCondition keeps a True transition)"},
		{name: "hold goes on", r: limit(intstr.FromInt32(3)), updated: 3, cur: cond(corev1.ConditionTrue, deployutil.ReasonRolloutLimited, heldMsg),
			decides: true, wantReason: deployutil.ReasonRolloutLimited, holds: true,
			reason: "the same hold: set, so SetCondition keeps the stamp of its beginning"},
		{name: "held elsewhere", r: limit(intstr.FromInt32(3)), updated: 3, cur: cond(corev1.ConditionTrue, deployutil.ReasonRolloutLimited, "held at something else"),
			decides: true, wantReason: deployutil.ReasonRolloutLimited, replace: true, keepsTransi: true, holds: true,
			reason: "a new hold: replaced so it is stamped now, the True transition kept"},
		{name: "hold ends", r: limit(intstr.FromInt32(3)), updated: 2, cur: cond(corev1.ConditionTrue, deployutil.ReasonRolloutLimited, heldMsg),
			decides: true, wantReason: "ReplicaSetUpdated", replace: true, keepsTransi: true, holds: true,
			reason: "not held any more: progressing, stamped now, so the deadline counts from the end of the hold"},
		{name: "limit removed", r: limits.New(nil), updated: 3, cur: cond(corev1.ConditionTrue, deployutil.ReasonRolloutLimited, heldMsg),
			decides: true, wantReason: "ReplicaSetUpdated", replace: true, keepsTransi: true, holds: true,
			reason: "WithLimits with no limit ends a hold an earlier sync left"},
		{name: "not held, no hold", r: limit(intstr.FromInt32(3)), updated: 2, cur: cond(corev1.ConditionTrue, "ReplicaSetUpdated", "x"),
			reason: "neither a hold nor its end: upstream judges"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			d := testutil.Deployment("foo", 10)
			old := testutil.ReplicaSet("foo-v1", 7, testutil.Status(7, 7, 7))
			nw := testutil.ReplicaSet("foo-v2", 3, testutil.Status(3, 3, 3))
			old.Annotations = map[string]string{"deployment.kubernetes.io/revision": "1"}
			nw.Annotations = map[string]string{"deployment.kubernetes.io/revision": "2"}
			r := tt.r
			if _, _, err := r.Step(d, []*appsv1.ReplicaSet{old, nw}, []*appsv1.ReplicaSet{old}, nw); err != nil {
				t.Fatal(err)
			}
			st := &appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 10, UpdatedReplicas: tt.updated,
				AvailableReplicas: 10, Conditions: []appsv1.DeploymentCondition{*tt.cur}}
			c, replace, ok := r.Progressing(d, st, tt.cur, subject, now)
			if ok != tt.decides {
				t.Fatalf("Progressing decides %v, want %v (%s)", ok, tt.decides, tt.reason)
			}
			if h := r.Holds(tt.cur); h != tt.holds {
				t.Errorf("Holds = %v, want %v (%s)", h, tt.holds, tt.reason)
			}
			if !ok {
				return
			}
			if c.Reason != tt.wantReason || c.Status != corev1.ConditionTrue || !c.LastUpdateTime.Time.Equal(now) {
				t.Errorf("condition %+v, want True %s stamped %v (%s)", c, tt.wantReason, now, tt.reason)
			}
			if c.Reason == deployutil.ReasonRolloutLimited && c.Message != heldMsg {
				t.Errorf("message %q, want %q", c.Message, heldMsg)
			}
			if c.Reason != deployutil.ReasonRolloutLimited && !strings.HasSuffix(c.Message, " is progressing.") {
				t.Errorf("message %q, want progressing", c.Message)
			}
			if replace != tt.replace {
				t.Errorf("replace %v, want %v (%s)", replace, tt.replace, tt.reason)
			}
			if keeps := c.LastTransitionTime.Equal(&began); keeps != tt.keepsTransi {
				t.Errorf("keeps the transition time %v, want %v (%s)", keeps, tt.keepsTransi, tt.reason)
			}
		})
	}
}
