package rsupstream

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/replicaset"
)

// scenario builds a Deployment's ReplicaSet of size replicas with pods
// given as (node, ready-for, cost) and an old sibling's pods on nodes.
func scenario(replicas int32, mrs int32, pods []scenarioPod, oldOnNodes []string) Input {
	dep := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "d-1", Controller: ptr.To(true)}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-2", UID: "rs-2", Generation: 2, OwnerReferences: []metav1.OwnerReference{dep}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(replicas), MinReadySeconds: mrs,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "h": "2"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", "h": "2"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:2"}}}}}}
	old := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-1", UID: "rs-1", OwnerReferences: []metav1.OwnerReference{dep}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(int32(len(oldOnNodes))), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "h": "1"}}}}
	in := Input{ReplicaSet: rs, ReplicaSets: []*appsv1.ReplicaSet{old, rs}, Now: t0, TerminatingReplicas: true}
	mk := func(name string, owner *appsv1.ReplicaSet, h string, sp scenarioPod) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name),
			Labels: map[string]string{"app": "web", "h": h}, CreationTimestamp: metav1.NewTime(t0.Add(-sp.age)),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: owner.Name, UID: owner.UID, Controller: ptr.To(true)}}},
			Spec: corev1.PodSpec{NodeName: sp.node}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
		if sp.cost != "" {
			p.Annotations = map[string]string{replicaset.DeletionCostAnnotation: sp.cost}
		}
		if sp.ready > 0 {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.Add(-sp.ready))}}
		}
		return p
	}
	for i, sp := range pods {
		in.Pods = append(in.Pods, mk(fmt.Sprintf("new-%d", i), rs, "2", sp))
	}
	for i, n := range oldOnNodes {
		in.Pods = append(in.Pods, mk(fmt.Sprintf("old-%d", i), old, "1", scenarioPod{node: n, ready: time.Hour, age: 2 * time.Hour}))
	}
	return in
}

type scenarioPod struct {
	node       string
	ready, age time.Duration
	cost       string
}

// TestScenarios runs named states, each chosen for one question users ask
// about which pods a scale-down removes, through both sides.
func TestScenarios(t *testing.T) {
	for _, tt := range namedScenarios() {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			want, err := Run(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got, plan, err := ours(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got, cmp.Comparer(func(a, b *corev1.Pod) bool { return equality.Semantic.DeepEqual(a, b) })); d != "" {
				t.Errorf("upstream (-) and replicaset (+) differ (%s):\n%s\nplan:\n%s", tt.reason, d, plan)
			}
			if !slices.Equal(want.Deleted, tt.deletes) {
				t.Errorf("upstream deleted %v, the row says %v (%s)", want.Deleted, tt.deletes, tt.reason)
			}
			t.Logf("%s\n%s", tt.reason, plan)
		})
	}
}

type namedScenario struct {
	name string
	in   Input
	// deletes are the pods upstream deleted (seen once, kept so the
	// reason cannot drift from what upstream does).
	deletes []string
	reason  string
}

// namedScenarios are states each chosen for one question users ask about
// which pods a scale-down removes; TestScenarios runs them through both
// sides, and the per-minor recordings hold them too.
func namedScenarios() []namedScenario {
	r := func(node string, ready time.Duration) scenarioPod {
		return scenarioPod{node: node, ready: ready, age: ready + time.Minute}
	}
	return []namedScenario{
		{name: "doubled-up node goes first", in: scenario(2, 0, []scenarioPod{r("n1", time.Hour), r("n2", time.Hour), r("n3", time.Hour)}, []string{"n2", "n2"}),
			deletes: []string{"new-1"}, reason: "n2 also holds two old pods: its new pod ranks first (rule 5)"},
		{name: "deletion cost beats node rank", in: scenario(2, 0, []scenarioPod{{node: "n1", ready: time.Hour, age: 2 * time.Hour, cost: "-10"}, r("n2", time.Hour), r("n3", time.Hour)}, []string{"n2", "n2"}),
			deletes: []string{"new-0"}, reason: "kubernetes/kubernetes#124306: a lower cost wins over co-location"},
		{name: "same log bucket by UID", in: scenario(1, 0, []scenarioPod{r("n1", 1001*time.Second), r("n2", 1000*time.Second)}, nil),
			deletes: []string{"new-0"}, reason: "kubernetes/kubernetes#111443: ready 1001 s and 1000 s share a log2 bucket, so the lower UID (new-0, ready longer) goes, not the more recently ready pod"},
		{name: "unscheduled and not ready first", in: scenario(1, 0, []scenarioPod{r("n1", time.Hour), {age: time.Minute}, {node: "n2", age: time.Minute}}, nil),
			deletes: []string{"new-1", "new-2"}, reason: "rule 1 (no node) then rule 3 (not ready) before the ready pod"},
		{name: "rollout step availability", in: scenario(4, 30, []scenarioPod{r("n1", 10*time.Second), r("n2", time.Hour), r("n3", 20*time.Second), r("n1", time.Hour)}, []string{"n1"}),
			reason: "minReadySeconds 30: two of four available, requeue when the next one is (10 s)"},
		{name: "scale up from zero", in: scenario(7, 0, nil, []string{"n1"}), reason: "7 creates in batches 1, 2, 4"},
	}
}
