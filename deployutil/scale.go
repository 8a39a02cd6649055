package deployutil

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// Scale is the decision to write a ReplicaSet with a new size. It is the
// unit the scaling, rolling and recreate packages decide in.
type Scale struct {
	// From is the ReplicaSet as the decision read it: the base of the write.
	From *appsv1.ReplicaSet
	// To is the ReplicaSet to write: From with the new size and its
	// desired-replicas and max-replicas annotations refreshed. It shares
	// everything else with From; treat both as read-only.
	To *appsv1.ReplicaSet
	// Why says why this size, in words.
	Why string
}

// Resized reports whether the size changes (an annotation refresh alone
// does not resize).
func (s Scale) Resized() bool { return *s.From.Spec.Replicas != *s.To.Spec.Replicas }

// Direction returns "up" or "down" for a resize, as upstream words its
// ScalingReplicaSet events.
func (s Scale) Direction() string {
	if *s.From.Spec.Replicas < *s.To.Spec.Replicas {
		return "up"
	}
	return "down"
}

// ScaleReplicaSet decides the write that sets rs to size n, as upstream's
// scaleReplicaSet does:
//
//  1. Unless force is set, a ReplicaSet already of size n needs no write.
//  2. A write is needed if the size differs or the replica annotations do
//     not say spec.replicas and spec.replicas+maxSurge.
//  3. The write carries both the size and refreshed annotations.
//
// ok is false when no write is needed. rs is not modified.
func ScaleReplicaSet(rs *appsv1.ReplicaSet, n int32, d *appsv1.Deployment, force bool, why string) (s Scale, ok bool) {
	cur := *rs.Spec.Replicas
	if !force && cur == n {
		return Scale{}, false
	}
	desired, maxReplicas := *d.Spec.Replicas, MaxReplicas(d)
	if cur == n && !ReplicasAnnotationsNeedUpdate(rs, desired, maxReplicas) {
		return Scale{}, false
	}
	to := *rs
	to.Spec.Replicas = &n
	to.Annotations, _ = WithReplicasAnnotations(rs.Annotations, desired, maxReplicas)
	if why == "" {
		why = fmt.Sprintf("refresh the replica annotations to desired %d, max %d", desired, maxReplicas)
	}
	return Scale{From: rs, To: &to, Why: why}, true
}
