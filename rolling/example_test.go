package rolling_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/internal/testutil"
	"github.com/deploysync/deploysync/rolling"
)

// The start of a rolling update of 10 replicas with maxSurge 3 and
// maxUnavailable 2. A sync that grows the new ReplicaSet stops there; the
// next sync, seeing the new pods not yet available, shrinks the old
// ReplicaSet by what maxUnavailable allows.
func Example() {
	d := testutil.Deployment("foo", 10, testutil.Fenceposts(3, 2))
	oldRS := testutil.ReplicaSet("foo-v1", 10, testutil.Status(10, 10, 10))
	newRS := testutil.ReplicaSet("foo-v2", 0, testutil.Status(0, 0, 0))

	// First sync.
	s, ok, err := rolling.ScaleNew(d, []*appsv1.ReplicaSet{oldRS, newRS}, newRS)
	if err != nil || !ok {
		panic("the new ReplicaSet should grow")
	}
	fmt.Printf("%s: %d → %d (%s)\n", s.To.Name, *s.From.Spec.Replicas, *s.To.Spec.Replicas, s.Why)

	// Next sync: the new ReplicaSet has 3 pods, none available yet.
	newRS = testutil.ReplicaSet("foo-v2", 3, testutil.Status(3, 0, 0))
	all := []*appsv1.ReplicaSet{oldRS, newRS}
	if _, ok, _ := rolling.ScaleNew(d, all, newRS); !ok {
		scales, _ := rolling.ScaleDownOld(d, all, []*appsv1.ReplicaSet{oldRS}, newRS)
		for _, s := range scales {
			fmt.Printf("%s: %d → %d\n", s.To.Name, *s.From.Spec.Replicas, *s.To.Spec.Replicas)
		}
	}
	// Output:
	// foo-v2: 0 → 3 (scale up new ReplicaSet foo-v2 0→3: maxSurge 3 allows 13 pods, 10 exist)
	// foo-v1: 10 → 8
}
