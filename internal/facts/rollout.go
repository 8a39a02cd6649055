package facts

import (
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// GapRule names one condition of a finished rollout (see [RolloutGaps]).
type GapRule int

// The conditions of a finished rollout, in the order [RolloutGaps] reports
// them.
const (
	// GapGeneration: status.observedGeneration is not metadata.generation
	// (below it: the controller has not acted on the latest spec; above it
	// is a status [Complete] accepts and this rule does not).
	GapGeneration GapRule = iota + 1
	// GapNoNewReplicaSet: spec.replicas is above 0 and no ReplicaSet has
	// the Deployment's pod template (ignoring the pod-template-hash label).
	GapNoNewReplicaSet
	// GapUpdatedBelow: status.updatedReplicas is below spec.replicas.
	GapUpdatedBelow
	// GapAvailableBelow: status.availableReplicas is below spec.replicas.
	GapAvailableBelow
	// GapUpdatedAbove: status.updatedReplicas is above spec.replicas (the
	// new ReplicaSet still has surge replicas).
	GapUpdatedAbove
	// GapOldCounted: status.replicas is above status.updatedReplicas:
	// replicas of old ReplicaSets are still counted.
	GapOldCounted
	// GapStatus: [Complete] does not hold on the status although none of
	// the rules above fires: status.replicas below, or availableReplicas
	// above, spec.replicas, a status an apiserver refuses (updatedReplicas
	// and availableReplicas may not exceed replicas).
	GapStatus
	// GapNewReplicaSetBehind: the status is complete (none of the gaps
	// above but GapNoNewReplicaSet), but the new ReplicaSet (ReplicaSet)
	// says otherwise: its spec.replicas or status.replicas is not
	// spec.replicas, or its availableReplicas is below it. The
	// Deployment's status lags its ReplicaSet.
	GapNewReplicaSetBehind
	// GapOldReplicaSet: an old ReplicaSet (ReplicaSet) still has
	// spec.replicas or status.replicas above 0; one gap per ReplicaSet, by
	// name.
	GapOldReplicaSet
	// GapTerminatingReplicas: status.terminatingReplicas is above 0.
	GapTerminatingReplicas
	// GapReplicaSetTerminating: status.terminatingReplicas is not above 0
	// (nil with the controller's feature gate off, or not yet updated), but
	// a ReplicaSet (ReplicaSet) reports status.terminatingReplicas above 0;
	// one gap per ReplicaSet, by name.
	GapReplicaSetTerminating
	// GapTerminatingPods: pods of the ReplicaSets (Pods, by name) have a
	// deletion timestamp and have not finished (phase neither Succeeded nor
	// Failed).
	GapTerminatingPods
)

// RolloutGap is one unmet condition of a finished rollout.
type RolloutGap struct {
	// Rule is the condition.
	Rule GapRule
	// ReplicaSet is the ReplicaSet the gap is about (GapNewReplicaSetBehind,
	// GapOldReplicaSet, GapReplicaSetTerminating), else nil.
	ReplicaSet *appsv1.ReplicaSet
	// Pods are the names of the pods of GapTerminatingPods, sorted.
	Pods []string
}

// RolledOut reports whether nothing of the rollout of d is left: no
// [RolloutGaps].
func RolledOut(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, pods map[types.UID][]*corev1.Pod) bool {
	return len(RolloutGaps(d, rss, pods)) == 0
}

// RolloutGaps is the one definition of a finished rollout: it returns
// every condition the Deployment d, its ReplicaSets rss (those that are
// d's, in any order; the caller decides which) and their pods (keyed by
// the UID of the controlling ReplicaSet, nil when not listed) do not meet,
// in the order of the Gap constants. It has two layers:
//
//  1. The status: upstream's [Complete] (DeploymentComplete) on
//     d.Status, which the status and progress decisions use, with the
//     observed generation equal to, not only at least, the generation.
//     GapGeneration, GapUpdatedBelow, GapAvailableBelow, GapUpdatedAbove
//     and GapOldCounted say which part fails; GapStatus catches the rest,
//     so no gap means Complete holds.
//  2. The objects behind the status: the new ReplicaSet listed
//     ([SplitReplicaSets] tells it: the oldest with d's template) and at
//     size, no replica left on an old ReplicaSet (a second ReplicaSet with
//     d's template is old, as upstream scales it away), and no pod
//     terminating, as the status, the ReplicaSets or the pods say.
//
// A nil status.terminatingReplicas is not a gap by itself. d's
// spec.replicas must be set (an apiserver defaults it).
func RolloutGaps(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, pods map[types.UID][]*corev1.Pod) []RolloutGap {
	var gaps []RolloutGap
	add := func(r GapRule) { gaps = append(gaps, RolloutGap{Rule: r}) }
	s, want := &d.Status, replicasOf(d)
	newRS, old := SplitReplicaSets(d, rss)

	if s.ObservedGeneration != d.Generation {
		add(GapGeneration)
	}
	if want > 0 && newRS == nil {
		add(GapNoNewReplicaSet)
	}
	if s.UpdatedReplicas < want {
		add(GapUpdatedBelow)
	}
	if s.AvailableReplicas < want {
		add(GapAvailableBelow)
	}
	if s.UpdatedReplicas > want {
		add(GapUpdatedAbove)
	}
	if s.Replicas > s.UpdatedReplicas {
		add(GapOldCounted)
	}
	statusGaps := slices.ContainsFunc(gaps, func(g RolloutGap) bool { return g.Rule != GapNoNewReplicaSet })
	if !Complete(d, s) && !statusGaps {
		add(GapStatus)
		statusGaps = true
	}
	if newRS != nil && !statusGaps &&
		(rsReplicas(newRS) != want || newRS.Status.Replicas != want || newRS.Status.AvailableReplicas < want) {
		gaps = append(gaps, RolloutGap{Rule: GapNewReplicaSetBehind, ReplicaSet: newRS})
	}
	for _, rs := range byName(old) {
		if rsReplicas(rs) > 0 || rs.Status.Replicas > 0 {
			gaps = append(gaps, RolloutGap{Rule: GapOldReplicaSet, ReplicaSet: rs})
		}
	}
	if ptr.Deref(s.TerminatingReplicas, 0) > 0 {
		add(GapTerminatingReplicas)
	} else {
		for _, rs := range byName(rss) {
			if ptr.Deref(rs.Status.TerminatingReplicas, 0) > 0 {
				gaps = append(gaps, RolloutGap{Rule: GapReplicaSetTerminating, ReplicaSet: rs})
			}
		}
	}
	if names := terminatingPods(rss, pods); len(names) > 0 {
		gaps = append(gaps, RolloutGap{Rule: GapTerminatingPods, Pods: names})
	}
	return gaps
}

func byName(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	sorted := slices.Clone(rss)
	slices.SortStableFunc(sorted, func(a, b *appsv1.ReplicaSet) int { return strings.Compare(a.Name, b.Name) })
	return sorted
}

// terminatingPods names, sorted, the unfinished pods with a deletion
// timestamp that one of rss controls (listed under its UID and with it as
// controller).
func terminatingPods(rss []*appsv1.ReplicaSet, pods map[types.UID][]*corev1.Pod) []string {
	var names []string
	for _, rs := range rss {
		for _, p := range pods[rs.UID] {
			if p == nil || p.DeletionTimestamp == nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
				continue
			}
			if ref := metav1.GetControllerOfNoCopy(p); ref == nil || ref.UID != rs.UID {
				continue
			}
			names = append(names, p.Name)
		}
	}
	slices.Sort(names)
	return names
}
