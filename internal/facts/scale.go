package facts

import (
	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
)

// ScaleReplicaSet decides the write that sets rs to size n, as upstream's
// scaleReplicaSet does:
//
//  1. Unless force is set, a ReplicaSet already of size n needs no write.
//  2. A write is needed if the size differs or the replica annotations do
//     not say spec.replicas and spec.replicas+maxSurge.
//  3. The write carries both the size and refreshed annotations.
//
// ok is false when no write is needed. rs is not modified.
func ScaleReplicaSet(rs *appsv1.ReplicaSet, n int32, d *appsv1.Deployment, force bool, why ...action.Reason) (s deployutil.Resize, ok bool) {
	cur := *rs.Spec.Replicas
	if !force && cur == n {
		return deployutil.Resize{}, false
	}
	desired, maxReplicas := *d.Spec.Replicas, MaxReplicas(d)
	if cur == n && !ReplicasAnnotationsNeedUpdate(rs, desired, maxReplicas) {
		return deployutil.Resize{}, false
	}
	to := *rs
	to.Spec.Replicas = &n
	to.Annotations, _ = WithReplicasAnnotations(rs.Annotations, desired, maxReplicas)
	if len(why) == 0 {
		why = []action.Reason{action.Because(action.RuleReplicasAnnotations, action.Num("desired", desired), action.Num("max", maxReplicas))}
	}
	return deployutil.Resize{From: rs, To: &to, Why: why}, true
}
