package revision_test

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/revision"
)

// With revisionHistoryLimit 1, a Deployment keeps one old ReplicaSet: the
// lowest revisions go, but only once they are scaled down to zero.
func ExampleCleanup() {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "foo", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To[int32](3),
			RevisionHistoryLimit: ptr.To[int32](1),
			Selector:             &metav1.LabelSelector{MatchLabels: map[string]string{"app": "foo"}},
		},
	}
	// old is a ReplicaSet at a revision with spec.replicas and
	// status.replicas, created a minutes after midnight.
	old := func(name string, spec, status int32, a int, rev string) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{
				Name: name, Namespace: "default",
				Labels:            map[string]string{"app": "foo"},
				Annotations:       map[string]string{deployutil.RevisionAnnotation: rev},
				CreationTimestamp: metav1.NewTime(time.Date(2026, 5, 20, 0, a, 0, 0, time.UTC)),
			},
			Spec:   appsv1.ReplicaSetSpec{Replicas: ptr.To(spec)},
			Status: appsv1.ReplicaSetStatus{Replicas: status},
		}
	}
	olds := []*appsv1.ReplicaSet{
		old("foo-rev1", 0, 0, 0, "1"),
		old("foo-rev2", 0, 0, 1, "2"),
		old("foo-rev3", 1, 1, 2, "3"), // still running a pod
	}
	for _, del := range revision.Cleanup(d, olds) {
		fmt.Println("delete", del.ReplicaSet.Name)
	}
	// Output:
	// delete foo-rev1
	// delete foo-rev2
}

// "kubectl rollout undo" without --to-revision rolls back to the revision
// before the highest one.
func ExampleRollbackTarget() {
	var rss []*appsv1.ReplicaSet
	for i, name := range []string{"foo-a", "foo-b", "foo-c"} {
		rss = append(rss, &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "default",
			Annotations: map[string]string{deployutil.RevisionAnnotation: fmt.Sprint(i + 1)},
		}})
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
