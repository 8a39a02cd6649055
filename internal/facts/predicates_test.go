package facts_test

import (
	"errors"
	"math"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// TestComplete restates upstream's TestDeploymentComplete (6 rows) and adds
// the observed-generation rule.
func TestComplete(t *testing.T) {
	d := func(desired, current, updated, available, maxUnavailable, maxSurge int32) *appsv1.Deployment {
		dep := rollingDeployment(desired, intstr.FromInt32(maxSurge), intstr.FromInt32(maxUnavailable))
		dep.Status = appsv1.DeploymentStatus{Replicas: current, UpdatedReplicas: updated, AvailableReplicas: available}
		return dep
	}
	stale := d(5, 5, 5, 5, 0, 0)
	stale.Generation = 2
	stale.Status.ObservedGeneration = 1
	tests := []struct {
		name   string
		d      *appsv1.Deployment
		want   bool
		reason string
	}{
		{name: "min but not all available", d: d(5, 5, 5, 4, 1, 0), want: false, reason: "upstream: 4 of 5 available is not complete even if allowed"},
		{name: "min not honoured", d: d(5, 5, 5, 3, 1, 0), want: false, reason: "upstream: 3 of 5 available"},
		{name: "complete", d: d(5, 5, 5, 5, 0, 0), want: true, reason: "upstream: all updated, existing and available"},
		{name: "not all updated", d: d(5, 5, 4, 5, 0, 0), want: false, reason: "upstream: an old pod remains"},
		{name: "old pods still running", d: d(1, 2, 1, 1, 0, 1), want: false, reason: "upstream: 2 pods exist for 1 replica"},
		{name: "one replica never comes up", d: d(1, 1, 1, 0, 1, 1), want: false, reason: "upstream: nothing available"},
		{name: "generation not observed", d: stale, want: false, reason: "a status for an older generation does not prove the current spec complete"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, tt.d)
			got := facts.Complete(tt.d, &tt.d.Status)
			frozen.Check(t)
			if got != tt.want {
				t.Errorf("Complete = %v, want %v (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

// TestProgressing restates upstream's TestDeploymentProgressing (7 rows).
func TestProgressing(t *testing.T) {
	status := func(current, updated, ready, available int32) appsv1.DeploymentStatus {
		return appsv1.DeploymentStatus{Replicas: current, UpdatedReplicas: updated, ReadyReplicas: ready, AvailableReplicas: available}
	}
	tests := []struct {
		name     string
		old, new appsv1.DeploymentStatus
		want     bool
		reason   string
	}{
		{name: "updated pods", old: status(10, 4, 4, 4), new: status(10, 6, 4, 4), want: true, reason: "upstream: more updated replicas"},
		{name: "no change", old: status(10, 4, 4, 4), new: status(10, 4, 4, 4), want: false, reason: "upstream: nothing moved"},
		{name: "old pods removed", old: status(10, 4, 6, 6), new: status(8, 4, 6, 6), want: true, reason: "upstream: fewer old replicas (6 → 4)"},
		{name: "fewer new pods", old: status(10, 7, 3, 3), new: status(10, 6, 3, 3), want: false, reason: "upstream: losing updated replicas is not progress"},
		{name: "less overall, more new", old: status(10, 4, 7, 7), new: status(8, 8, 5, 5), want: true, reason: "upstream: more updated replicas wins over fewer ready"},
		{name: "more ready", old: status(10, 10, 9, 8), new: status(10, 10, 10, 8), want: true, reason: "upstream: one more ready replica"},
		{name: "more available", old: status(10, 10, 10, 9), new: status(10, 10, 10, 10), want: true, reason: "upstream: one more available replica"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d := &appsv1.Deployment{Status: tt.old}
			frozen := testutil.Freeze(t, d)
			got := facts.Progressing(d, &tt.new)
			frozen.Check(t)
			if got != tt.want {
				t.Errorf("Progressing = %v, want %v (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

// TestTimedOut restates upstream's TestDeploymentTimedOut (5 rows) and adds
// the already-exceeded and missing-condition rules.
func TestTimedOut(t *testing.T) {
	at := func(min, sec int) time.Time { return time.Date(2016, 1, 1, 0, min, sec, 0, time.UTC) }
	d := func(reason string, pds *int32, from time.Time) *appsv1.Deployment {
		return &appsv1.Deployment{
			Spec: appsv1.DeploymentSpec{ProgressDeadlineSeconds: pds},
			Status: appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{{
				Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: reason, LastUpdateTime: metav1.NewTime(from)}}},
		}
	}
	noCondition := d("", ptr.To[int32](10), at(1, 9))
	noCondition.Status.Conditions = nil
	tests := []struct {
		name   string
		d      *appsv1.Deployment
		now    time.Time
		want   bool
		reason string
	}{
		{name: "no deadline", d: d("", nil, at(1, 9)), now: at(1, 20), want: false,
			reason: "upstream: nil progressDeadlineSeconds never times out"},
		{name: "infinite deadline", d: d("", ptr.To[int32](math.MaxInt32), at(1, 9)), now: at(1, 20), want: false,
			reason: "upstream: MaxInt32 means no deadline"},
		{name: "11s of 10s", d: d("", ptr.To[int32](10), at(1, 9)), now: at(1, 20), want: true,
			reason: "upstream: 00:01:09 + 10s is before 00:01:20"},
		{name: "9s of 10s", d: d("", ptr.To[int32](10), at(1, 11)), now: at(1, 20), want: false,
			reason: "upstream: 00:01:11 + 10s is after 00:01:20"},
		{name: "previously complete", d: d(deployutil.ReasonNewReplicaSetAvailable, nil, time.Time{}), want: false,
			reason: "upstream: a completed rollout does not time out"},
		{name: "completed with a deadline", d: d(deployutil.ReasonNewReplicaSetAvailable, ptr.To[int32](10), at(1, 0)), now: at(2, 0), want: false,
			reason: "NewReplicaSetAvailable is never a timeout, however old"},
		{name: "exactly at the deadline", d: d("", ptr.To[int32](10), at(1, 10)), now: at(1, 20), want: false,
			reason: "the deadline is strict: last update + deadline must be before now"},
		{name: "already exceeded", d: d(deployutil.ReasonProgressDeadlineExceeded, ptr.To[int32](10), at(1, 19)), now: at(1, 20), want: true,
			reason: "a condition that says ProgressDeadlineExceeded stays timed out"},
		{name: "no Progressing condition", d: noCondition, now: at(1, 20), want: false,
			reason: "nothing to measure the deadline from"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, tt.d)
			got := facts.TimedOut(tt.d, &tt.d.Status, tt.now)
			frozen.Check(t)
			if got != tt.want {
				t.Errorf("TimedOut = %v, want %v (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

func TestHasLimits(t *testing.T) {
	tests := []struct {
		name   string
		v      *int32
		want   bool
		reason string
	}{
		{name: "nil", v: nil, want: false, reason: "unset means no deadline and no history limit"},
		{name: "MaxInt32", v: ptr.To[int32](math.MaxInt32), want: false, reason: "MaxInt32 is upstream's spelling of infinity"},
		{name: "600", v: ptr.To[int32](600), want: true, reason: "an ordinary value"},
		{name: "0", v: ptr.To[int32](0), want: true, reason: "0 is a limit (keep no history)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{ProgressDeadlineSeconds: tt.v, RevisionHistoryLimit: tt.v}}
			frozen := testutil.Freeze(t, d)
			defer frozen.Check(t)
			if got := facts.HasProgressDeadline(d); got != tt.want {
				t.Errorf("HasProgressDeadline = %v, want %v (%s)", got, tt.want, tt.reason)
			}
			if got := facts.HasRevisionHistoryLimit(d); got != tt.want {
				t.Errorf("HasRevisionHistoryLimit = %v, want %v (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

// TestNewReplicaSetReplicas restates upstream's TestNewRSNewReplicas (3
// rows) and adds its error cases.
func TestNewReplicaSetReplicas(t *testing.T) {
	d := func(strategy appsv1.DeploymentStrategyType, replicas, surge int32) *appsv1.Deployment {
		dep := testutil.ImageDeployment("nginx")
		dep.Spec.Replicas = ptr.To(replicas)
		dep.Spec.Strategy = appsv1.DeploymentStrategy{Type: strategy, RollingUpdate: &appsv1.RollingUpdateDeployment{
			MaxUnavailable: ptr.To(intstr.FromInt32(1)), MaxSurge: ptr.To(intstr.FromInt32(surge))}}
		return dep
	}
	rs := func(name string, n int32) *appsv1.ReplicaSet {
		r := testutil.TemplateReplicaSet(testutil.ImageDeployment("nginx"), name, "", metav1.Time{})
		r.Spec.Replicas = ptr.To(n)
		return r
	}
	nilSurge := d(appsv1.RollingUpdateDeploymentStrategyType, 3, 1)
	nilSurge.Spec.Strategy.RollingUpdate.MaxSurge = nil
	badSurge := d(appsv1.RollingUpdateDeploymentStrategyType, 3, 1)
	badSurge.Spec.Strategy.RollingUpdate.MaxSurge = ptr.To(intstr.FromString("x"))
	tests := []struct {
		name      string
		d         *appsv1.Deployment
		newRS     *appsv1.ReplicaSet
		want      int32
		wantField string
		wantErr   bool
		reason    string
	}{
		{name: "cannot scale up", d: d(appsv1.RollingUpdateDeploymentStrategyType, 1, 1), newRS: rs("new", 5), want: 5,
			reason: "upstream: the other ReplicaSets already hold 5 ≥ 1 + maxSurge 1 pods, so the new ReplicaSet keeps its 5"},
		{name: "scale up to replicas", d: d(appsv1.RollingUpdateDeploymentStrategyType, 6, 10), newRS: rs("new", 2), want: 6,
			reason: "upstream: room for 16 − 5 = 11 more pods, but the new ReplicaSet never passes spec.replicas: 2 + min(11, 4) = 6"},
		{name: "recreate", d: d(appsv1.RecreateDeploymentStrategyType, 3, 1), newRS: rs("new", 1), want: 3,
			reason: "upstream: Recreate runs the new ReplicaSet at spec.replicas"},
		{name: "nil maxSurge", d: nilSurge, newRS: rs("new", 1), wantErr: true, wantField: "spec.strategy.rollingUpdate.maxSurge",
			reason: "upstream reads maxSurge directly here: nil is an error"},
		{name: "bad maxSurge", d: badSurge, newRS: rs("new", 1), wantErr: true,
			reason: "a maxSurge that is not a percentage is an error"},
		{name: "unknown strategy", d: d("Canary", 3, 1), newRS: rs("new", 1), wantErr: true, wantField: "spec.strategy.type",
			reason: "upstream: deployment type isn't supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			all := []*appsv1.ReplicaSet{rs("rs5", 5)}
			frozen := testutil.Freeze(t, tt.d, all, tt.newRS)
			got, err := facts.NewReplicaSetReplicas(tt.d, all, tt.newRS)
			frozen.Check(t)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v (%s)", err, tt.wantErr, tt.reason)
			}
			if tt.wantField != "" {
				var ie *deployutil.InputError
				if !errors.As(err, &ie) || ie.Field != tt.wantField || !errors.Is(err, deployutil.ErrInvalidInput) {
					t.Errorf("err = %v, want an InputError for %s", err, tt.wantField)
				}
			}
			if got != tt.want {
				t.Errorf("NewReplicaSetReplicas = %d, want %d (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

// TestIsSaturated restates the IsSaturated part of upstream's
// TestAnnotationUtils and adds the ways a ReplicaSet falls short.
func TestIsSaturated(t *testing.T) {
	d := testutil.ImageDeployment("nginx")
	rs := func(desired string, spec, available int32) *appsv1.ReplicaSet {
		r := testutil.TemplateReplicaSet(d, "nginx-1", "", metav1.Time{})
		r.Annotations = map[string]string{deployutil.DesiredReplicasAnnotation: desired}
		r.Spec.Replicas = ptr.To(spec)
		r.Status.AvailableReplicas = available
		return r
	}
	tests := []struct {
		name   string
		rs     *appsv1.ReplicaSet
		want   bool
		reason string
	}{
		{name: "saturated", rs: rs("1", 1, 1), want: true, reason: "upstream: desired 1, size 1, 1 available for a 1-replica Deployment"},
		{name: "nil", rs: nil, want: false, reason: "no new ReplicaSet is not saturated"},
		{name: "desired differs", rs: rs("2", 1, 1), want: false, reason: "sized for another spec.replicas"},
		{name: "desired unreadable", rs: rs("one", 1, 1), want: false, reason: "an annotation that is not a number"},
		{name: "not available", rs: rs("1", 1, 0), want: false, reason: "upstream's TestScale: a saturated size with nothing available is not saturated"},
		{name: "size differs", rs: rs("1", 2, 1), want: false, reason: "the size must be spec.replicas"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, d, tt.rs)
			got := facts.IsSaturated(d, tt.rs)
			frozen.Check(t)
			if got != tt.want {
				t.Errorf("IsSaturated = %v, want %v (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

// TestAnnotationReadersAgreeWithUpstream reads desired-replicas strings
// that are not plain int32 digits with both of upstream's readers: IsSaturated
// (strconv.Atoi, then int32(...) keeping the low 32 bits) and
// DesiredReplicas (upstream's GetDesiredReplicasAnnotation: strconv.ParseUint
// with 32 bits, at most 2³¹−1). Every expected value was printed by running
// upstream's IsSaturated and GetDesiredReplicasAnnotation (k8s.io/kubernetes
// v1.37.2) on the same ReplicaSet, whose size and available replicas equal
// replicas.
func TestAnnotationReadersAgreeWithUpstream(t *testing.T) {
	tests := []struct {
		annotation    string
		replicas      int32
		wantSaturated bool
		wantDesired   int32
		wantOK        bool
		reason        string
	}{
		{"2147483648", math.MinInt32, true, 0, false, "Atoi reads 2³¹, whose low 32 bits are −2³¹; ParseUint's value is above 2³¹−1"},
		{"2147483648", 5, false, 0, false, "the same annotation against an ordinary size"},
		{"4294967296", 0, true, 0, false, "2³² keeps low bits 0: saturated at 0 replicas"},
		{"4294967296", 5, false, 0, false, "and not at 5"},
		{"4294967299", 3, true, 0, false, "2³²+3 reads as 3 in IsSaturated"},
		{"4294967299", 5, false, 0, false, "and not as 5"},
		{"-1", 5, false, 0, false, "−1 is not 5; ParseUint refuses a sign"},
		{"-2147483649", math.MaxInt32, true, 0, false, "−2³¹−1 wraps to 2³¹−1"},
		{"-4294967291", 5, true, 0, false, "−2³²+5 keeps low bits 5"},
		{"18446744073709551621", 5, false, 0, false, "beyond int64: Atoi refuses it"},
		{"+5", 5, true, 0, false, "Atoi accepts a plus sign, ParseUint does not"},
		{"007", 5, false, 7, true, "7 is not 5"},
		{" 5", 5, false, 0, false, "neither reader trims spaces"},
		{"5", 5, true, 5, true, "plain digits"},
	}
	for _, tt := range tests {
		t.Run(tt.annotation, func(t *testing.T) {
			d := testutil.ImageDeployment("nginx")
			d.Spec.Replicas = ptr.To(tt.replicas)
			rs := testutil.TemplateReplicaSet(d, "nginx-1", "", metav1.Time{})
			rs.Annotations = map[string]string{deployutil.DesiredReplicasAnnotation: tt.annotation}
			rs.Spec.Replicas = ptr.To(tt.replicas)
			rs.Status.AvailableReplicas = tt.replicas
			if got := facts.IsSaturated(d, rs); got != tt.wantSaturated {
				t.Errorf("IsSaturated(%q, replicas %d) = %v, want %v (%s)", tt.annotation, tt.replicas, got, tt.wantSaturated, tt.reason)
			}
			if got, ok := facts.DesiredReplicas(rs); got != tt.wantDesired || ok != tt.wantOK {
				t.Errorf("DesiredReplicas(%q) = %d, %v, want %d, %v (%s)", tt.annotation, got, ok, tt.wantDesired, tt.wantOK, tt.reason)
			}
		})
	}
}
