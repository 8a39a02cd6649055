package verdict

import (
	"fmt"
	"math"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// kstatus's status words (sigs.k8s.io/cli-utils/pkg/kstatus/status).
const (
	// KstatusCurrent is kstatus's "the resource is fully reconciled".
	KstatusCurrent = "Current"
	// KstatusInProgress is kstatus's "still reconciling".
	KstatusInProgress = "InProgress"
	// KstatusFailed is kstatus's "reconciling failed; it will not finish
	// by itself".
	KstatusFailed = "Failed"
	// KstatusTerminating is kstatus's "being deleted".
	KstatusTerminating = "Terminating"
)

// KstatusStatus is kstatus's status.Compute on d as read
// (sigs.k8s.io/cli-utils v0.37.2; github.com/fluxcd/cli-utils v1.2.2, which
// Flux and Helm 4 use, decides the same). kstatus reads the Deployment
// only. Its rules, in its order, each with its message:
//
//  1. a deletion timestamp: Terminating, "Resource scheduled for deletion".
//  2. metadata.generation and status.observedGeneration both set (non-zero:
//     kstatus reads the object as JSON, where zero is absent) and
//     different: InProgress, "Deployment generation is G, but latest
//     observed generation is O".
//  3. the first condition of type Reconciling with status True:
//     InProgress with its message; of type Stalled with status True:
//     Failed with its message.
//  4. any Progressing condition with reason ProgressDeadlineExceeded
//     (whatever its status): Failed, "Progress deadline exceeded".
//  5. spec.replicas above status.replicas: "Replicas: S/R"; above
//     status.updatedReplicas: "Updated: U/R"; status.replicas above
//     spec.replicas: "Pending termination: N"; updatedReplicas above
//     availableReplicas: "Available: A/U"; spec.replicas above
//     readyReplicas: "Ready: N/R" — each InProgress.
//  6. no Progressing condition with status True and reason
//     NewReplicaSetAvailable, while progressDeadlineSeconds is set and not
//     2³¹−1: InProgress, "ReplicaSet not Available"; no Available condition
//     with status True: InProgress, "Deployment not Available".
//  7. otherwise Current, "Deployment is available. Replicas: N"
//     (status.replicas).
//
// A paused Deployment is not special: one whose rollout finished while
// paused carries Progressing reason DeploymentPaused, so rule 6 holds it
// InProgress for as long as it stays paused.
func KstatusStatus(d *appsv1.Deployment) Verdict {
	status, msg := kstatus(d)
	return Verdict{
		Tool:    Kstatus,
		Done:    status == KstatusCurrent,
		Failed:  status == KstatusFailed,
		Status:  status,
		Message: msg,
	}
}

func kstatus(d *appsv1.Deployment) (status, message string) {
	if d.DeletionTimestamp != nil {
		return KstatusTerminating, "Resource scheduled for deletion"
	}
	// Zero is omitted from the JSON kstatus reads, and an absent field is
	// not compared.
	if g, o := d.Generation, d.Status.ObservedGeneration; g != 0 && o != 0 && g != o {
		return KstatusInProgress, fmt.Sprintf("Deployment generation is %d, but latest observed generation is %d", g, o)
	}
	for _, c := range d.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case "Reconciling":
			return KstatusInProgress, c.Message
		case "Stalled":
			return KstatusFailed, c.Message
		}
	}

	settled := d.Spec.ProgressDeadlineSeconds == nil || *d.Spec.ProgressDeadlineSeconds == math.MaxInt32
	available := false
	for _, c := range d.Status.Conditions {
		switch c.Type {
		case appsv1.DeploymentProgressing:
			if c.Reason == "ProgressDeadlineExceeded" {
				return KstatusFailed, "Progress deadline exceeded"
			}
			if c.Status == corev1.ConditionTrue && c.Reason == "NewReplicaSetAvailable" {
				settled = true
			}
		case appsv1.DeploymentAvailable:
			if c.Status == corev1.ConditionTrue {
				available = true
			}
		}
	}

	want := int32(1) // kstatus's default for an absent spec.replicas
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	s := d.Status
	switch {
	case want > s.Replicas:
		return KstatusInProgress, fmt.Sprintf("Replicas: %d/%d", s.Replicas, want)
	case want > s.UpdatedReplicas:
		return KstatusInProgress, fmt.Sprintf("Updated: %d/%d", s.UpdatedReplicas, want)
	case s.Replicas > want:
		return KstatusInProgress, fmt.Sprintf("Pending termination: %d", s.Replicas-want)
	case s.UpdatedReplicas > s.AvailableReplicas:
		return KstatusInProgress, fmt.Sprintf("Available: %d/%d", s.AvailableReplicas, s.UpdatedReplicas)
	case want > s.ReadyReplicas:
		return KstatusInProgress, fmt.Sprintf("Ready: %d/%d", s.ReadyReplicas, want)
	case !settled:
		return KstatusInProgress, "ReplicaSet not Available"
	case !available:
		return KstatusInProgress, "Deployment not Available"
	}
	return KstatusCurrent, fmt.Sprintf("Deployment is available. Replicas: %d", s.Replicas)
}
