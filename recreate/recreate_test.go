package recreate_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/recreate"
)

func pod(phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p-" + string(phase)}, Status: corev1.PodStatus{Phase: phase}}
}

// TestScaleDownOld restates upstream's TestScaleDownOldReplicaSets (1 row)
// and adds the skip of empty ReplicaSets and upstream's 0/0 RollingUpdate
// fixture (the function does not look at the strategy).
func TestScaleDownOld(t *testing.T) {
	rolling := testutil.Deployment("foo", 3, testutil.Recreate)
	rolling.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
		MaxSurge: ptr.To(intstr.FromInt32(0)), MaxUnavailable: ptr.To(intstr.FromInt32(0))}}
	tests := []struct {
		name   string
		d      *appsv1.Deployment
		old    []*appsv1.ReplicaSet
		want   map[string]int32
		reason string
	}{
		{name: "one of 3", d: rolling, old: []*appsv1.ReplicaSet{testutil.ReplicaSet("foo-0", 3, testutil.UID("uid-0"), testutil.Status(3, 0, 0))}, want: map[string]int32{"foo-0": 0},
			reason: "upstream: the old ReplicaSet goes to 0"},
		{name: "several", d: testutil.Deployment("foo", 3, testutil.Recreate), old: []*appsv1.ReplicaSet{testutil.ReplicaSet("foo-0", 2, testutil.UID("uid-0"), testutil.Status(2, 0, 0)), testutil.ReplicaSet("foo-1", 0, testutil.UID("uid-1"), testutil.Status(1, 0, 0)), testutil.ReplicaSet("foo-2", 1, testutil.UID("uid-2"), testutil.Status(1, 0, 0))},
			want:   map[string]int32{"foo-0": 0, "foo-2": 0},
			reason: "every old ReplicaSet with replicas goes to 0, in order; one already at 0 is not written"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, tt.d, tt.old)
			scales := recreate.ScaleDownOld(tt.d, tt.old)
			frozen.Check(t)
			got := map[string]int32{}
			for _, s := range scales {
				got[s.To.Name] = *s.To.Spec.Replicas
				if !s.Resized() || s.Direction() != "down" || len(s.Why) == 0 {
					t.Errorf("%s: want a scale-down with a reason", s.To.Name)
				}
				if s.To.Annotations[deployutil.DesiredReplicasAnnotation] != "3" {
					t.Errorf("%s: desired-replicas = %q, want 3", s.To.Name, s.To.Annotations[deployutil.DesiredReplicasAnnotation])
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\n(%s)", diff, tt.reason)
			}
		})
	}
}

