package replicaset_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/replicaset"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func newRS(replicas int32) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "rs-uid", Generation: 1,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "d", UID: "d-uid", Controller: ptr.To(true)}}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", "tier": "x"}}}},
		Status: appsv1.ReplicaSetStatus{ObservedGeneration: 1},
	}
}

// pod is a running, scheduled, not ready pod of newRS created an hour ago.
type podOpt func(*corev1.Pod)

func mkPod(name string, opts ...podOpt) *corev1.Pod {
	rs := newRS(0)
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("u-" + name),
			Labels: map[string]string{"app": "web", "tier": "x"}, CreationTimestamp: metav1.NewTime(t0.Add(-time.Hour)),
			OwnerReferences: []metav1.OwnerReference{replicaset.ControllerRef(rs)}},
		Spec:   corev1.PodSpec{NodeName: "n1"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func node(n string) podOpt            { return func(p *corev1.Pod) { p.Spec.NodeName = n } }
func phase(ph corev1.PodPhase) podOpt { return func(p *corev1.Pod) { p.Status.Phase = ph } }
func created(d time.Duration) podOpt {
	return func(p *corev1.Pod) { p.CreationTimestamp = metav1.NewTime(t0.Add(-d)) }
}
func cost(c string) podOpt {
	return func(p *corev1.Pod) { p.Annotations = map[string]string{replicaset.DeletionCostAnnotation: c} }
}
func orphan() podOpt                    { return func(p *corev1.Pod) { p.OwnerReferences = nil } }
func labels(l map[string]string) podOpt { return func(p *corev1.Pod) { p.Labels = l } }
func deleting() podOpt {
	return func(p *corev1.Pod) { p.DeletionTimestamp = ptr.To(metav1.NewTime(t0)) }
}
func ready(ago time.Duration) podOpt {
	return func(p *corev1.Pod) {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.Add(-ago))}}
	}
}
func restarts(n int32) podOpt {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", RestartCount: n}}
	}
}
func sidecarRestarts(n int32) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.InitContainers = []corev1.Container{{Name: "s", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}}
		p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "s", RestartCount: n}}
	}
}

func names(ps []*corev1.Pod) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

// TestDeletionOrder holds each rule of upstream's ActivePodsWithRanks.Less
// (pkg/controller/controller_utils.go, v1.37.2) on a pair or triple of pods
// that differ in that rule only (or in it and the later ones, which it must
// override).
func TestDeletionOrder(t *testing.T) {
	tests := []struct {
		name   string
		pods   []*corev1.Pod
		onNode map[string]int
		want   []string
		reason string
	}{
		{name: "unscheduled first", pods: []*corev1.Pod{mkPod("a", ready(time.Minute)), mkPod("b", node(""), ready(time.Hour))},
			want: []string{"b", "a"}, reason: "rule 1: a pod without a node goes before any scheduled pod, before phase and readiness"},
		{name: "phase", pods: []*corev1.Pod{mkPod("run"), mkPod("unk", phase(corev1.PodUnknown)), mkPod("pend", phase(corev1.PodPending))},
			want: []string{"pend", "unk", "run"}, reason: "rule 2: Pending < Unknown < Running"},
		{name: "unranked phase counts as pending", pods: []*corev1.Pod{mkPod("unk", phase(corev1.PodUnknown)), mkPod("empty", phase(""))},
			want: []string{"empty", "unk"}, reason: "rule 2: upstream's podPhaseToOrdinal misses \"\" and reads 0, Pending's"},
		{name: "not ready first", pods: []*corev1.Pod{mkPod("r", ready(time.Hour)), mkPod("nr", created(time.Second))},
			want: []string{"nr", "r"}, reason: "rule 3: not ready before ready, whatever the ages"},
		{name: "lower cost first", pods: []*corev1.Pod{mkPod("hi", cost("10"), node("")), mkPod("lo", cost("-5"), node(""))},
			want: []string{"lo", "hi"}, reason: "rule 4: the lower pod-deletion-cost first"},
		{name: "non-canonical cost is 0", pods: []*corev1.Pod{mkPod("plus", cost("+5")), mkPod("one", cost("1"))},
			want: []string{"plus", "one"}, reason: "rule 4: \"+5\" is refused by GetDeletionCostFromPodAnnotations and reads 0 < 1"},
		{name: "cost before node rank", pods: []*corev1.Pod{mkPod("crowded", node("n1")), mkPod("cheap", node("n2"), cost("-1"))},
			onNode: map[string]int{"n1": 5, "n2": 1}, want: []string{"cheap", "crowded"}, reason: "rule 4 before rule 5"},
		{name: "crowded node first", pods: []*corev1.Pod{mkPod("alone", node("n2")), mkPod("crowded", node("n1"))},
			onNode: map[string]int{"n1": 3, "n2": 1}, want: []string{"crowded", "alone"}, reason: "rule 5: more related active pods on the node first"},
		{name: "recently ready first", pods: []*corev1.Pod{mkPod("old", ready(10*time.Hour)), mkPod("new", ready(time.Minute))},
			want: []string{"new", "old"}, reason: "rule 6: a minute's age is in a lower log2 bucket than ten hours'"},
		{name: "same ready bucket by UID", pods: []*corev1.Pod{mkPod("b", ready(1000*time.Second)), mkPod("a", ready(1001*time.Second))},
			want: []string{"a", "b"}, reason: "rule 6: 1000 s and 1001 s share bucket 39 (2^39 ns ≈ 550 s .. 1100 s); UID u-a < u-b although a is ready longer"},
		{name: "restarts", pods: []*corev1.Pod{mkPod("calm"), mkPod("crash", restarts(3))},
			want: []string{"crash", "calm"}, reason: "rule 7: more container restarts first"},
		{name: "sidecar restarts", pods: []*corev1.Pod{mkPod("calm", sidecarRestarts(1)), mkPod("crash", sidecarRestarts(4))},
			want: []string{"crash", "calm"}, reason: "rule 7: equal regular restarts, then more sidecar restarts first"},
		{name: "newer first", pods: []*corev1.Pod{mkPod("old", created(48*time.Hour)), mkPod("new", created(time.Minute))},
			want: []string{"new", "old"}, reason: "rule 8: the more recently created first"},
		{name: "same creation bucket by UID", pods: []*corev1.Pod{mkPod("b", created(1001*time.Second)), mkPod("a", created(1000*time.Second))},
			want: []string{"a", "b"}, reason: "rule 8: same bucket, so UID order, though b is older"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			got, ranks := replicaset.DeletionOrder(tt.pods, tt.onNode, t0)
			if !slices.Equal(names(got), tt.want) {
				t.Errorf("order = %v, want %v (%s)", names(got), tt.want, tt.reason)
			}
			if len(ranks) != len(got) {
				t.Fatalf("%d ranks for %d pods", len(ranks), len(got))
			}
			for i, p := range got {
				if ranks[i].UID != p.UID {
					t.Errorf("rank %d is of %s, pod is %s", i, ranks[i].UID, p.UID)
				}
			}
		})
	}
}

func batchesOf(p *replicaset.Plan) []int {
	if p.Create == nil {
		return nil
	}
	return p.Create.Batches
}

func deleted(p *replicaset.Plan) []string {
	var out []string
	for _, d := range p.Delete {
		out = append(out, d.Name)
	}
	return out
}

func pods(n int, opts ...podOpt) []*corev1.Pod {
	var out []*corev1.Pod
	for i := range n {
		out = append(out, mkPod(string(rune('a'+i)), opts...))
	}
	return out
}

// TestSync holds each decision of syncReplicaSet (v1.37.2) on a small state.
func TestSync(t *testing.T) {
	withFailure := func(rs *appsv1.ReplicaSet, reason string) *appsv1.ReplicaSet {
		rs.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: reason}}
		return rs
	}
	beingDeleted := newRS(0)
	beingDeleted.DeletionTimestamp = ptr.To(metav1.NewTime(t0))
	minReady := newRS(2)
	minReady.Spec.MinReadySeconds = 60
	tests := []struct {
		name    string
		state   replicaset.State
		batches []int
		deletes []string
		adopt   []string
		release []string
		status  *appsv1.ReplicaSetStatus // nil: no write
		requeue time.Duration
		failed  bool
		reason  string
	}{
		{name: "create ten", state: replicaset.State{ReplicaSet: newRS(10)}, batches: []int{1, 2, 4, 3},
			status: &appsv1.ReplicaSetStatus{ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0)},
			reason: "slowStartBatch: 1, then doubling, the last batch what remains; the status is written since terminatingReplicas goes from unset to 0"},
		{name: "burst", state: replicaset.State{ReplicaSet: newRS(1000)}, batches: []int{1, 2, 4, 8, 16, 32, 64, 128, 245},
			status: &appsv1.ReplicaSetStatus{ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0)},
			reason: "at most burstReplicas (500) creates a sync: 1+2+…+128 = 255, then the remaining 245"},
		{name: "delete all unsorted", state: replicaset.State{ReplicaSet: newRS(0), Pods: pods(3, node(""))}, deletes: []string{"a", "b", "c"},
			status: &appsv1.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 3, ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0)},
			reason: "diff == len(active): getPodsToDelete skips sorting and takes the pods in list order"},
		{name: "delete one ranked", state: replicaset.State{ReplicaSet: newRS(2), Pods: []*corev1.Pod{mkPod("a", ready(time.Hour)), mkPod("b", phase(corev1.PodPending)), mkPod("c", ready(time.Hour))}},
			deletes: []string{"b"}, status: &appsv1.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 3, ReadyReplicas: 2, AvailableReplicas: 2, ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0)},
			reason: "the pending pod ranks first; status counts the pods before the deletes"},
		{name: "adopt and release", state: replicaset.State{ReplicaSet: newRS(1), Pods: []*corev1.Pod{
			mkPod("orphan", orphan()), mkPod("strayed", labels(map[string]string{"app": "other"})), mkPod("foreign-orphan", orphan(), labels(map[string]string{"app": "other"})),
			mkPod("dying-orphan", orphan(), deleting())}},
			adopt: []string{"orphan"}, release: []string{"strayed"},
			status: &appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0)},
			reason: "a matching active orphan is adopted and counted; an owned pod that no longer matches is released; a non-matching or deleting orphan is left; the dying orphan is not terminating for us (not controlled)"},
		{name: "terminating counted", state: replicaset.State{ReplicaSet: newRS(1), Pods: []*corev1.Pod{mkPod("a"), mkPod("gone", deleting()), mkPod("done", deleting(), phase(corev1.PodSucceeded))}},
			status: &appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](1)},
			reason: "a controlled pod being deleted that has not finished is terminating; a finished one is not, and neither is active"},
		{name: "fully labeled", state: replicaset.State{ReplicaSet: newRS(1), Pods: []*corev1.Pod{mkPod("a", labels(map[string]string{"app": "web"}))}},
			status: &appsv1.ReplicaSetStatus{Replicas: 1, ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0)},
			reason: "the pod matches the selector but lacks the template's tier label: not fully labeled"},
		{name: "being deleted", state: replicaset.State{ReplicaSet: beingDeleted, Pods: []*corev1.Pod{mkPod("a"), mkPod("o", orphan())}},
			status: &appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0)},
			reason: "a ReplicaSet being deleted neither deletes its pod nor adopts the orphan, but writes its status"},
		{name: "expectations pending", state: replicaset.State{ReplicaSet: newRS(3), ExpectationsPending: true, Pods: pods(1)},
			status: &appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0)},
			reason: "unmet expectations skip manageReplicas, not the status"},
		{name: "create fails", state: replicaset.State{ReplicaSet: newRS(2), PodWriteError: "quota exceeded"}, batches: []int{1, 1}, failed: true,
			status: &appsv1.ReplicaSetStatus{ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0), Conditions: []appsv1.ReplicaSetCondition{
				{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: "quota exceeded", LastTransitionTime: metav1.NewTime(t0)}}},
			reason: "a failed create sets ReplicaFailure FailedCreate with the error, stamped now; no requeue, the error retries"},
		{name: "delete fails, condition kept", state: replicaset.State{ReplicaSet: withFailure(newRS(0), "FailedCreate"), Pods: pods(1), PodWriteError: "boom"}, deletes: []string{"a"}, failed: true,
			status: &appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0), Conditions: []appsv1.ReplicaSetCondition{
				{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate"}}},
			reason: "an existing ReplicaFailure condition is kept as it is, even with the other reason"},
		{name: "failure cleared", state: replicaset.State{ReplicaSet: withFailure(newRS(1), "FailedCreate"), Pods: pods(1)},
			status: &appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0)},
			reason: "no failing write: the condition goes (the conditions become nil)"},
		{name: "requeue for availability", state: replicaset.State{ReplicaSet: minReady, Pods: []*corev1.Pod{mkPod("a", ready(20*time.Second)), mkPod("b", ready(50*time.Second))}},
			status:  &appsv1.ReplicaSetStatus{Replicas: 2, FullyLabeledReplicas: 2, ReadyReplicas: 2, ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0)},
			requeue: 10 * time.Second, reason: "b becomes available in 60 − 50 = 10 s, sooner than a's 40 s"},
		{name: "in sync, no write", state: replicaset.State{ReplicaSet: func() *appsv1.ReplicaSet {
			rs := newRS(1)
			rs.Status = appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0)}
			return rs
		}(), Pods: pods(1)}, reason: "nothing changed: updateReplicaSetStatus skips the write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			tt.state.Now = t0
			p, err := replicaset.Sync(tt.state)
			if err != nil {
				t.Fatal(err)
			}
			if got := batchesOf(p); !slices.Equal(got, tt.batches) {
				t.Errorf("batches = %v, want %v (%s)", got, tt.batches, tt.reason)
			}
			if got := deleted(p); !slices.Equal(got, tt.deletes) {
				t.Errorf("deletes = %v, want %v (%s)", got, tt.deletes, tt.reason)
			}
			var adopt, release []string
			for _, a := range p.Adopt {
				adopt = append(adopt, a.Name)
			}
			for _, a := range p.Release {
				release = append(release, a.Name)
			}
			if !slices.Equal(adopt, tt.adopt) || !slices.Equal(release, tt.release) {
				t.Errorf("adopt %v release %v, want %v %v (%s)", adopt, release, tt.adopt, tt.release, tt.reason)
			}
			var got *appsv1.ReplicaSetStatus
			if p.Status != nil {
				got = &p.Status.ReplicaSet.Status
			}
			if !reflect.DeepEqual(got, tt.status) {
				t.Errorf("status = %+v, want %+v (%s)", got, tt.status, tt.reason)
			}
			if p.RequeueAfter != tt.requeue || p.Failed != tt.failed {
				t.Errorf("requeue %v failed %v, want %v %v (%s)", p.RequeueAfter, p.Failed, tt.requeue, tt.failed, tt.reason)
			}
			checkReasons(t, p)
		})
	}
}

// checkReasons fails for a reason of the plan that does not pass
// action.Reason.Check, or does not render as its rule's sentence (a rule
// without one, or values that are not the rule's).
func checkReasons(t *testing.T, p *replicaset.Plan) {
	t.Helper()
	for _, r := range p.Reasons() {
		if err := r.Check(); err != nil {
			t.Errorf("reason %s: %v", r.Rule, err)
		}
		s := r.String()
		if strings.HasPrefix(s, string(r.Rule)) || strings.Contains(s, "%!") {
			t.Errorf("reason %s does not render as a sentence: %q", r.Rule, s)
		}
	}
}

// TestSyncDoesNotModifyInput checks Sync leaves every input object as it
// was on a state that exercises every branch that reads them.
func TestSyncDoesNotModifyInput(t *testing.T) {
	rs := newRS(1)
	rs.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue}}
	in := []*corev1.Pod{mkPod("a", ready(time.Hour)), mkPod("b", node("")), mkPod("c", orphan()), mkPod("d", labels(map[string]string{"x": "y"})), mkPod("e", deleting())}
	state := replicaset.State{ReplicaSet: rs, Pods: in, ReplicaSets: []*appsv1.ReplicaSet{rs}, Now: t0, PodWriteError: "x"}
	before := struct {
		RS   *appsv1.ReplicaSet
		Pods []*corev1.Pod
	}{rs.DeepCopy(), nil}
	for _, p := range in {
		before.Pods = append(before.Pods, p.DeepCopy())
	}
	order := names(in)
	p, err := replicaset.Sync(state)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Delete) != 2 {
		t.Fatalf("want 2 deletes (3 active), got %v", deleted(p))
	}
	if !reflect.DeepEqual(before.RS, rs) {
		t.Error("the ReplicaSet was modified")
	}
	for i := range in {
		if !reflect.DeepEqual(before.Pods[i], in[i]) {
			t.Errorf("pod %d was modified", i)
		}
	}
	if !slices.Equal(order, names(in)) {
		t.Errorf("the pods slice was reordered: %v", names(in))
	}
	if p.Status.ReplicaSet == rs || p.Create != nil {
		t.Error("the status write aliases the input")
	}
}

