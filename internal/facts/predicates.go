package facts

import (
	"math"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/deployutil"
)

// HasProgressDeadline reports whether progressDeadlineSeconds is set to
// something other than MaxInt32, which means "no deadline".
func HasProgressDeadline(d *appsv1.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32
}

// HasRevisionHistoryLimit reports whether revisionHistoryLimit is set to
// something other than MaxInt32, which means "keep everything".
func HasRevisionHistoryLimit(d *appsv1.Deployment) bool {
	return d.Spec.RevisionHistoryLimit != nil && *d.Spec.RevisionHistoryLimit != math.MaxInt32
}

// Complete reports whether status shows the rollout finished: every replica
// updated, existing and available, and the current generation observed.
// It is upstream's DeploymentComplete, which the status and progress
// decisions use, and the first layer of [RolloutGaps], the library's one
// definition of rolled out.
func Complete(d *appsv1.Deployment, status *appsv1.DeploymentStatus) bool {
	r := replicasOf(d)
	return status.UpdatedReplicas == r &&
		status.Replicas == r &&
		status.AvailableReplicas == r &&
		status.ObservedGeneration >= d.Generation
}

// Progressing reports whether newStatus shows progress over the Deployment's
// current status: more updated replicas, fewer old replicas, more ready or
// more available replicas.
func Progressing(d *appsv1.Deployment, newStatus *appsv1.DeploymentStatus) bool {
	old := d.Status
	return newStatus.UpdatedReplicas > old.UpdatedReplicas ||
		newStatus.Replicas-newStatus.UpdatedReplicas < old.Replicas-old.UpdatedReplicas ||
		newStatus.ReadyReplicas > old.ReadyReplicas ||
		newStatus.AvailableReplicas > old.AvailableReplicas
}

// TimedOut reports whether the rollout has exceeded its progress deadline at
// now, by these rules in order:
//
//  1. No deadline, no Progressing condition in newStatus, or a completed
//     rollout (NewReplicaSetAvailable): false.
//  2. A condition that already says ProgressDeadlineExceeded: true.
//  3. Otherwise, true if lastUpdateTime + deadline is strictly before now.
func TimedOut(d *appsv1.Deployment, newStatus *appsv1.DeploymentStatus, now time.Time) bool {
	if !HasProgressDeadline(d) {
		return false
	}
	c := Condition(newStatus, appsv1.DeploymentProgressing)
	if c == nil || c.Reason == deployutil.ReasonNewReplicaSetAvailable {
		return false
	}
	if c.Reason == deployutil.ReasonProgressDeadlineExceeded {
		return true
	}
	deadline := time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second
	return c.LastUpdateTime.Add(deadline).Before(now)
}

// IsSaturated reports whether rs runs the Deployment at full size: its size,
// its desired-replicas annotation and its available replicas all equal
// spec.replicas. The annotation is read as upstream reads it here, unlike
// [DesiredReplicas]: strconv.Atoi (a sign and leading zeros allowed, "+5"
// and "007" read as 5), then converted to int32 keeping the low 32 bits, so
// "4294967299" reads as 3 and "2147483648" as −2147483648.
func IsSaturated(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	desired, err := strconv.Atoi(rs.Annotations[deployutil.DesiredReplicasAnnotation])
	if err != nil {
		return false
	}
	r := replicasOf(d)
	return rsReplicas(rs) == r && int32(desired) == r && rs.Status.AvailableReplicas == r
}

// NewReplicaSetReplicas returns the size the new ReplicaSet should have now:
//
//   - Recreate: spec.replicas.
//   - RollingUpdate: grow it into the room maxSurge leaves above spec.replicas
//     (counting the spec of every ReplicaSet in allRSs), but never past
//     spec.replicas; if there is no room, keep its size.
//
// Unlike [MaxSurge], a nil maxSurge is an error here, as upstream. The
// arithmetic is upstream's, in int32: maxSurge is converted keeping its low
// 32 bits, and replicas + maxSurge, the room left and the result wrap around
// above 2³¹−1.
func NewReplicaSetReplicas(d *appsv1.Deployment, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (int32, error) {
	r := replicasOf(d)
	switch d.Spec.Strategy.Type {
	case appsv1.RecreateDeploymentStrategyType:
		return r, nil
	case appsv1.RollingUpdateDeploymentStrategyType:
		ru := d.Spec.Strategy.RollingUpdate
		if ru == nil || ru.MaxSurge == nil {
			return 0, &deployutil.InputError{Object: objectName(d), Field: "spec.strategy.rollingUpdate.maxSurge", Kind: deployutil.Required, Detail: "a RollingUpdate needs maxSurge", Rule: ruleDefaulting}
		}
		surge, err := scaled(ru.MaxSurge, r, true)
		if err != nil {
			return 0, err
		}
		cur := SpecReplicas(allRSs)
		maxTotal := r + int32(surge)
		if cur >= maxTotal {
			return rsReplicas(newRS), nil
		}
		up := min(maxTotal-cur, r-rsReplicas(newRS))
		return rsReplicas(newRS) + up, nil
	}
	return 0, &deployutil.InputError{Object: objectName(d), Field: "spec.strategy.type", Kind: deployutil.NotSupported, Value: string(d.Spec.Strategy.Type),
		Detail: `supported values: "Recreate", "RollingUpdate"`, Rule: ruleStrategy}
}

func objectName(d *appsv1.Deployment) string {
	return "Deployment " + d.Namespace + "/" + d.Name
}
