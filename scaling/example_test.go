package scaling_test

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/scaling"
)

// A Deployment in the middle of a rollout is scaled from 7 to 10 replicas:
// its three ReplicaSets (sized for 7, as their desired-replicas annotations
// say) share the 3 new replicas in proportion to their sizes, the leftover
// going to the largest.
func ExampleResizes() {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "foo", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](10),
			Strategy: appsv1.DeploymentStrategy{
				Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxSurge:       ptr.To(intstr.FromInt32(0)),
					MaxUnavailable: ptr.To(intstr.FromInt32(1)),
				},
			},
		},
	}
	start := time.Date(2026, 5, 20, 0, 0, 0, 0, time.UTC)
	// replicaSet is a ReplicaSet the controller sized for 7 replicas with
	// maxSurge 0, created hours after start.
	replicaSet := func(name string, replicas int32, hours int) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{
				Name: name, Namespace: "default",
				CreationTimestamp: metav1.NewTime(start.Add(time.Duration(hours) * time.Hour)),
				Annotations: map[string]string{
					deployutil.DesiredReplicasAnnotation: "7",
					deployutil.MaxReplicasAnnotation:     "7",
				},
			},
			Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(replicas)},
		}
	}
	newRS := replicaSet("foo-v3", 2, 2)
	old := []*appsv1.ReplicaSet{ // newest first
		replicaSet("foo-v2", 3, 1),
		replicaSet("foo-v1", 2, 0),
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
