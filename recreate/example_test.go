package recreate_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/recreate"
)

// A Recreate rollout in three syncs: the old ReplicaSet is scaled to zero;
// while one of its pods is still terminating nothing else happens; once
// none is left the new ReplicaSet is started at full size.
func Example() {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "foo", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
		},
	}
	replicaSet := func(name string, uid types.UID, replicas int32) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: uid},
			Spec:       appsv1.ReplicaSetSpec{Replicas: ptr.To(replicas)},
			Status:     appsv1.ReplicaSetStatus{Replicas: replicas},
		}
	}
	oldRS := replicaSet("foo-v1", "uid-v1", 3)
	newRS := replicaSet("foo-v2", "uid-v2", 0)

	for _, s := range recreate.ScaleDownOld(d, []*appsv1.ReplicaSet{oldRS}) {
		fmt.Printf("%s: %d → %d\n", s.To.Name, *s.From.Spec.Replicas, *s.To.Spec.Replicas)
	}

	// The pods of each ReplicaSet, by its UID; one old pod is still running.
	oldRS = replicaSet("foo-v1", "uid-v1", 0)
	running := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "foo-v1-abcde"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	pods := map[types.UID][]*corev1.Pod{"uid-v1": {running}}
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
	// wait: old pod foo-v1-abcde of ReplicaSet foo-v1 has not finished (Running)
	// foo-v2: 0 → 3
}
