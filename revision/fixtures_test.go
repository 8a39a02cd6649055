package revision_test

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// replicaSet is the shape of upstream's newRSWithStatus and rs helpers:
// spec and status replicas, a creation time `age` minutes after testutil.Epoch, and
// a revision annotation unless revision is "".
func replicaSet(name string, spec, status int32, age int, revision string) *appsv1.ReplicaSet {
	opts := []testutil.ReplicaSetOption{testutil.Selecting(map[string]string{"foo": "bar"}), testutil.Status(status, 0, 0),
		testutil.Created(testutil.Epoch().Add(time.Duration(age) * time.Minute))}
	if revision != "" {
		opts = append(opts, testutil.Annotated(map[string]string{deployutil.RevisionAnnotation: revision}))
	}
	return testutil.ReplicaSet(name, spec, opts...)
}
