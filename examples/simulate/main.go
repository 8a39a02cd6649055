// Command simulate is deploysync's main job: it simulates the rollout of an
// embedded default Deployment — 10 nginx replicas, RollingUpdate 25%/25%,
// image nginx:1.27 → nginx:1.28, from a fully available old ReplicaSet — and
// prints the timeline (what the controller wrote at each step, and each
// ReplicaSet's size, ready and available pods) and a summary: syncs,
// simulated duration, peak pods, minimum available, outcome and invariants.
//
// It exits 0 when the rollout ran; 1 on an error or a broken invariant.
package main

import (
	"fmt"
	"io"
	"os"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/simulate"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "usage: simulate (no arguments; for your own manifests use examples/cli: kubectl-deploysync simulate -f FILE)")
		os.Exit(2)
	}
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "simulate:", err)
		os.Exit(1)
	}
}

func run(out io.Writer) error {
	tl, err := simulate.Run(defaultState())
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "Deployment default/nginx: 10 replicas, RollingUpdate maxSurge 25% (3) maxUnavailable 25% (2)")
	fmt.Fprintln(out, "image nginx:1.27 → nginx:1.28; pods run 2s after creation, are ready 3s later and terminate in 5s")
	fmt.Fprintln(out)
	fmt.Fprint(out, tl.Table())
	fmt.Fprintln(out)
	first := tl.Steps[0]
	fmt.Fprintf(out, "Step 0 in full (%s branch):\n", first.Branch)
	for _, a := range first.Actions {
		fmt.Fprintf(out, "- %s\n", a)
	}
	fmt.Fprintln(out)
	fmt.Fprint(out, tl.Summary())
	return tl.Err()
}

// defaultState is the Deployment right after `kubectl set image` to
// nginx:1.28 (generation 2, not yet observed), with the ReplicaSet the
// controller made for nginx:1.27 a day ago, fully available. The old
// ReplicaSet is built as the controller builds one: the defaulted template,
// its pod-template-hash, the name derived from it.
func defaultState() deploysync.State {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	template := func(image string) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "nginx"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: image}}},
		}
	}
	d := deployutil.SetDefaults(&appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx", Namespace: "default", UID: "nginx-uid", Generation: 2,
			Annotations: map[string]string{deployutil.RevisionAnnotation: "1"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](10),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
			Template: template("nginx:1.28"),
		},
	})
	old := deployutil.SetPodTemplateDefaults(ptr.To(template("nginx:1.27")))
	hash := deployutil.ComputeHash(old, nil)
	old.Labels = map[string]string{"app": "nginx", deployutil.PodTemplateHashLabel: hash}
	name := deployutil.ReplicaSetName("nginx", hash)
	created := metav1.NewTime(now.Add(-24 * time.Hour))
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "default", UID: "nginx-" + "old-uid", Generation: 1,
			Labels:            old.Labels,
			CreationTimestamp: created,
			Annotations: map[string]string{deployutil.RevisionAnnotation: "1",
				deployutil.DesiredReplicasAnnotation: "10", deployutil.MaxReplicasAnnotation: "13"},
			OwnerReferences: []metav1.OwnerReference{deployutil.ControllerRef(d)},
		},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](10), Template: *old,
			Selector: &metav1.LabelSelector{MatchLabels: old.Labels}},
		Status: appsv1.ReplicaSetStatus{Replicas: 10, FullyLabeledReplicas: 10, ReadyReplicas: 10, AvailableReplicas: 10,
			ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0)},
	}
	d.Status = appsv1.DeploymentStatus{
		ObservedGeneration: 1, Replicas: 10, UpdatedReplicas: 10, ReadyReplicas: 10, AvailableReplicas: 10,
		TerminatingReplicas: ptr.To[int32](0),
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: deployutil.ReasonMinimumReplicasAvailable,
				Message: "Deployment has minimum availability.", LastUpdateTime: created, LastTransitionTime: created},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: deployutil.ReasonNewReplicaSetAvailable,
				Message: fmt.Sprintf("ReplicaSet %q has successfully progressed.", name), LastUpdateTime: created, LastTransitionTime: created},
		},
	}
	return deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{rs}, Now: now}
}
