package scaling_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/internal/testutil"
	"github.com/deploysync/deploysync/scaling"
)

// A Deployment in the middle of a rollout is scaled from 7 to 10 replicas:
// its three ReplicaSets (sized for 7) share the 3 new replicas in
// proportion to their sizes, the leftover going to the largest.
func ExampleResizes() {
	d := testutil.Deployment("foo", 10, testutil.Fenceposts(0, 1))
	newRS := replicaSet("foo-v3", 2, newTime, 7, 0)
	old := []*appsv1.ReplicaSet{ // newest first
		replicaSet("foo-v2", 3, oldTime, 7, 0),
		replicaSet("foo-v1", 2, olderTime, 7, 0),
	}
	if scaling.IsScalingEvent(d, newRS, old) {
		for _, s := range scaling.Resizes(d, newRS, old, scaling.Fixes{}) {
			fmt.Printf("%s: %d → %d\n", s.To.Name, *s.From.Spec.Replicas, *s.To.Spec.Replicas)
		}
	}
	// Output:
	// foo-v2: 3 → 4
	// foo-v3: 2 → 3
	// foo-v1: 2 → 3
}
