package facts_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// TestReplicasAnnotationsNeedUpdate restates upstream's
// TestReplicasAnnotationsNeedUpdate (4 rows), for desired 10 and max 20.
func TestReplicasAnnotationsNeedUpdate(t *testing.T) {
	rs := func(a map[string]string) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: "test", Annotations: a}}
	}
	tests := []struct {
		name   string
		rs     *appsv1.ReplicaSet
		want   bool
		reason string
	}{
		{name: "nil annotations", rs: rs(nil), want: true, reason: "upstream: a ReplicaSet without annotations needs them"},
		{name: "desired differs", rs: rs(map[string]string{deployutil.DesiredReplicasAnnotation: "8", deployutil.MaxReplicasAnnotation: "20"}), want: true,
			reason: "upstream: desired-replicas 8 is not 10"},
		{name: "max differs", rs: rs(map[string]string{deployutil.DesiredReplicasAnnotation: "10", deployutil.MaxReplicasAnnotation: "16"}), want: true,
			reason: "upstream: max-replicas 16 is not 20"},
		{name: "up to date", rs: rs(map[string]string{deployutil.DesiredReplicasAnnotation: "10", deployutil.MaxReplicasAnnotation: "20"}), want: false,
			reason: "upstream: both already say 10 and 20"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, tt.rs)
			got := facts.ReplicasAnnotationsNeedUpdate(tt.rs, 10, 20)
			frozen.Check(t)
			if got != tt.want {
				t.Errorf("ReplicasAnnotationsNeedUpdate = %v, want %v (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

// TestWithReplicasAnnotations restates the SetReplicasAnnotations part of
// upstream's TestAnnotationUtils (desired 10, max 11 on a ReplicaSet
// without them) and adds the unchanged case.
func TestWithReplicasAnnotations(t *testing.T) {
	tests := []struct {
		name        string
		in          map[string]string
		want        map[string]string
		wantChanged bool
		reason      string
	}{
		{name: "set", in: map[string]string{deployutil.RevisionAnnotation: "20"},
			want:        map[string]string{deployutil.RevisionAnnotation: "20", deployutil.DesiredReplicasAnnotation: "10", deployutil.MaxReplicasAnnotation: "11"},
			wantChanged: true, reason: "upstream: both annotations are written as decimal numbers, others kept"},
		{name: "nil map", in: nil,
			want:        map[string]string{deployutil.DesiredReplicasAnnotation: "10", deployutil.MaxReplicasAnnotation: "11"},
			wantChanged: true, reason: "a ReplicaSet without annotations gets a new map"},
		{name: "unchanged", in: map[string]string{deployutil.DesiredReplicasAnnotation: "10", deployutil.MaxReplicasAnnotation: "11"},
			want:        map[string]string{deployutil.DesiredReplicasAnnotation: "10", deployutil.MaxReplicasAnnotation: "11"},
			wantChanged: false, reason: "already right: reported unchanged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			before := cloneMap(tt.in)
			got, changed := facts.WithReplicasAnnotations(tt.in, 10, 11)
			if diff := cmp.Diff(before, tt.in); diff != "" {
				t.Errorf("the argument was modified:\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" || changed != tt.wantChanged {
				t.Errorf("changed = %v, want %v; annotations (-want +got):\n%s\n(%s)", changed, tt.wantChanged, diff, tt.reason)
			}
		})
	}
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestReadReplicasAnnotations(t *testing.T) {
	tests := []struct {
		name                 string
		annotations          map[string]string
		wantDesired, wantMax int32
		wantOK               bool
		reason               string
	}{
		{name: "both", annotations: map[string]string{deployutil.DesiredReplicasAnnotation: "4", deployutil.MaxReplicasAnnotation: "5"},
			wantDesired: 4, wantMax: 5, wantOK: true, reason: "both annotations readable"},
		{name: "neither", wantOK: false, reason: "missing annotations are not readable (the ReplicaSet is ignored by scaling-event detection)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Annotations: tt.annotations}}
			frozen := testutil.Freeze(t, rs)
			d, okD := facts.DesiredReplicas(rs)
			m, okM := facts.MaxReplicasAnnotationValue(rs)
			frozen.Check(t)
			if d != tt.wantDesired || m != tt.wantMax || okD != tt.wantOK || okM != tt.wantOK {
				t.Errorf("got %d/%v %d/%v, want %d %d %v (%s)", d, okD, m, okM, tt.wantDesired, tt.wantMax, tt.wantOK, tt.reason)
			}
		})
	}
}

func TestCopyDeploymentAnnotations(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
		"team": "blue", deployutil.ChangeCauseAnnotation: "v2",
		deployutil.RevisionAnnotation: "7", deployutil.RevisionHistoryAnnotation: "1,2", deployutil.DesiredReplicasAnnotation: "3",
		deployutil.MaxReplicasAnnotation: "4", deployutil.RollbackToAnnotation: "0", corev1.LastAppliedConfigAnnotation: "{}",
	}}}
	tests := []struct {
		name        string
		rs          map[string]string
		want        map[string]string
		wantChanged bool
		reason      string
	}{
		{name: "copies", rs: map[string]string{deployutil.RevisionAnnotation: "2", "old": "kept"},
			want:        map[string]string{deployutil.RevisionAnnotation: "2", "old": "kept", "team": "blue", deployutil.ChangeCauseAnnotation: "v2"},
			wantChanged: true,
			reason:      "every annotation but the controller's own and kubectl's last-applied is copied; the ReplicaSet's extra ones stay (upstream never deletes)"},
		{name: "already copied", rs: map[string]string{"team": "blue", deployutil.ChangeCauseAnnotation: "v2"},
			want:        map[string]string{"team": "blue", deployutil.ChangeCauseAnnotation: "v2"},
			wantChanged: false, reason: "equal values are not a change"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, d)
			before := cloneMap(tt.rs)
			got, changed := facts.CopyDeploymentAnnotations(d, tt.rs)
			frozen.Check(t)
			if diff := cmp.Diff(before, tt.rs); diff != "" {
				t.Errorf("the argument was modified:\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" || changed != tt.wantChanged {
				t.Errorf("changed = %v, want %v; (-want +got):\n%s\n(%s)", changed, tt.wantChanged, diff, tt.reason)
			}
		})
	}
}

func TestRollbackAnnotations(t *testing.T) {
	tests := []struct {
		name   string
		d, rs  map[string]string
		want   map[string]string
		reason string
	}{
		{name: "swap",
			d:      map[string]string{deployutil.RevisionAnnotation: "2", deployutil.ChangeCauseAnnotation: "v2", "team": "blue", deployutil.RollbackToAnnotation: "0"},
			rs:     map[string]string{deployutil.RevisionAnnotation: "1", deployutil.ChangeCauseAnnotation: "v1", deployutil.DesiredReplicasAnnotation: "3"},
			want:   map[string]string{deployutil.RevisionAnnotation: "2", deployutil.RollbackToAnnotation: "0", deployutil.ChangeCauseAnnotation: "v1"},
			reason: "a rollback: the Deployment keeps its controller annotations and takes every other one from the ReplicaSet (team=blue is dropped)"},
		{name: "nothing", d: nil, rs: nil, want: map[string]string{},
			reason: "the result is never nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: tt.d}}
			rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Annotations: tt.rs}}
			frozen := testutil.Freeze(t, d, rs)
			got := facts.RollbackAnnotations(d, rs)
			frozen.Check(t)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\n(%s)", diff, tt.reason)
			}
		})
	}
}
