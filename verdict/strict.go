package verdict

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/internal/facts"
)

// Strict is done only when nothing of the rollout is left: no tool's
// shortcut. It reads the Deployment d, the ReplicaSets rss of its
// namespace (in any order) and the pods keyed by the UID of their
// controlling ReplicaSet (nil when not listed). The ReplicaSets that count
// are those d controls; of them, the new one is the oldest with d's pod
// template (ignoring the pod-template-hash label), as the controller tells
// it, and every other is old. Every unmet condition is one entry of
// Reasons, in this order:
//
//  1. status.observedGeneration is not metadata.generation: the
//     controller has not acted on the latest spec.
//  2. spec.replicas is above 0 and no ReplicaSet that d controls has d's
//     pod template.
//  3. status.updatedReplicas is below spec.replicas.
//  4. status.availableReplicas is below spec.replicas.
//  5. status.updatedReplicas is above spec.replicas (the new ReplicaSet
//     still has surge replicas).
//  6. status.replicas is above status.updatedReplicas: replicas of old
//     ReplicaSets are still counted.
//  7. none of rules 1 and 3–6 holds, yet the status is not complete as the
//     controller judges it (status.replicas below, or availableReplicas
//     above, spec.replicas): a status an apiserver refuses.
//  8. none of rules 1 and 3–7 holds (the status is complete), but the new
//     ReplicaSet's spec.replicas or status.replicas is not spec.replicas,
//     or its availableReplicas is below it: the Deployment's status lags
//     its ReplicaSet.
//  9. an old ReplicaSet still has spec.replicas or status.replicas above 0
//     (one entry per ReplicaSet, by name).
//  10. status.terminatingReplicas is above 0; when it is not, each
//     ReplicaSet that d controls whose status.terminatingReplicas is above
//     0 (one entry per ReplicaSet, by name).
//  11. pods of ReplicaSets that d controls have a deletion timestamp and
//     have not finished (phase neither Succeeded nor Failed).
//
// These are the conditions of the library's one definition of a finished
// rollout, which builds on the controller's own (upstream's
// DeploymentComplete, rules 1 and 3–7). A nil status.terminatingReplicas
// (the controller's feature gate off) is not a reason by itself: rules 10
// and 11 still count the ReplicaSets' reports and the pods when they are
// given. Strict never fails: it has no deadline of its own. Message is
// the first reason, or when done "deployment \"NAME\" rolled out:
// generation G observed, R replicas updated and available, no old or
// terminating pods".
func Strict(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, pods map[types.UID][]*corev1.Pod) Verdict {
	if d.Spec.Replicas == nil { // as an apiserver defaults it
		defaulted := *d
		defaulted.Spec.Replicas = ptr.To[int32](1)
		d = &defaulted
	}
	var controlled []*appsv1.ReplicaSet
	for _, rs := range rss {
		if rs.Namespace == d.Namespace && metav1.IsControlledBy(rs, d) {
			controlled = append(controlled, rs)
		}
	}
	gaps := facts.RolloutGaps(d, controlled, pods)
	if len(gaps) == 0 {
		return Verdict{Tool: StrictTool, Done: true, Message: fmt.Sprintf(
			"deployment %q rolled out: generation %d observed, %d replicas updated and available, no old or terminating pods", d.Name, d.Generation, *d.Spec.Replicas)}
	}
	reasons := make([]string, len(gaps))
	for i, g := range gaps {
		reasons[i] = strictReason(d, g)
	}
	return Verdict{Tool: StrictTool, Message: reasons[0], Reasons: reasons}
}

// strictReason says one gap in Strict's words.
func strictReason(d *appsv1.Deployment, g facts.RolloutGap) string {
	s, want := d.Status, *d.Spec.Replicas
	switch g.Rule {
	case facts.GapGeneration:
		return fmt.Sprintf("status.observedGeneration %d is not metadata.generation %d: the controller has not acted on the latest spec", s.ObservedGeneration, d.Generation)
	case facts.GapNoNewReplicaSet:
		return "no ReplicaSet of the Deployment has its pod template: the new ReplicaSet is not created yet"
	case facts.GapUpdatedBelow:
		return fmt.Sprintf("%d of %d replicas are updated", s.UpdatedReplicas, want)
	case facts.GapAvailableBelow:
		return fmt.Sprintf("%d of %d replicas are available", s.AvailableReplicas, want)
	case facts.GapUpdatedAbove:
		return fmt.Sprintf("%d updated replicas for %d wanted: the new ReplicaSet still has %d surge replicas", s.UpdatedReplicas, want, int64(s.UpdatedReplicas)-int64(want))
	case facts.GapOldCounted:
		return fmt.Sprintf("%d replicas of old ReplicaSets are still counted (status.replicas %d, updatedReplicas %d)", int64(s.Replicas)-int64(s.UpdatedReplicas), s.Replicas, s.UpdatedReplicas)
	case facts.GapStatus:
		return fmt.Sprintf("status.replicas %d and availableReplicas %d are not spec.replicas %d: the status is not complete", s.Replicas, s.AvailableReplicas, want)
	case facts.GapNewReplicaSetBehind:
		rs := g.ReplicaSet
		return fmt.Sprintf("the new ReplicaSet %s has spec.replicas %d, status.replicas %d and availableReplicas %d for %d wanted: the Deployment's status lags it",
			rs.Name, ptr.Deref(rs.Spec.Replicas, 0), rs.Status.Replicas, rs.Status.AvailableReplicas, want)
	case facts.GapOldReplicaSet:
		rs := g.ReplicaSet
		return fmt.Sprintf("old ReplicaSet %s still has spec.replicas %d and status.replicas %d", rs.Name, ptr.Deref(rs.Spec.Replicas, 0), rs.Status.Replicas)
	case facts.GapTerminatingReplicas:
		return fmt.Sprintf("status.terminatingReplicas is %d: old pods are still shutting down", *s.TerminatingReplicas)
	case facts.GapReplicaSetTerminating:
		rs := g.ReplicaSet
		return fmt.Sprintf("ReplicaSet %s reports status.terminatingReplicas %d: its pods are still shutting down", rs.Name, *rs.Status.TerminatingReplicas)
	case facts.GapTerminatingPods:
		return fmt.Sprintf("%d pods have a deletion timestamp and are still shutting down: %s", len(g.Pods), strings.Join(g.Pods, ", "))
	}
	return fmt.Sprintf("unmet condition %d", g.Rule)
}
