package revision_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/internal/testutil"
	"github.com/deploysync/deploysync/revision"
)

// With revisionHistoryLimit 1, a Deployment keeps one old ReplicaSet: the
// lowest revisions go, but only once they are scaled down to zero.
func ExampleCleanup() {
	d := testutil.Deployment("foo", 3, testutil.HistoryLimit(ptr.To[int32](1)))
	old := []*appsv1.ReplicaSet{
		replicaSet("foo-rev1", 0, 0, 0, "1"),
		replicaSet("foo-rev2", 0, 0, 1, "2"),
		replicaSet("foo-rev3", 1, 1, 2, "3"), // still running a pod
	}
	for _, del := range revision.Cleanup(d, old) {
		fmt.Println("delete", del.ReplicaSet.Name)
	}
	// Output:
	// delete foo-rev1
	// delete foo-rev2
}

// "kubectl rollout undo" without --to-revision rolls back to the revision
// before the highest one.
func ExampleRollbackTarget() {
	rss := []*appsv1.ReplicaSet{
		replicaSet("foo-a", 0, 0, 0, "1"),
		replicaSet("foo-b", 0, 0, 1, "2"),
		replicaSet("foo-c", 3, 3, 2, "3"),
	}
	rs, rev, err := revision.RollbackTarget(rss, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("roll back to revision", rev, "of", rs.Name)

	_, _, err = revision.RollbackTarget(rss, 9)
	fmt.Println(err)
	// Output:
	// roll back to revision 2 of foo-b
	// Unable to find the revision to rollback to.
}
