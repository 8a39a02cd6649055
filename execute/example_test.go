package execute_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/execute"
	"github.com/deploysync/deploysync/execute/executetest"
)

// web is a new Deployment of two nginx replicas, as the apiserver
// stores it.
func web() *appsv1.Deployment {
	return deployutil.SetDefaults(&appsv1.Deployment{
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
}

// A controller's sync: read the state, let deploysync.Sync decide, and
// perform the plan through a Client (here the in-memory one of
// executetest; a controller passes its own over client-go or
// controller-runtime). The Result says what was done and when to sync
// again; Written is the Deployment as the server answered its last write.
func Example() {
	server := executetest.New([]*appsv1.Deployment{web()}, nil)
	s := server.State("default", "web")
	s.Now = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	plan, err := deploysync.Sync(s)
	if err != nil {
		panic(err)
	}
	res, err := execute.Plan(context.Background(), server, s, plan)
	if err != nil {
		panic(err)
	}
	for _, a := range res.Done {
		fmt.Printf("done: %T\n", a)
	}
	fmt.Println("requeue:", res.Requeue, "written at resourceVersion", res.Written.ResourceVersion)
	// Output:
	// done: *action.CreateReplicaSet
	// done: *action.Event
	// done: *action.UpdateDeploymentStatus
	// requeue: false written at resourceVersion 3
}

// A write that times out may have taken effect: Plan stops there, does
// not retry it, and says the outcome is unknown. The next sync, from the
// server's state, finds the ReplicaSet the create made after all.
func ExamplePlan_unknownOutcome() {
	server := executetest.New([]*appsv1.Deployment{web()}, nil,
		executetest.Fault{Call: "CreateReplicaSet", N: 1, Kind: executetest.TimeoutAfterWrite})
	now := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	for sync := 1; sync <= 2; sync++ {
		s := server.State("default", "web")
		s.Now = now
		plan, err := deploysync.Sync(s)
		if err != nil {
			panic(err)
		}
		res, err := execute.Plan(context.Background(), server, s, plan)
		var ae *execute.ActionError
		if errors.As(err, &ae) {
			fmt.Printf("sync %d: action %d (%T) failed, outcome unknown %v, %d not done, requeue %v\n",
				sync, ae.Index, ae.Action, ae.Unknown, len(res.NotDone), res.Requeue)
			continue
		}
		for _, a := range res.Done {
			fmt.Printf("sync %d: done %T\n", sync, a)
		}
		fmt.Printf("sync %d: error %v, requeue %v\n", sync, err, res.Requeue)
	}
	fmt.Println("replicasets:", len(server.State("default", "web").ReplicaSets))
	// Output:
	// sync 1: action 0 (*action.CreateReplicaSet) failed, outcome unknown true, 2 not done, requeue true
	// sync 2: done *action.UpdateDeploymentStatus
	// sync 2: error <nil>, requeue false
	// replicasets: 1
}
