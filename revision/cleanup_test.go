package revision_test

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/revision"
)

// TestCleanup restates upstream's TestDeploymentController_cleanupDeployment
// (6 rows, which count deletions) and
// TestDeploymentController_cleanupDeploymentOrder (7 rows, which name
// them), and adds the generation rule. Where upstream only counts, the
// names follow from its ordering: equal (missing) revisions fall back to
// creation time, then name.
func TestCleanup(t *testing.T) {
	deleting := replicaSet("foo-1", 0, 0, 0, "")
	deleting.DeletionTimestamp = ptr.To(metav1.NewTime(testutil.Epoch()))
	unobserved := replicaSet("foo-1", 0, 0, 0, "1")
	unobserved.Generation, unobserved.Status.ObservedGeneration = 2, 1
	tests := []struct {
		name   string
		limit  *int32
		old    []*appsv1.ReplicaSet
		want   []string
		reason string
	}{
		// Upstream's TestDeploymentController_cleanupDeployment.
		{name: "limit 1 of 3", limit: ptr.To[int32](1),
			old:  []*appsv1.ReplicaSet{replicaSet("foo-1", 0, 0, 0, ""), replicaSet("foo-2", 0, 0, 0, ""), replicaSet("foo-3", 0, 0, 0, "")},
			want: []string{"foo-1", "foo-2"}, reason: "upstream: 2 deletions keep 1 of 3 scaled-down ReplicaSets"},
		{name: "only fully scaled down", limit: ptr.To[int32](0),
			old: []*appsv1.ReplicaSet{replicaSet("foo-1", 0, 0, 0, ""), replicaSet("foo-2", 0, 1, 0, ""),
				replicaSet("foo-3", 1, 0, 0, ""), replicaSet("foo-4", 1, 1, 0, "")},
			want: []string{"foo-1"}, reason: "upstream: 1 deletion: only spec 0 and status 0 may go"},
		{name: "limit 0 of 2", limit: ptr.To[int32](0),
			old:  []*appsv1.ReplicaSet{replicaSet("foo-1", 0, 0, 0, ""), replicaSet("foo-2", 0, 0, 0, "")},
			want: []string{"foo-1", "foo-2"}, reason: "upstream: 2 deletions keep none"},
		{name: "none scaled down", limit: ptr.To[int32](0),
			old:  []*appsv1.ReplicaSet{replicaSet("foo-1", 1, 1, 0, ""), replicaSet("foo-2", 1, 1, 0, "")},
			want: nil, reason: "upstream: 0 deletions while they run pods"},
		{name: "already being deleted", limit: ptr.To[int32](0), old: []*appsv1.ReplicaSet{deleting},
			want: nil, reason: "upstream: 0 deletions: one being deleted does not count and is not deleted again"},
		{name: "unlimited", limit: ptr.To[int32](math.MaxInt32),
			old:  []*appsv1.ReplicaSet{replicaSet("foo-1", 0, 0, 0, ""), replicaSet("foo-2", 0, 0, 0, ""), replicaSet("foo-3", 0, 0, 0, "")},
			want: nil, reason: "upstream: 0 deletions: MaxInt32 keeps everything"},

		// Upstream's TestDeploymentController_cleanupDeploymentOrder; foo-1
		// is created first, then foo-2, foo-3, foo-4.
		{name: "revision order is creation order", limit: ptr.To[int32](1),
			old:  []*appsv1.ReplicaSet{replicaSet("foo-1", 0, 0, -1, "1"), replicaSet("foo-2", 0, 0, 0, "2")},
			want: []string{"foo-1"}, reason: "upstream: the lower revision goes"},
		{name: "revision order against creation order", limit: ptr.To[int32](1),
			old:  []*appsv1.ReplicaSet{replicaSet("foo-1", 0, 0, -1, "2"), replicaSet("foo-2", 0, 0, 0, "1")},
			want: []string{"foo-2"}, reason: "upstream: revisions decide, not age"},
		{name: "newer without revision", limit: ptr.To[int32](1),
			old:  []*appsv1.ReplicaSet{replicaSet("foo-1", 0, 0, -1, "1"), replicaSet("foo-2", 0, 0, 0, "")},
			want: []string{"foo-2"}, reason: "upstream: a missing revision is 0, the lowest"},
		{name: "older without revision", limit: ptr.To[int32](1),
			old:  []*appsv1.ReplicaSet{replicaSet("foo-1", 0, 0, -1, ""), replicaSet("foo-2", 0, 0, 0, "2")},
			want: []string{"foo-1"}, reason: "upstream: the same the other way round"},
		{name: "lowest still has replicas", limit: ptr.To[int32](1),
			old:  []*appsv1.ReplicaSet{replicaSet("foo-1", 1, 1, -1, "1"), replicaSet("foo-2", 0, 0, 0, "2"), replicaSet("foo-3", 0, 0, 1, "3")},
			want: []string{"foo-2"}, reason: "upstream: foo-1 is skipped (not replaced by foo-3): only the two lowest are visited"},
		{name: "two lowest have replicas", limit: ptr.To[int32](1),
			old:  []*appsv1.ReplicaSet{replicaSet("foo-1", 1, 1, -1, "1"), replicaSet("foo-2", 1, 1, 0, "2"), replicaSet("foo-3", 0, 0, 1, "3")},
			want: nil, reason: "upstream: nothing is deleted, foo-3 is kept although it could go"},
		{name: "shuffled revisions", limit: ptr.To[int32](2),
			old: []*appsv1.ReplicaSet{replicaSet("foo-1", 0, 0, -1, "3"), replicaSet("foo-2", 0, 0, 0, "1"),
				replicaSet("foo-3", 0, 0, 1, "4"), replicaSet("foo-4", 0, 0, 2, "2")},
			want: []string{"foo-2", "foo-4"}, reason: "upstream: revisions 1 and 2 go"},

		{name: "generation not observed", limit: ptr.To[int32](0), old: []*appsv1.ReplicaSet{unobserved},
			want: nil, reason: "a scale-down its controller has not observed yet may still have pods"},
		{name: "no limit", limit: nil, old: []*appsv1.ReplicaSet{replicaSet("foo-1", 0, 0, 0, "")},
			want: nil, reason: "a nil revisionHistoryLimit keeps everything"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d := testutil.Deployment("foo", 1, testutil.HistoryLimit(tt.limit))
			frozen := testutil.Freeze(t, d, tt.old)
			got := revision.Cleanup(d, tt.old)
			frozen.Check(t)
			var gotNames []string
			for _, del := range got {
				if len(del.Why) == 0 {
					t.Errorf("deletion of %s has no reason", del.ReplicaSet.Name)
				}
				gotNames = append(gotNames, del.ReplicaSet.Name)
			}
			if diff := cmp.Diff(tt.want, gotNames); diff != "" {
				t.Errorf("deleted (-want +got):\n%s\n(%s)", diff, tt.reason)
			}
		})
	}
}
