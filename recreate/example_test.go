package recreate_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync/internal/testutil"
	"github.com/deploysync/deploysync/recreate"
)

// A Recreate rollout in three syncs: the old ReplicaSet is scaled to zero;
// while one of its pods is still terminating nothing else happens; once
// none is left the new ReplicaSet is started at full size.
func Example() {
	d := testutil.Deployment("foo", 3, testutil.Recreate)
	oldRS := testutil.ReplicaSet("foo-v1", 3, testutil.UID("uid-v1"), testutil.Status(3, 0, 0))
	newRS := testutil.ReplicaSet("foo-v2", 0, testutil.UID("uid-v2"), testutil.Status(0, 0, 0))

	for _, s := range recreate.ScaleDownOld(d, []*appsv1.ReplicaSet{oldRS}) {
		fmt.Printf("%s: %d → %d\n", s.To.Name, *s.From.Spec.Replicas, *s.To.Spec.Replicas)
	}

	oldRS = testutil.ReplicaSet("foo-v1", 0, testutil.UID("uid-v1"), testutil.Status(0, 0, 0))
	pods := map[types.UID][]*corev1.Pod{"uid-v1": {pod(corev1.PodRunning)}}
	if running, why := recreate.OldPodsRunning([]*appsv1.ReplicaSet{oldRS}, pods); running {
		fmt.Println("wait:", why)
	}

	pods = map[types.UID][]*corev1.Pod{"uid-v1": {}}
	if running, _ := recreate.OldPodsRunning([]*appsv1.ReplicaSet{oldRS}, pods); !running {
		if s, ok := recreate.ScaleUpNew(d, newRS); ok {
			fmt.Printf("%s: %d → %d\n", s.To.Name, *s.From.Spec.Replicas, *s.To.Spec.Replicas)
		}
	}
	// Output:
	// foo-v1: 3 → 0
	// wait: old pod p-Running of ReplicaSet foo-v1 has not finished (Running)
	// foo-v2: 0 → 3
}
