package replicaset

import (
	"math"
	"sort"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// DeletionCostAnnotation is the pod annotation whose int32 value orders
// pods for deletion: the lower cost goes first.
const DeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost"

// Rank is what upstream's deletion order (ActivePodsWithRanks in
// pkg/controller/controller_utils.go) reads of one pod.
type Rank struct {
	// Node is spec.nodeName, empty for a pod not yet scheduled.
	Node string
	// Phase is status.phase.
	Phase corev1.PodPhase
	// Ready is the pod's first Ready condition being True.
	Ready bool
	// ReadySince is that condition's lastTransitionTime (zero when not
	// ready).
	ReadySince time.Time
	// Cost is the deletion-cost annotation as upstream reads it: 0 when
	// absent or not a canonical int32.
	Cost int32
	// OnNode is the number of active related pods on the pod's node (the
	// pods matched by the selectors of the ReplicaSets with the same
	// controller, each counted once; unscheduled pods share the node "").
	OnNode int
	// Restarts and SidecarRestarts are the most restarts of a container and
	// of a restartable init container.
	Restarts, SidecarRestarts int
	// Created is metadata.creationTimestamp.
	Created time.Time
	// UID breaks ties within a logarithmic bucket.
	UID types.UID
}

// phaseOrder is upstream's podPhaseToOrdinal: pending first, then unknown,
// then running; a phase outside the map counts as pending, as a map miss
// does upstream.
func phaseOrder(p corev1.PodPhase) int {
	switch p {
	case corev1.PodUnknown:
		return 1
	case corev1.PodRunning:
		return 2
	}
	return 0
}

// rankOf reads the rank of pod with onNode related pods on its node.
func rankOf(pod *corev1.Pod, onNode int) Rank {
	r := Rank{Node: pod.Spec.NodeName, Phase: pod.Status.Phase, OnNode: onNode,
		Created: pod.CreationTimestamp.Time, UID: pod.UID, Cost: deletionCost(pod.Annotations)}
	if c := readyCondition(pod); c != nil && c.Status == corev1.ConditionTrue {
		r.Ready, r.ReadySince = true, c.LastTransitionTime.Time
	}
	r.Restarts, r.SidecarRestarts = restarts(pod)
	return r
}

// deletionCost parses the annotation as upstream's
// GetDeletionCostFromPodAnnotations: a leading '+' or a leading zero (other
// than "0" itself) is refused, then a base-10 int32; anything refused is 0.
func deletionCost(ann map[string]string) int32 {
	v, ok := ann[DeletionCostAnnotation]
	if !ok || v == "" {
		return 0
	}
	if c := v[0]; !(c == '-' || v == "0" || c >= '1' && c <= '9') {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0
	}
	return int32(n)
}

// restarts returns the highest restart count of a regular container and of
// an init container whose restartPolicy is Always (a sidecar), as
// upstream's maxContainerRestarts (never below 0).
func restarts(pod *corev1.Pod) (regular, sidecar int) {
	for _, c := range pod.Status.ContainerStatuses {
		regular = max(regular, int(c.RestartCount))
	}
	side := map[string]bool{}
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			side[c.Name] = true
		}
	}
	for _, c := range pod.Status.InitContainerStatuses {
		if side[c.Name] {
			sidecar = max(sidecar, int(c.RestartCount))
		}
	}
	return regular, sidecar
}

// ranked is the slice upstream sorts: pods with their ranks, compared at
// now. Less restates ActivePodsWithRanks.Less rule by rule (see
// [DeletionOrder]).
type ranked struct {
	pods  []*corev1.Pod
	ranks []Rank
	now   time.Time
}

func (s ranked) Len() int { return len(s.pods) }
func (s ranked) Swap(i, j int) {
	s.pods[i], s.pods[j] = s.pods[j], s.pods[i]
	s.ranks[i], s.ranks[j] = s.ranks[j], s.ranks[i]
}

func (s ranked) Less(i, j int) bool { return lessRanks(&s.ranks[i], &s.ranks[j], s.now) }

