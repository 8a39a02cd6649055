package verdict

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// Argo CD's health words (github.com/argoproj/gitops-engine/pkg/health).
const (
	// ArgoHealthy is Argo CD's "healthy".
	ArgoHealthy = "Healthy"
	// ArgoProgressing is Argo CD's "not healthy yet, but may become so".
	ArgoProgressing = "Progressing"
	// ArgoSuspended is Argo CD's "paused".
	ArgoSuspended = "Suspended"
	// ArgoDegraded is Argo CD's "failed".
	ArgoDegraded = "Degraded"
)

// argoHookFinalizer is the finalizer Argo CD puts on hook resources; a
// Deployment being deleted that carries it keeps its ordinary health.
const argoHookFinalizer = "argocd.argoproj.io/hook-finalizer"

// ArgoCDHealth is Argo CD's health of the Deployment d as read
// (gitops-engine's health.GetResourceHealth with no resource
// customization, at github.com/argoproj/gitops-engine
// v0.7.1-0.20260512161450-ff8d2f5207dc). Argo CD reads the Deployment only.
// Its rules, in its order:
//
//  1. a deletion timestamp, unless d carries Argo CD's hook finalizer:
//     Progressing, "Pending deletion".
//  2. spec.paused: Suspended, "Deployment is paused".
//  3. metadata.generation above status.observedGeneration: Progressing,
//     "Waiting for rollout to finish: observed deployment generation less
//     than desired generation".
//  4. the first Progressing condition has reason ProgressDeadlineExceeded:
//     Degraded, "Deployment \"NAME\" exceeded its progress deadline".
//  5. as kubectl: updatedReplicas below spec.replicas, "Waiting for rollout
//     to finish: U out of R new replicas have been updated..."; replicas
//     above updatedReplicas, "... N old replicas are pending
//     termination..."; availableReplicas below updatedReplicas, "... A of
//     U updated replicas are available..." — each Progressing.
//  6. otherwise Healthy, no message.
//
// Done is Healthy; Failed is Degraded (Argo CD's sync waves stop on it).
// Suspended is neither: a sync wave waits on it.
func ArgoCDHealth(d *appsv1.Deployment) Verdict {
	status, msg := argoHealth(d)
	return Verdict{Tool: ArgoCD, Done: status == ArgoHealthy, Failed: status == ArgoDegraded, Status: status, Message: msg}
}

func argoHealth(d *appsv1.Deployment) (status, message string) {
	if d.DeletionTimestamp != nil && !hasString(d.Finalizers, argoHookFinalizer) {
		return ArgoProgressing, "Pending deletion"
	}
	if d.Spec.Paused {
		return ArgoSuspended, "Deployment is paused"
	}
	s := d.Status
	if d.Generation > s.ObservedGeneration {
		return ArgoProgressing, "Waiting for rollout to finish: observed deployment generation less than desired generation"
	}
	for _, c := range s.Conditions {
		if c.Type != appsv1.DeploymentProgressing {
			continue
		}
		if c.Reason == "ProgressDeadlineExceeded" {
			return ArgoDegraded, fmt.Sprintf("Deployment %q exceeded its progress deadline", d.Name)
		}
		break // only the first Progressing condition counts
	}
	const waiting = "Waiting for rollout to finish: "
	switch {
	case d.Spec.Replicas != nil && s.UpdatedReplicas < *d.Spec.Replicas:
		return ArgoProgressing, fmt.Sprintf(waiting+"%d out of %d new replicas have been updated...", s.UpdatedReplicas, *d.Spec.Replicas)
	case s.Replicas > s.UpdatedReplicas:
		return ArgoProgressing, fmt.Sprintf(waiting+"%d old replicas are pending termination...", s.Replicas-s.UpdatedReplicas)
	case s.AvailableReplicas < s.UpdatedReplicas:
		return ArgoProgressing, fmt.Sprintf(waiting+"%d of %d updated replicas are available...", s.AvailableReplicas, s.UpdatedReplicas)
	}
	return ArgoHealthy, ""
}

func hasString(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}
