package verdict

import (
	"fmt"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Strict is done only when nothing of the rollout is left: no tool's
// shortcut. It reads the Deployment d, the ReplicaSets rss of its
// namespace (in any order) and the pods keyed by the UID of their
// controlling ReplicaSet (nil when not listed). Every unmet condition is
// one entry of Reasons, in this order:
//
//  1. status.observedGeneration is not metadata.generation: the
//     controller has not acted on the latest spec.
//  2. spec.replicas is above 0 and no ReplicaSet that d controls has d's
//     pod template (ignoring the pod-template-hash label).
//  3. status.updatedReplicas is below spec.replicas.
//  4. status.availableReplicas is below spec.replicas.
//  5. status.updatedReplicas is above spec.replicas (the new ReplicaSet
//     still has surge replicas).
//  6. status.replicas is above status.updatedReplicas: replicas of old
//     ReplicaSets are still counted.
//  7. a ReplicaSet that d controls, without d's pod template, still has
//     spec.replicas or status.replicas above 0 (one entry per ReplicaSet,
//     by name).
//  8. status.terminatingReplicas is above 0.
//  9. pods of ReplicaSets that d controls have a deletion timestamp and
//     have not finished (phase neither Succeeded nor Failed).
//
// A nil status.terminatingReplicas (the controller's feature gate off) is
// not a reason by itself: rule 9 still counts the pods when they are
// given. Strict never fails: it has no deadline of its own. Message is
// the first reason, or when done "deployment \"NAME\" rolled out:
// generation G observed, R replicas updated and available, no old or
// terminating pods".
func Strict(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, pods map[types.UID][]*corev1.Pod) Verdict {
	var reasons []string
	add := func(format string, args ...any) { reasons = append(reasons, fmt.Sprintf(format, args...)) }
	s := d.Status
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}

	if s.ObservedGeneration != d.Generation {
		add("status.observedGeneration %d is not metadata.generation %d: the controller has not acted on the latest spec", s.ObservedGeneration, d.Generation)
	}
	var controlled, old []*appsv1.ReplicaSet
	hasNew := false
	for _, rs := range rss {
		if rs.Namespace != d.Namespace || !metav1.IsControlledBy(rs, d) {
			continue
		}
		controlled = append(controlled, rs)
		if templatesEqualIgnoringHash(&rs.Spec.Template, &d.Spec.Template) {
			hasNew = true
		} else {
			old = append(old, rs)
		}
	}
	if want > 0 && !hasNew {
		add("no ReplicaSet of the Deployment has its pod template: the new ReplicaSet is not created yet")
	}
	if s.UpdatedReplicas < want {
		add("%d of %d replicas are updated", s.UpdatedReplicas, want)
	}
	if s.AvailableReplicas < want {
		add("%d of %d replicas are available", s.AvailableReplicas, want)
	}
	if s.UpdatedReplicas > want {
		add("%d updated replicas for %d wanted: the new ReplicaSet still has %d surge replicas", s.UpdatedReplicas, want, int64(s.UpdatedReplicas)-int64(want))
	}
	if s.Replicas > s.UpdatedReplicas {
		add("%d replicas of old ReplicaSets are still counted (status.replicas %d, updatedReplicas %d)", int64(s.Replicas)-int64(s.UpdatedReplicas), s.Replicas, s.UpdatedReplicas)
	}
	sort.Slice(old, func(i, j int) bool { return old[i].Name < old[j].Name })
	for _, rs := range old {
		spec := int32(0)
		if rs.Spec.Replicas != nil {
			spec = *rs.Spec.Replicas
		}
		if spec > 0 || rs.Status.Replicas > 0 {
			add("old ReplicaSet %s still has spec.replicas %d and status.replicas %d", rs.Name, spec, rs.Status.Replicas)
		}
	}
	if t := s.TerminatingReplicas; t != nil && *t > 0 {
		add("status.terminatingReplicas is %d: old pods are still shutting down", *t)
	}
	if names := terminatingPods(controlled, pods); len(names) > 0 {
		add("%d pods have a deletion timestamp and are still shutting down: %s", len(names), strings.Join(names, ", "))
	}

	if len(reasons) > 0 {
		return Verdict{Tool: StrictTool, Message: reasons[0], Reasons: reasons}
	}
	return Verdict{Tool: StrictTool, Done: true, Message: fmt.Sprintf(
		"deployment %q rolled out: generation %d observed, %d replicas updated and available, no old or terminating pods", d.Name, d.Generation, want)}
}

// terminatingPods names, sorted, the unfinished pods with a deletion
// timestamp that one of the ReplicaSets controls (listed under its UID and
// with it as controller).
func terminatingPods(rss []*appsv1.ReplicaSet, pods map[types.UID][]*corev1.Pod) []string {
	var names []string
	for _, rs := range rss {
		for _, p := range pods[rs.UID] {
			if p == nil || p.DeletionTimestamp == nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
				continue
			}
			if ref := metav1.GetControllerOf(p); ref == nil || ref.UID != rs.UID {
				continue
			}
			names = append(names, p.Name)
		}
	}
	sort.Strings(names)
	return names
}