// TestOldPodsRunning restates upstream's TestOldPodsRunning (9 rows).
// Upstream's fixture keys some pods by UIDs its ReplicaSets do not carry
// (its function walks the whole pod map, which in a sync holds exactly the
// claimed ReplicaSets); here pods are keyed by the old ReplicaSets' UIDs,
// the map a sync would have built.
func TestOldPodsRunning(t *testing.T) {
	rs1 := func() *appsv1.ReplicaSet {
		return testutil.ReplicaSet("rs-1", 0, testutil.UID("uid-1"), testutil.Status(0, 0, 0))
	}
	terminating := pod(corev1.PodRunning)
	terminating.DeletionTimestamp = ptr.To(metav1.NewTime(time.Date(2017, 2, 15, 18, 49, 0, 0, time.UTC)))
	tests := []struct {
		name   string
		old    []*appsv1.ReplicaSet
		pods   map[types.UID][]*corev1.Pod
		want   bool
		reason string
	}{
		{name: "no old ReplicaSets", want: false, reason: "upstream: nothing old, nothing running"},
		{name: "old ReplicaSets with running pods",
			old:  []*appsv1.ReplicaSet{testutil.ReplicaSet("foo-some-uid", 0, testutil.UID("some-uid"), testutil.Status(0, 0, 0)), testutil.ReplicaSet("foo-other-uid", 0, testutil.UID("other-uid"), testutil.Status(0, 0, 0))},
			pods: map[types.UID][]*corev1.Pod{"some-uid": {pod(""), pod("")}, "other-uid": {pod(""), pod("")}}, want: true,
			reason: "upstream: pods without a phase yet count as running"},
		{name: "no pods, status replicas 1", old: []*appsv1.ReplicaSet{testutil.ReplicaSet("rs-1", 0, testutil.UID("uid-1"), testutil.Status(1, 0, 0))}, want: true,
			reason: "upstream: an old ReplicaSet still reporting a pod"},
		{name: "no pods, status replicas 0", old: []*appsv1.ReplicaSet{rs1()}, want: false,
			reason: "upstream: nothing reported, nothing listed"},
		{name: "terminal pods only", old: []*appsv1.ReplicaSet{rs1()},
			pods: map[types.UID][]*corev1.Pod{"uid-1": {pod(corev1.PodFailed), pod(corev1.PodSucceeded)}}, want: false,
			reason: "upstream: Failed and Succeeded pods do not run"},
		{name: "unknown phase", old: []*appsv1.ReplicaSet{rs1()},
			pods: map[types.UID][]*corev1.Pod{"uid-1": {pod(corev1.PodUnknown)}}, want: true,
			reason: "upstream: a pod in phase Unknown may still run"},
		{name: "pending", old: []*appsv1.ReplicaSet{rs1()},
			pods: map[types.UID][]*corev1.Pod{"uid-1": {pod(corev1.PodPending)}}, want: true,
			reason: "upstream: a pending pod counts"},
		{name: "running", old: []*appsv1.ReplicaSet{rs1()},
			pods: map[types.UID][]*corev1.Pod{"uid-1": {pod(corev1.PodRunning)}}, want: true,
			reason: "upstream: a running pod counts"},
		{name: "terminal and pending",
			old: []*appsv1.ReplicaSet{rs1(), testutil.ReplicaSet("rs-2", 0, testutil.UID("uid-2"), testutil.Status(0, 0, 0)), testutil.ReplicaSet("rs-3", 0, testutil.UID("uid-3"), testutil.Status(0, 0, 0))},
			pods: map[types.UID][]*corev1.Pod{"uid-1": {pod(corev1.PodFailed), pod(corev1.PodSucceeded)}, "uid-2": {},
				"uid-3": {pod(corev1.PodPending)}}, want: true,
			reason: "upstream: one pending pod among terminal ones is enough"},

		{name: "terminating", old: []*appsv1.ReplicaSet{rs1()},
			pods: map[types.UID][]*corev1.Pod{"uid-1": {terminating}}, want: true,
			reason: "upstream counts pods by phase: the phase alone decides; a terminating pod still Running blocks the new ReplicaSet"},
		{name: "pods of the new ReplicaSet", old: []*appsv1.ReplicaSet{rs1()},
			pods: map[types.UID][]*corev1.Pod{"uid-1": {}, "uid-new": {pod(corev1.PodRunning)}}, want: false,
			reason: "upstream skips the new ReplicaSet's pods; they are not under an old ReplicaSet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, tt.old, tt.pods)
			got, why := recreate.OldPodsRunning(tt.old, tt.pods)
			frozen.Check(t)
			if got != tt.want {
				t.Errorf("OldPodsRunning = %v, want %v (%s)", got, tt.want, tt.reason)
			}
			if got == (why.Rule == "") {
				t.Errorf("explanation %q: want one exactly when old pods run", why)
			}
		})
	}
}

func TestScaleUpNew(t *testing.T) {
	tests := []struct {
		name   string
		size   int32
		wantOK bool
		reason string
	}{
		{name: "grows", size: 0, wantOK: true, reason: "upstream: the new ReplicaSet gets spec.replicas at once"},
		{name: "already there", size: 3, wantOK: false, reason: "no write when it already has spec.replicas"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d, rs := testutil.Deployment("foo", 3, testutil.Recreate), testutil.ReplicaSet("foo-new", tt.size, testutil.UID("uid-new"), testutil.Status(0, 0, 0))
			frozen := testutil.Freeze(t, d, rs)
			s, ok := recreate.ScaleUpNew(d, rs)
			frozen.Check(t)
			if ok != tt.wantOK || (ok && *s.To.Spec.Replicas != 3) {
				t.Errorf("ok = %v, want %v (%s)", ok, tt.wantOK, tt.reason)
			}
		})
	}
}
