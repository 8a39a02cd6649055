package replicaset_test

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/replicaset"
)

// A ReplicaSet scaled from 3 to 1: the unscheduled pod goes first, then of
// the two running pods the one whose node holds more of the Deployment's
// pods (here a pod of the old ReplicaSet web-0).
func ExampleSync() {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-1", UID: "rs-1", Generation: 2,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "d-1", Controller: ptr.To(true)}}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}}},
		Status: appsv1.ReplicaSetStatus{Replicas: 3, ObservedGeneration: 1},
	}
	pod := func(name, node string, phase corev1.PodPhase) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name),
				Labels: map[string]string{"app": "web"}, CreationTimestamp: metav1.NewTime(now.Add(-time.Hour)),
				OwnerReferences: []metav1.OwnerReference{replicaset.ControllerRef(rs)}},
			Spec:   corev1.PodSpec{NodeName: node},
			Status: corev1.PodStatus{Phase: phase},
		}
	}
	old := rs.DeepCopy()
	old.Name, old.UID = "web-0", "rs-0"
	old.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "v": "0"}}
	x := pod("x", "node-1", corev1.PodRunning)
	x.Labels["v"], x.OwnerReferences = "0", []metav1.OwnerReference{replicaset.ControllerRef(old)}
	plan, err := replicaset.Sync(replicaset.State{
		ReplicaSet:  rs,
		ReplicaSets: []*appsv1.ReplicaSet{old, rs},
		Pods: []*corev1.Pod{pod("a", "node-2", corev1.PodRunning), pod("b", "", corev1.PodPending),
			pod("c", "node-1", corev1.PodRunning), pod("d", "node-2", corev1.PodSucceeded), x},
		Now: now,
	})
	if err != nil {
		panic(err)
	}
	fmt.Print(plan)
	// Output:
	// - delete 2 pods: web-1 has 3 active pods and wants 1: delete 2 (at most 500 a sync)
	//   - delete pod b, 1 of 3 in the deletion order: node "" with 1 related active pods, phase Pending, not ready, deletion cost 0, most restarts 0
	//   - delete pod c, 2 of 3 in the deletion order: node "node-1" with 2 related active pods, phase Running, not ready, deletion cost 0, most restarts 0
	// - update status: status: replicas 3, fully labeled 3, ready 0, available 0 (minReadySeconds 0), terminating 0, observed generation 2
}

// Three ready pods of one logarithmic bucket go round in a circle: a
// before b and b before c by UID (their ready times differ), c before a by
// creation (the same ready time, c created in a younger bucket). Whichever
// pod a scale-down by one deletes, one kept pod is not ranked after it, so
// the pod a real controller deletes depends on its cache's order.
func ExampleUnsettled() {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	pod := func(name string, readyAgo, createdAgo time.Duration) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name), CreationTimestamp: metav1.NewTime(now.Add(-createdAgo))},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{
				Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-readyAgo))}}},
		}
	}
	pods := []*corev1.Pod{pod("a", 10*time.Second, 40*time.Second), pod("b", 12*time.Second, time.Minute), pod("c", 10*time.Second, 12*time.Second)}
	order, ranks := replicaset.DeletionOrder(pods, nil, now)
	fmt.Println("deletes", order[0].Name, "; kept pods not ranked after it:", replicaset.Unsettled(ranks, 1, now)[0])
	// Output:
	// deletes a ; kept pods not ranked after it: 1
}
