package facts_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// TestReplicaCounts restates upstream's TestGetReplicaCountForReplicaSets
// (6 rows): the spec sum, the status sum and the terminating sum, whose
// rules for unsynced and unreporting ReplicaSets are the subtle part.
func TestReplicaCounts(t *testing.T) {
	rs := func(name string, spec, status int32, observed int64, terminating *int32) *appsv1.ReplicaSet {
		r := testutil.TemplateReplicaSet(testutil.ImageDeployment(name), name, "", metav1.Time{})
		r.Spec.Replicas = ptr.To(spec)
		r.Status = appsv1.ReplicaSetStatus{Replicas: status, ObservedGeneration: observed, TerminatingReplicas: terminating}
		return r
	}
	// As upstream's fixture: rs1 synced, rs2 never marked as synced but
	// reporting terminating pods, rs3 never synced, rs4 synced without a
	// terminating count (a controller with the feature off).
	rs1 := rs("rs1", 1, 2, 1, ptr.To[int32](3))
	rs2 := rs("rs2", 2, 3, 0, ptr.To[int32](1))
	rs3 := rs("rs3", 3, 0, 0, nil)
	rs4 := rs("rs4", 1, 1, 1, nil)
	tests := []struct {
		name            string
		rss             []*appsv1.ReplicaSet
		wantSpec        int32
		wantStatus      int32
		wantTerminating *int32
		reason          string
	}{
		{name: "rs1", rss: []*appsv1.ReplicaSet{rs1}, wantSpec: 1, wantStatus: 2, wantTerminating: ptr.To[int32](3),
			reason: "upstream: scaling down, 2 pods exist and 3 terminate"},
		{name: "rs1 rs2", rss: []*appsv1.ReplicaSet{rs1, rs2}, wantSpec: 3, wantStatus: 5, wantTerminating: ptr.To[int32](4),
			reason: "upstream: a reported terminating count counts even at observedGeneration 0"},
		{name: "rs3", rss: []*appsv1.ReplicaSet{rs3}, wantSpec: 3, wantStatus: 0, wantTerminating: ptr.To[int32](0),
			reason: "upstream: a never-synced ReplicaSet is skipped, and the sum of nothing is 0, not nil"},
		{name: "rs1 rs2 rs3", rss: []*appsv1.ReplicaSet{rs1, rs2, rs3}, wantSpec: 6, wantStatus: 5, wantTerminating: ptr.To[int32](4),
			reason: "upstream: the unsynced rs3 adds to the spec sum only"},
		{name: "rs4", rss: []*appsv1.ReplicaSet{rs4}, wantSpec: 1, wantStatus: 1, wantTerminating: nil,
			reason: "upstream: a synced ReplicaSet without a terminating count makes the sum unknown"},
		{name: "rs1 rs2 rs3 rs4", rss: []*appsv1.ReplicaSet{rs1, rs2, rs3, rs4}, wantSpec: 7, wantStatus: 6, wantTerminating: nil,
			reason: "upstream: one unknown makes the whole terminating sum unknown"},
		{name: "nil entries", rss: []*appsv1.ReplicaSet{nil, rs1, nil}, wantSpec: 1, wantStatus: 2, wantTerminating: ptr.To[int32](3),
			reason: "nil entries (a missing new ReplicaSet) are skipped by every sum"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, tt.rss)
			spec, status, term := facts.SpecReplicas(tt.rss), facts.StatusReplicas(tt.rss), facts.TerminatingReplicas(tt.rss)
			frozen.Check(t)
			if spec != tt.wantSpec || status != tt.wantStatus {
				t.Errorf("spec %d status %d, want %d %d (%s)", spec, status, tt.wantSpec, tt.wantStatus, tt.reason)
			}
			if !ptr.Equal(term, tt.wantTerminating) {
				t.Errorf("terminating %v, want %v (%s)", ptr.Deref(term, -1), ptr.Deref(tt.wantTerminating, -1), tt.reason)
			}
		})
	}
}

func TestReadyAndAvailableCounts(t *testing.T) {
	a := testutil.TemplateReplicaSet(testutil.ImageDeployment("a"), "a", "", metav1.Time{})
	a.Status = appsv1.ReplicaSetStatus{Replicas: 4, ReadyReplicas: 3, AvailableReplicas: 2}
	b := testutil.TemplateReplicaSet(testutil.ImageDeployment("b"), "b", "", metav1.Time{})
	b.Status = appsv1.ReplicaSetStatus{Replicas: 2, ReadyReplicas: 2, AvailableReplicas: 1}
	rss := []*appsv1.ReplicaSet{a, nil, b}
	tests := []struct {
		name   string
		got    func([]*appsv1.ReplicaSet) int32
		want   int32
		reason string
	}{
		{name: "ready", got: facts.ReadyReplicas, want: 5, reason: "3 + 2 ready, the nil entry skipped"},
		{name: "available", got: facts.AvailableReplicas, want: 3, reason: "2 + 1 available, the nil entry skipped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, rss)
			got := tt.got(rss)
			frozen.Check(t)
			if got != tt.want {
				t.Errorf("got %d, want %d (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

// TestFilterActive restates upstream's TestActiveReplicaSetsFiltering (1
// row) and adds the empty case.
func TestFilterActive(t *testing.T) {
	rs := func(name string, n int32) *appsv1.ReplicaSet {
		r := testutil.TemplateReplicaSet(testutil.ImageDeployment("x"), name, "", metav1.Time{})
		r.Spec.Replicas = ptr.To(n)
		return r
	}
	tests := []struct {
		name   string
		rss    []*appsv1.ReplicaSet
		want   []*appsv1.ReplicaSet
		reason string
	}{
		{name: "filters active", rss: []*appsv1.ReplicaSet{rs("zero", 0), nil, rs("foo", 1), rs("bar", 2)},
			want:   []*appsv1.ReplicaSet{rs("foo", 1), rs("bar", 2)},
			reason: "upstream: zero-sized and nil entries are dropped, the order kept"},
		{name: "none active", rss: []*appsv1.ReplicaSet{rs("zero", 0)}, want: nil,
			reason: "upstream returns a nil slice when nothing is active"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, tt.rss)
			got := facts.FilterActive(tt.rss)
			frozen.Check(t)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("FilterActive (-want +got):\n%s\n(%s)", diff, tt.reason)
			}
		})
	}
}
