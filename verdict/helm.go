package verdict

import (
	"fmt"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Helm3Ready is Helm 3's legacy `helm install/upgrade --wait` readiness of
// the Deployment d (helm.sh/helm/v3 v3.22.0, pkg/kube's ReadyChecker with
// PausedAsReady, as Client.Wait builds it). Helm 3 reads the Deployment and
// the ReplicaSets of its namespace that its selector matches; rss may hold
// any ReplicaSets, in any order. Its rules, in its order:
//
//  1. spec.paused: ready.
//  2. the new ReplicaSet is the oldest (by creation time, then name) of
//     the ReplicaSets in d's namespace that d's selector matches and d
//     controls, whose pod template equals d's ignoring the
//     pod-template-hash label; none: not ready (Helm 3 logs nothing).
//  3. the new ReplicaSet's status.observedGeneration differs from its
//     metadata.generation: not ready, "ReplicaSet is not ready: NS/NAME.
//     observedGeneration (O) does not match spec generation (G).".
//  4. d's status.observedGeneration differs from metadata.generation: not
//     ready, "Deployment is not ready: NS/NAME. observedGeneration (O) does
//     not match spec generation (G).".
//  5. the new ReplicaSet's status.readyReplicas below spec.replicas −
//     maxUnavailable (maxUnavailable 0 for Recreate or 0 replicas, at most
//     spec.replicas; a percentage rounded down; 1 when it and maxSurge
//     both resolve to 0): not ready, "Deployment is not ready: NS/NAME. R
//     out of E expected pods are ready".
//  6. otherwise ready.
//
// Helm 3 counts ready pods, not available ones (minReadySeconds is not
// waited for), never looks at old ReplicaSets or at the Deployment's
// conditions, and so never fails: an exceeded progress deadline only
// keeps it waiting until its --timeout. Message is Helm 3's debug log line
// for the unmet rule.
func Helm3Ready(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) Verdict {
	v := Verdict{Tool: Helm3}
	if d.Spec.Paused {
		v.Done = true
		return v
	}
	rs, err := helm3NewReplicaSet(d, rss)
	if err != nil {
		v.Reasons = []string{fmt.Sprintf("Helm 3 cannot read the selector, so it cannot list ReplicaSets: %v", err)}
		return v
	}
	if rs == nil {
		v.Reasons = []string{"no ReplicaSet controlled by the Deployment has its pod template yet"}
		return v
	}
	if rs.Status.ObservedGeneration != rs.Generation {
		v.Message = fmt.Sprintf("ReplicaSet is not ready: %s/%s. observedGeneration (%d) does not match spec generation (%d).",
			rs.Namespace, rs.Name, rs.Status.ObservedGeneration, rs.Generation)
		return v
	}
	if d.Status.ObservedGeneration != d.Generation {
		v.Message = fmt.Sprintf("Deployment is not ready: %s/%s. observedGeneration (%d) does not match spec generation (%d).",
			d.Namespace, d.Name, d.Status.ObservedGeneration, d.Generation)
		return v
	}
	expected := *d.Spec.Replicas - helm3MaxUnavailable(d)
	if rs.Status.ReadyReplicas < expected {
		v.Message = fmt.Sprintf("Deployment is not ready: %s/%s. %d out of %d expected pods are ready",
			d.Namespace, d.Name, rs.Status.ReadyReplicas, expected)
		return v
	}
	v.Done = true
	return v
}

// helm3NewReplicaSet finds the new ReplicaSet as Helm 3's copy of the
// controller's utilities does: list by selector, keep the controlled ones,
// take the oldest whose template matches.
func helm3NewReplicaSet(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, err
	}
	var owned []*appsv1.ReplicaSet
	for _, rs := range rss {
		if rs.Namespace == d.Namespace && sel.Matches(labels.Set(rs.Labels)) && metav1.IsControlledBy(rs, d) {
			owned = append(owned, rs)
		}
	}
	sort.Slice(owned, func(i, j int) bool {
		a, b := owned[i], owned[j]
		if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.Name < b.Name
		}
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	})
	for _, rs := range owned {
		if templatesEqualIgnoringHash(&rs.Spec.Template, &d.Spec.Template) {
			return rs, nil
		}
	}
	return nil, nil
}

// helm3MaxUnavailable is maxUnavailable as Helm 3 resolves it: with the
// legacy percentage parser (a string is a percentage with every "%"
// removed), errors read as 0.
func helm3MaxUnavailable(d *appsv1.Deployment) int32 {
	replicas := *d.Spec.Replicas
	if d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || replicas == 0 {
		return 0
	}
	var surgeP, unavailableP *intstr.IntOrString
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		surgeP, unavailableP = ru.MaxSurge, ru.MaxUnavailable
	}
	zero := intstr.FromInt32(0)
	// Helm 3 resolves the fenceposts with this legacy parser, whose reading
	// of odd strings differs from GetScaledValueFromIntOrPercent's.
	surge, err := intstr.GetValueFromIntOrPercent(intstr.ValueOrDefault(surgeP, zero), int(replicas), true)
	if err != nil {
		return 0
	}
	unavailable, err := intstr.GetValueFromIntOrPercent(intstr.ValueOrDefault(unavailableP, zero), int(replicas), false)
	if err != nil {
		return 0
	}
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	if u := int32(unavailable); u <= replicas {
		return u
	}
	return replicas
}

// Helm4Wait is Helm 4's `helm install/upgrade --wait` (the default
// "watcher" strategy; helm.sh/helm/v4 v4.3.1) on the Deployment d: a
// paused Deployment is not waited for (Done, no status, no message);
// otherwise the verdict is kstatus's ([KstatusStatus], computed by
// github.com/fluxcd/cli-utils v1.2.2): Done when Current, Failed when
// Failed (Helm 4 stops waiting for it), else waiting. Message is the error
// Helm 4 reports for a Deployment that is not Current, "resource
// Deployment/NS/NAME not ready. status: S, message: M"; empty when Done.
//
// This is where Helm 4 differs from plain kstatus: a paused Deployment is
// done for Helm 4 however far its rollout got, and never Current for
// kstatus.
func Helm4Wait(d *appsv1.Deployment) Verdict {
	if d.Spec.Paused {
		return Verdict{Tool: Helm4, Done: true}
	}
	status, msg := kstatus(d)
	v := Verdict{Tool: Helm4, Status: status, Done: status == KstatusCurrent, Failed: status == KstatusFailed}
	if !v.Done {
		v.Message = fmt.Sprintf("resource Deployment/%s/%s not ready. status: %s, message: %s", d.Namespace, d.Name, status, msg)
	}
	return v
}

// templatesEqualIgnoringHash compares two pod templates with semantic
// equality (nil and empty maps and slices alike, quantities by value)
// after dropping the pod-template-hash label from both.
func templatesEqualIgnoringHash(a, b *corev1.PodTemplateSpec) bool {
	ac, bc := a.DeepCopy(), b.DeepCopy()
	delete(ac.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	delete(bc.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	return apiequality.Semantic.DeepEqual(ac, bc)
}
