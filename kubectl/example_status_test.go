package kubectl_test

import (
	"fmt"

	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/kubectl"
)

// A watch loop prints each message until the verdict is done, as `kubectl
// rollout status` does. Here the Deployment is seen three times.
func ExampleRolloutStatus() {
	d := statusDeployment(3, 3, 3)
	d.Status.UpdatedReplicas, d.Status.AvailableReplicas = 1, 1 // mid-rollout
	msg, done, _ := kubectl.RolloutStatus(d, 0)
	fmt.Print(msg, done, "\n")

	d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.AvailableReplicas = 4, 3, 3 // one old replica left
	msg, done, _ = kubectl.RolloutStatus(d, 0)
	fmt.Print(msg, done, "\n")

	d.Status.Replicas = 3
	msg, done, _ = kubectl.RolloutStatus(d, 0)
	fmt.Print(msg, done, "\n")
	// Output:
	// Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been updated...
	// false
	// Waiting for deployment "web" rollout to finish: 1 old replicas are pending termination...
	// false
	// deployment "web" successfully rolled out
	// true
}

// kubectl calls a rollout done while old pods may still be shutting down;
// RolloutStatusWithTerminating waits for them too.
func ExampleRolloutStatusWithTerminating() {
	d := statusDeployment(3, 3, 3)
	d.Status.TerminatingReplicas = ptr.To[int32](1)
	msg, done, _ := kubectl.RolloutStatus(d, 0)
	fmt.Print("kubectl: ", msg)
	msg, done2, _ := kubectl.RolloutStatusWithTerminating(d, 0)
	fmt.Print("with terminating: ", msg)
	fmt.Println(done, done2)
	// Output:
	// kubectl: deployment "web" successfully rolled out
	// with terminating: Waiting for deployment "web" rollout to finish: 1 terminating replicas are still shutting down...
	// true false
}
