package rolling_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/rolling"
)

// The start of a rolling update of 10 replicas with maxSurge 3 and
// maxUnavailable 2. A sync that grows the new ReplicaSet stops there; the
// next sync, seeing the new pods not yet available, shrinks the old
// ReplicaSet by what maxUnavailable allows.
func Example() {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "foo", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](10),
			Strategy: appsv1.DeploymentStrategy{
				Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxSurge:       ptr.To(intstr.FromInt32(3)),
					MaxUnavailable: ptr.To(intstr.FromInt32(2)),
				},
			},
		},
	}
	// replicaSet is a ReplicaSet of size replicas with available pods.
	replicaSet := func(name string, replicas, available int32) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec:       appsv1.ReplicaSetSpec{Replicas: ptr.To(replicas)},
			Status:     appsv1.ReplicaSetStatus{Replicas: replicas, ReadyReplicas: available, AvailableReplicas: available},
		}
	}
	oldRS := replicaSet("foo-v1", 10, 10)
	newRS := replicaSet("foo-v2", 0, 0)

	// First sync.
	s, ok, err := rolling.ScaleNew(d, []*appsv1.ReplicaSet{oldRS, newRS}, newRS)
	if err != nil || !ok {
		panic("the new ReplicaSet should grow")
	}
	fmt.Printf("%s: %d → %d (%s)\n", s.To.Name, *s.From.Spec.Replicas, *s.To.Spec.Replicas, s.Why)

	// Next sync: the new ReplicaSet has 3 pods, none available yet.
	newRS = replicaSet("foo-v2", 3, 0)
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
