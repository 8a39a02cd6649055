package deploysync_test

import (
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
)

// exampleDeployment is a new Deployment "web" as an apiserver returns it
// (defaults filled in, generation 1, never synced).
func exampleDeployment() *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "d-uid", Generation: 1},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1"}}},
			},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxSurge: ptr.To(intstr.FromString("25%")), MaxUnavailable: ptr.To(intstr.FromString("25%"))}},
			RevisionHistoryLimit:    ptr.To[int32](10),
			ProgressDeadlineSeconds: ptr.To[int32](600),
		},
	}
}

// The first sync of a new Deployment: the plan creates its ReplicaSet,
// records the scale-up event, and writes the status — what
// kube-controller-manager v1.37.2 does (a new Deployment).
func ExampleSync() {
	plan, err := deploysync.Sync(deploysync.State{
		Deployment: exampleDeployment(),
		Now:        time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC),
	})
	if err != nil {
		panic(err) // a *deploysync.InputError: the state is not one an apiserver would hold
	}
	fmt.Println(plan)
	// Output:
	// branch RollingUpdate
	// - create replicaset web-6bcddfc897 replicas=3: no ReplicaSet matches the pod template; create web-6bcddfc897 (pod-template-hash 6bcddfc897, revision 1) with 3 replicas
	// - event Normal ScalingReplicaSet "Scaled up replica set web-6bcddfc897 from 0 to 3": the new ReplicaSet starts with replicas
	// - update deployment status web replicas=0 updated=0 ready=0 available=0 unavailable=3: record revision 1 on the Deployment; note the new ReplicaSet in the Progressing condition; status: observe generation 1, unavailableReplicas 0→3, terminatingReplicas -→0, Available=False (MinimumReplicasUnavailable)
}

// Apply performs a plan on the state in memory, as an apiserver would
// store it; a simulator or a dry run looks at the world after the sync.
func ExampleApply() {
	s := deploysync.State{Deployment: exampleDeployment(), Now: time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)}
	plan, err := deploysync.Sync(s)
	if err != nil {
		panic(err)
	}
	after, err := deploysync.Apply(s, plan)
	if err != nil {
		panic(err) // the plan does not fit the state
	}
	for _, rs := range after.ReplicaSets {
		fmt.Println(rs.Name, *rs.Spec.Replicas, rs.Annotations)
	}
	d := after.Deployment
	fmt.Println(d.Annotations, d.Status.ObservedGeneration, d.Status.UnavailableReplicas)
	for _, c := range d.Status.Conditions {
		fmt.Println(c.Type, c.Status, c.Reason)
	}
	// Output:
	// web-6bcddfc897 3 map[deployment.kubernetes.io/desired-replicas:3 deployment.kubernetes.io/max-replicas:4 deployment.kubernetes.io/revision:1]
	// map[deployment.kubernetes.io/revision:1] 1 3
	// Progressing True NewReplicaSetCreated
	// Available False MinimumReplicasUnavailable
}

// A state an apiserver would refuse (here a negative spec.replicas) is an
// error that names the field, the value and the rule, never a plan. Every
// caller of Sync handles it: it matches ErrInvalidInput, and errors.As
// finds the *InputError.
func ExampleSync_invalidInput() {
	d := exampleDeployment()
	d.Spec.Replicas = ptr.To[int32](-1)
	_, err := deploysync.Sync(deploysync.State{Deployment: d, Now: time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)})

	fmt.Println(errors.Is(err, deploysync.ErrInvalidInput))
	var ie *deploysync.InputError
	if errors.As(err, &ie) {
		fmt.Println(ie.Object)
		fmt.Println(ie.Field, ie.Kind, ie.Value)
		fmt.Println(ie.Rule)
	}
	// Output:
	// true
	// Deployment default/web
	// spec.replicas invalid -1
	// apps/v1 ValidateDeploymentSpec
}