// lessRanks reports whether upstream's ActivePodsWithRanks puts the pod
// ranked a before the pod ranked b at now, rule by rule (see
// [DeletionOrder]).
func lessRanks(a, b *Rank, now time.Time) bool {
	if a.Node != b.Node && (a.Node == "" || b.Node == "") {
		return a.Node == ""
	}
	if pa, pb := phaseOrder(a.Phase), phaseOrder(b.Phase); pa != pb {
		return pa < pb
	}
	if a.Ready != b.Ready {
		return !a.Ready
	}
	if a.Cost != b.Cost {
		return a.Cost < b.Cost
	}
	if a.OnNode != b.OnNode {
		return a.OnNode > b.OnNode
	}
	if a.Ready && b.Ready && !a.ReadySince.Equal(b.ReadySince) {
		return newer(now, a.ReadySince, b.ReadySince, a.UID, b.UID)
	}
	if a.Restarts != b.Restarts {
		return a.Restarts > b.Restarts
	}
	if a.SidecarRestarts != b.SidecarRestarts {
		return a.SidecarRestarts > b.SidecarRestarts
	}
	if !a.Created.Equal(b.Created) {
		return newer(now, a.Created, b.Created, a.UID, b.UID)
	}
	return false
}

// newer reports whether time a (of the pod with UID ua) goes before b at
// now: unscaled when now or either time is zero (a zero time first, else
// the later time first), otherwise by the base-2 logarithm of the age at
// now, the younger bucket first and the lower UID first within a bucket.
func newer(now, a, b time.Time, ua, ub types.UID) bool {
	if now.IsZero() || a.IsZero() || b.IsZero() {
		if a.IsZero() || b.IsZero() {
			return a.IsZero()
		}
		return a.After(b)
	}
	if d := logBucket(now.Sub(a)) - logBucket(now.Sub(b)); d != 0 {
		return d < 0
	}
	return ua < ub
}

// logBucket is the integer part of log2 of an age in nanoseconds, −1 for
// an age that is not positive.
func logBucket(age time.Duration) int64 {
	if age <= 0 {
		return -1
	}
	return int64(math.Log2(float64(age)))
}

// DeletionOrder returns pods in upstream's order of preference for
// deletion at now, with each pod's [Rank], given the number of active
// related pods per node (onNode, keyed by spec.nodeName). The order is
// upstream's ActivePodsWithRanks, these rules in turn:
//
//  1. an unscheduled pod before a scheduled one;
//  2. Pending (or any phase upstream does not rank) before Unknown before
//     Running;
//  3. not ready before ready;
//  4. the lower deletion cost ([DeletionCostAnnotation]) first (the
//     PodDeletionCost gate, on by default since 1.22, assumed on);
//  5. more related active pods on the pod's node first;
//  6. both ready: the more recently ready first, ages compared as the
//     integer part of their base-2 logarithm in nanoseconds, the lower UID
//     first in the same bucket;
//  7. more restarts of a container first, then of a sidecar;
//  8. the more recently created first, in the same buckets and tie-break.
//
// Rules 6 and 8 do not make a total order (buckets and UIDs can disagree
// with plain time, a zero time compares outside the buckets), so the
// result depends on the order given and on the sort: DeletionOrder sorts
// a copy of pods given in the controller's list order with [sort.Sort]
// (Go's pdqsort, the algorithm kube-controller-manager is built with),
// which makes the same comparisons as upstream on the same input and so
// gives the same order. pods is not modified.
func DeletionOrder(pods []*corev1.Pod, onNode map[string]int, now time.Time) ([]*corev1.Pod, []Rank) {
	s := ranked{pods: append([]*corev1.Pod(nil), pods...), ranks: make([]Rank, len(pods)), now: now}
	for i, p := range s.pods {
		s.ranks[i] = rankOf(p, onNode[p.Spec.NodeName])
	}
	sort.Sort(s)
	return s.pods, s.ranks
}
