package scaling_test

import (
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// Creation times of upstream's TestScale: older, old and new ReplicaSets.
var (
	olderTime = metav1.NewTime(time.Date(2016, 5, 20, 0, 0, 0, 0, time.UTC))
	oldTime   = metav1.NewTime(time.Date(2016, 5, 20, 1, 0, 0, 0, time.UTC))
	newTime   = metav1.NewTime(time.Date(2016, 5, 20, 2, 0, 0, 0, time.UTC))
)

// replicaSet is the shape of upstream's rs helper: a name, a size and a
// creation time, with the replica annotations a Deployment of desired
// replicas and the given surge would have written (as upstream's TestScale
// sets them from its oldDeployment before each case).
func replicaSet(name string, size int32, created metav1.Time, desired, surge int32) *appsv1.ReplicaSet {
	return testutil.ReplicaSet(name, size, testutil.Created(created.Time), testutil.Annotated(map[string]string{
		deployutil.DesiredReplicasAnnotation: itoa(desired),
		deployutil.MaxReplicasAnnotation:     itoa(desired + surge)}))
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }
