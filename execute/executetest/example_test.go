package executetest_test

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/execute"
	"github.com/deploysync/deploysync/execute/executetest"
)

// A new Deployment's plan creates its ReplicaSet, records an event and
// writes the status. The fake refuses the status write with a conflict:
// execute.Plan stops there and asks for a rate-limited requeue; the next sync,
// from the server's state, writes the status.
func Example() {
	d := deployutil.SetDefaults(&appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "d-uid", Generation: 1},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	})
	now := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	server := executetest.New([]*appsv1.Deployment{d}, nil,
		executetest.Fault{Call: "UpdateDeploymentStatus", N: 1, Kind: executetest.Conflict})

	for sync := 1; sync <= 2; sync++ {
		s := server.State("default", "web")
		s.Now = now
		plan, err := deploysync.Sync(s)
		if err != nil {
			panic(err)
		}
		res, err := execute.Plan(context.Background(), server, s, plan)
		fmt.Printf("sync %d: %d done, %d not done, conflict %v, requeue %v\n",
			sync, len(res.Done), len(res.NotDone), apierrors.IsConflict(err), res.Requeue)
	}
	st := server.State("default", "web")
	fmt.Println("replicasets:", len(st.ReplicaSets), "revision:", st.Deployment.Annotations[deployutil.RevisionAnnotation])
	// Output:
	// sync 1: 2 done, 0 not done, conflict true, requeue true
	// sync 2: 1 done, 0 not done, conflict false, requeue false
	// replicasets: 1 revision: 1
}
