package deploysync_test

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/simulate"
)

// A rollout held at 30% of its replicas: 10 replicas of nginx:1 at rest,
// the image changed to nginx:2, synced under a limit of 30% (3 replicas)
// until nothing is left to do. The new ReplicaSet ends with 3, the old one
// with 7, and Progressing says why the rollout stops there.
func ExampleWithLimits() {
	d := exampleDeployment()
	d.Spec.Replicas = ptr.To[int32](10)
	s, err := simulate.Steady(d, time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC))
	if err != nil {
		panic(err)
	}
	limit := intstr.FromString("30%")
	tl, err := simulate.Run(s,
		simulate.WithChanges(simulate.SetImage(0, "web", "nginx:2")),
		simulate.WithSyncOptions(deploysync.WithLimits(deploysync.Limits{MaxUpdated: &limit})))
	if err != nil {
		panic(err)
	}
	for _, rs := range tl.Final.ReplicaSets {
		fmt.Println(rs.Spec.Template.Spec.Containers[0].Image, *rs.Spec.Replicas)
	}
	for _, c := range tl.Final.Deployment.Status.Conditions {
		if c.Type == "Progressing" {
			fmt.Println(c.Status, c.Reason, c.Message)
		}
	}
	fmt.Println(tl.Outcome)
	// Output:
	// nginx:1 7
	// nginx:2 3
	// True RolloutLimited ReplicaSet "web-7cb486c8b6" is held at maxUpdated 30% (3 of 10 replicas).
	// Held
}
