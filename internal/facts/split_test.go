package facts_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// TestSplitReplicaSets restates upstream's TestFindOldReplicaSets (4 rows):
// the old ReplicaSets are all but the new one, and upstream's "required"
// ones are the active old ones.
func TestSplitReplicaSets(t *testing.T) {
	now := metav1.NewTime(time.Date(2017, 2, 15, 18, 49, 0, 0, time.UTC))
	later, before := metav1.NewTime(now.Add(time.Minute)), metav1.NewTime(now.Add(-time.Minute))
	d := testutil.ImageDeployment("nginx")
	newRS := testutil.TemplateReplicaSet(d, "nginx-new", "hash", later)
	newRS.Spec.Replicas = ptr.To[int32](1)
	newRSDup := testutil.TemplateReplicaSet(d, "nginx-dup", "different-hash", now)
	old := testutil.ImageDeployment("nginx")
	old.Spec.Template.Spec.Containers[0].Name = "nginx-old-1"
	oldRS := testutil.TemplateReplicaSet(old, "nginx-old", "", before)
	tests := []struct {
		name         string
		rss          []*appsv1.ReplicaSet
		wantNew      *appsv1.ReplicaSet
		wantOld      []string
		wantRequired []string
		reason       string
	}{
		{name: "old", rss: []*appsv1.ReplicaSet{newRS, oldRS}, wantNew: newRS, wantOld: []string{"nginx-old"},
			reason: "upstream: the old ReplicaSet at 0 is old but not required"},
		{name: "no new", rss: []*appsv1.ReplicaSet{oldRS}, wantNew: nil, wantOld: []string{"nginx-old"},
			reason: "upstream: without a new ReplicaSet every one is old"},
		{name: "two new", rss: []*appsv1.ReplicaSet{oldRS, newRS, newRSDup}, wantNew: newRSDup, wantOld: []string{"nginx-old", "nginx-new"},
			wantRequired: []string{"nginx-new"},
			reason:       "upstream: only the oldest matching one is new; the younger twin (size 1) is old and required"},
		{name: "only new", rss: []*appsv1.ReplicaSet{newRS}, wantNew: newRS, wantOld: nil,
			reason: "upstream: no old ReplicaSets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, d, tt.rss)
			gotNew, gotOld := facts.SplitReplicaSets(d, tt.rss)
			frozen.Check(t)
			if gotNew != tt.wantNew {
				t.Errorf("new = %s, want %s (%s)", name(gotNew), name(tt.wantNew), tt.reason)
			}
			if diff := cmp.Diff(tt.wantOld, names(gotOld)); diff != "" {
				t.Errorf("old (-want +got):\n%s\n(%s)", diff, tt.reason)
			}
			if diff := cmp.Diff(tt.wantRequired, names(facts.FilterActive(gotOld))); diff != "" {
				t.Errorf("required (-want +got):\n%s\n(%s)", diff, tt.reason)
			}
		})
	}
}

func name(rs *appsv1.ReplicaSet) string {
	if rs == nil {
		return "<nil>"
	}
	return rs.Name
}
