package simulate_test

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/simulate"
)

// Roll 4 replicas of web from nginx:1.27 to nginx:1.28 and read the summary.
func ExampleRun() {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](4),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	}
	state, err := simulate.Steady(d, time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	if err != nil {
		panic(err)
	}
	tl, err := simulate.Run(state, simulate.WithChanges(simulate.SetImage(0, "web", "nginx:1.28")))
	if err != nil {
		panic(err)
	}
	fmt.Print(tl.Summary())
	// Output:
	// outcome:        Complete after 15.05s (17 syncs)
	// peak pods:      5 at step 2 (replicas 4 + maxSurge 1 = 5), 7 with terminating pods
	// min available:  3 at step 1 (replicas 4 - maxUnavailable 1 = 3)
	// invariants:     all held
}

// A full quota on ReplicaSets, raised 7 seconds in: when does the rollout
// start? The controller's failed syncs, with the workqueue's backoff.
func ExampleWithRefusedReplicaSets() {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](4),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	}
	state, err := simulate.Steady(d, time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	if err != nil {
		panic(err)
	}
	tl, err := simulate.Run(state, simulate.WithChanges(simulate.SetImage(0, "web", "nginx:1.28")),
		simulate.WithRefusedReplicaSets(7*time.Second, `replicasets.apps "web-7549484477" is forbidden: exceeded quota: rs`))
	if err != nil {
		panic(err)
	}
	for _, s := range tl.Steps {
		if s.Err != nil {
			fmt.Printf("%-7v failure %d, retry after %v\n", s.Elapsed, s.Failures, s.RetryAfter)
		} else if len(s.Actions) > 0 {
			fmt.Printf("%-7v %s\n", s.Elapsed, s.Actions[0])
			break
		}
	}
	// Output:
	// 0s      failure 1, retry after 5ms
	// 10ms    failure 2, retry after 10ms
	// 20ms    failure 3, retry after 20ms
	// 40ms    failure 4, retry after 40ms
	// 80ms    failure 5, retry after 80ms
	// 160ms   failure 6, retry after 160ms
	// 320ms   failure 7, retry after 320ms
	// 640ms   failure 8, retry after 640ms
	// 1.28s   failure 9, retry after 1.28s
	// 2.56s   failure 10, retry after 2.56s
	// 5.12s   failure 11, retry after 5.12s
	// 10.24s  create replicaset web-7549484477 replicas=1: no ReplicaSet matches the pod template; create web-7549484477 (pod-template-hash 7549484477, revision 2) with 1 replicas
}

// A policy refuses the new image's pods until 7s: the ReplicaSet
// controller's retries back off, and the first after the lift makes them.
func ExampleWithRefusedImageUntil() {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](4),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	}
	state, err := simulate.Steady(d, time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	if err != nil {
		panic(err)
	}
	tl, err := simulate.Run(state, simulate.WithChanges(simulate.SetImage(0, "web", "nginx:1.28")),
		simulate.WithRefusedImageUntil("nginx:1.28", `pods "web-1" is forbidden: image nginx:1.28 is not allowed`, 7*time.Second))
	if err != nil {
		panic(err)
	}
	for _, s := range tl.Steps {
		for _, r := range s.Refused {
			fmt.Printf("%-7v %s refused (missing: %d)\n", s.Elapsed, r.ReplicaSet, r.Missing)
		}
		for _, a := range s.Admitted {
			fmt.Printf("%-7v %s: %d pods created by the retry at %v, after %d failed syncs\n", s.Elapsed, a.ReplicaSet, a.Created, a.At, a.Failures)
		}
	}
	fmt.Println(tl.Outcome)
	// Output:
	// 10ms    web-7549484477 refused (missing: 1)
	// 10.26s  web-7549484477: 2 pods created by the retry at 10.252s, after 11 failed syncs
	// Complete
}

// A namespace's pod quota as large as the Deployment, rolled with maxSurge
// 0: the quota counts terminating pods, so each new pod waits for the end
// of the old pod deleted for it, then for the ReplicaSet controller's next
// retry.
func ExampleWithPodQuota() {
	zero, one := intstr.FromInt32(0), intstr.FromInt32(1)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &zero, MaxUnavailable: &one}},
		},
	}
	state, err := simulate.Steady(d, time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	if err != nil {
		panic(err)
	}
	tl, err := simulate.Run(state, simulate.WithChanges(simulate.SetImage(0, "web", "nginx:1.28")), simulate.WithPodQuota("pods", 2))
	if err != nil {
		panic(err)
	}
	for _, s := range tl.Steps {
		for _, a := range s.Admitted {
			fmt.Printf("%-7v %s: %d pod by the retry at %v (room since %v)\n", s.Elapsed, a.ReplicaSet, a.Created, a.At, a.Until)
		}
	}
	fmt.Println(tl.Outcome, "after", tl.Steps[len(tl.Steps)-1].Elapsed)
	// Output:
	// 5.16s   web-7549484477: 1 pod by the retry at 5.155s (room since 5.01s)
	// 15.32s  web-7549484477: 1 pod by the retry at 15.315s (room since 15.17s)
	// Complete after 20.33s
}

// Scale 3 steady pods to 2: the pods are alike to the instant, so which
// one the ReplicaSet controller deletes is the order its cache lists
// them in. Each seed is one such order; the deletion says it is a tie.
func ExampleWithCacheOrder() {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	}
	state, err := simulate.Steady(d, time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	if err != nil {
		panic(err)
	}
	for seed := uint64(1); seed <= 4; seed++ {
		tl, err := simulate.Run(state, simulate.WithChanges(simulate.SetReplicas(time.Second, 2)), simulate.WithCacheOrder(seed))
		if err != nil {
			panic(err)
		}
		for _, st := range tl.Steps {
			for _, del := range st.Deleted {
				fmt.Printf("seed %d: deleted %s, tied with %d kept\n", seed, del.Pod, del.Tied)
			}
		}
	}
	// Output:
	// seed 1: deleted web-5c8597c5fb-2, tied with 2 kept
	// seed 2: deleted web-5c8597c5fb-1, tied with 2 kept
	// seed 3: deleted web-5c8597c5fb-2, tied with 2 kept
	// seed 4: deleted web-5c8597c5fb-3, tied with 2 kept
}
