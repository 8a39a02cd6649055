package deploysync

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func fullStatus() appsv1.DeploymentStatus {
	at := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	return appsv1.DeploymentStatus{
		ObservedGeneration: 3, Replicas: 5, UpdatedReplicas: 4, ReadyReplicas: 3, AvailableReplicas: 2, UnavailableReplicas: 3,
		TerminatingReplicas: ptr.To[int32](1), CollisionCount: ptr.To[int32](2),
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, LastUpdateTime: at, LastTransitionTime: at, Reason: "r", Message: "m"},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, LastUpdateTime: at, LastTransitionTime: at, Reason: "p", Message: "n"},
		},
	}
}

// perturb changes v, settable, to another value reflect.DeepEqual tells
// apart: every kind a status field or a condition field has.
func perturb(t *testing.T, v reflect.Value) {
	t.Helper()
	switch {
	case v.Type() == reflect.TypeFor[metav1.Time]():
		v.Set(reflect.ValueOf(metav1.NewTime(v.Interface().(metav1.Time).Add(time.Second))))
		return
	}
	switch v.Kind() {
	case reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		} else {
			v.Set(reflect.Zero(v.Type()))
		}
	case reflect.Slice:
		v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
	default:
		t.Fatalf("perturb: a field of kind %s (%s): teach sameStatus and this test about it", v.Kind(), v.Type())
	}
}

// TestSameStatusFields changes each field of a status, and each field of
// each of its conditions, one at a time: sameStatus must say what
// reflect.DeepEqual says. A field that k8s.io/api adds and sameStatus does not
// compare fails here.
func TestSameStatusFields(t *testing.T) {
	base := fullStatus()
	require.True(t, sameStatus(&base, ptr.To(fullStatus())), "a status equals its copy")
	st := reflect.TypeFor[appsv1.DeploymentStatus]()
	for i := range st.NumField() {
		b := fullStatus()
		perturb(t, reflect.ValueOf(&b).Elem().Field(i))
		require.False(t, reflect.DeepEqual(base, b), "the perturbation of %s must be visible", st.Field(i).Name)
		assert.False(t, sameStatus(&base, &b), "status.%s changed", st.Field(i).Name)
	}
	ct := reflect.TypeFor[appsv1.DeploymentCondition]()
	for c := range base.Conditions {
		for i := range ct.NumField() {
			b := fullStatus()
			perturb(t, reflect.ValueOf(&b.Conditions[c]).Elem().Field(i))
			require.False(t, reflect.DeepEqual(base, b))
			assert.False(t, sameStatus(&base, &b), "conditions[%d].%s changed", c, ct.Field(i).Name)
		}
	}
}

// TestSameStatusEdges: the cases where reflect.DeepEqual is not ==.
func TestSameStatusEdges(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	withTime := func(tm time.Time) appsv1.DeploymentStatus {
		s := fullStatus()
		s.Conditions[0].LastUpdateTime = metav1.NewTime(tm)
		return s
	}
	tests := []struct {
		reason string
		a, b   appsv1.DeploymentStatus
	}{
		{"nil and empty conditions differ for reflect.DeepEqual", appsv1.DeploymentStatus{}, appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{}}},
		{"two nil condition lists are equal", appsv1.DeploymentStatus{}, appsv1.DeploymentStatus{}},
		{"the same instant in another location differs", withTime(at), withTime(at.In(time.FixedZone("X", 3600)))},
		{"two locations deeply equal at different addresses are equal",
			withTime(at.In(time.FixedZone("X", 3600))), withTime(at.In(time.FixedZone("X", 3600)))},
		{"equal pointers' targets are equal", appsv1.DeploymentStatus{CollisionCount: ptr.To[int32](1)}, appsv1.DeploymentStatus{CollisionCount: ptr.To[int32](1)}},
	}
	x, y := at.In(time.FixedZone("X", 3600)), at.In(time.FixedZone("X", 3600))
	require.False(t, x == y, "two FixedZone calls give locations at different addresses")
	require.True(t, reflect.DeepEqual(x, y), "which reflect.DeepEqual finds deeply equal")
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			assert.Equal(t, reflect.DeepEqual(tt.a, tt.b), sameStatus(&tt.a, &tt.b))
		})
	}
}

// TestSemanticSameConditions changes each field of each condition, and
// the list's nil-ness and length: semanticSameConditions must say what
// equality.Semantic.DeepEqual says.
func TestSemanticSameConditions(t *testing.T) {
	base := fullStatus().Conditions
	ct := reflect.TypeFor[appsv1.DeploymentCondition]()
	check := func(t *testing.T, what string, a, b []appsv1.DeploymentCondition) {
		t.Helper()
		assert.Equal(t, equality.Semantic.DeepEqual(a, b), semanticSameConditions(a, b), what)
	}
	check(t, "a copy", base, fullStatus().Conditions)
	for c := range base {
		for i := range ct.NumField() {
			b := fullStatus().Conditions
			perturb(t, reflect.ValueOf(&b[c]).Elem().Field(i))
			require.False(t, equality.Semantic.DeepEqual(base, b))
			check(t, fmt.Sprintf("conditions[%d].%s changed", c, ct.Field(i).Name), base, b)
		}
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	other := fullStatus().Conditions
	other[0].LastUpdateTime = metav1.NewTime(at.In(time.FixedZone("X", 3600)))
	check(t, "the same instant in another location", base, other)
	check(t, "nil and empty", nil, []appsv1.DeploymentCondition{})
	check(t, "one fewer", base, base[:1])
}
