// Command simulate is deploysync's main job: it takes an embedded default
// Deployment — 10 nginx replicas, RollingUpdate 25%/25%, image 1.27 → 1.28,
// from a fully available old ReplicaSet — and prints the plan Sync makes for
// it, with the reason of every action.
package main

import (
	"fmt"
	"os"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "simulate:", err)
		os.Exit(1)
	}
}

func run() error {
	s := defaultState()
	plan, err := deploysync.Sync(s)
	if err != nil {
		return err
	}
	fmt.Println("Deployment nginx: 10 replicas, RollingUpdate 25%/25%, image nginx:1.27 → nginx:1.28")
	fmt.Println()
	fmt.Println(plan)
	return nil
}

func defaultState() deploysync.State {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	template := func(image string) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "nginx"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: image}}},
		}
	}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx", Namespace: "default", UID: "nginx-uid", Generation: 2,
			Annotations: map[string]string{deployutil.RevisionAnnotation: "1"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](10),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
			Template: template("nginx:1.28"),
		},
	}
	d = deployutil.SetDefaults(d)
	old := deployutil.SetPodTemplateDefaults(ptr.To(template("nginx:1.27")))
	hash := deployutil.ComputeHash(old, nil)
	old.Labels = map[string]string{"app": "nginx", deployutil.PodTemplateHashLabel: hash}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: deployutil.ReplicaSetName("nginx", hash), Namespace: "default", UID: "old-uid", Generation: 1,
			Labels:            old.Labels,
			CreationTimestamp: metav1.NewTime(now.Add(-24 * time.Hour)),
			Annotations: map[string]string{deployutil.RevisionAnnotation: "1",
				deployutil.DesiredReplicasAnnotation: "10", deployutil.MaxReplicasAnnotation: "13"},
			OwnerReferences: []metav1.OwnerReference{deployutil.ControllerRef(d)},
		},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](10), Template: *old,
			Selector: &metav1.LabelSelector{MatchLabels: old.Labels}},
		Status: appsv1.ReplicaSetStatus{Replicas: 10, FullyLabeledReplicas: 10, ReadyReplicas: 10, AvailableReplicas: 10, ObservedGeneration: 1,
			TerminatingReplicas: ptr.To[int32](0)},
	}
	return deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{rs}, Now: now}
}