// TestBadInput checks each refusal is an *InputError naming the field.
func TestBadInput(t *testing.T) {
	neg := newRS(-1)
	noUID := newRS(1)
	noUID.UID = ""
	badSel := newRS(1)
	badSel.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Bogus"}}}
	noReplicas := newRS(1)
	noReplicas.Spec.Replicas = nil
	tests := []struct {
		name   string
		state  replicaset.State
		field  string
		reason string
	}{
		{name: "no rs", state: replicaset.State{}, field: "replicaSet", reason: "nothing to sync"},
		{name: "negative", state: replicaset.State{ReplicaSet: neg}, field: "spec.replicas", reason: "validation refuses replicas < 0; upstream would slice out of range"},
		{name: "nil replicas", state: replicaset.State{ReplicaSet: noReplicas}, field: "spec.replicas", reason: "defaulting sets it; upstream dereferences it"},
		{name: "no uid", state: replicaset.State{ReplicaSet: noUID}, field: "metadata.uid", reason: "FilterPodsByOwner refuses an owner without UID"},
		{name: "bad selector", state: replicaset.State{ReplicaSet: badSel}, field: "spec.selector", reason: "LabelSelectorAsSelector refuses the operator"},
		{name: "nil pod", state: replicaset.State{ReplicaSet: newRS(1), Pods: []*corev1.Pod{nil}}, field: "pods", reason: "a cache holds no nil pod"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			_, err := replicaset.Sync(tt.state)
			var ie *deployutil.InputError
			if !errors.As(err, &ie) || ie.Field != tt.field || !errors.Is(err, deployutil.ErrInvalidInput) {
				t.Errorf("err = %v, want an InputError on %s (%s)", err, tt.field, tt.reason)
			}
		})
	}
}
