package recreate

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
)

// ScaleDownOld decides to scale every old ReplicaSet that still has replicas
// to zero, in the given order.
func ScaleDownOld(d *appsv1.Deployment, old []*appsv1.ReplicaSet) []deployutil.Resize {
	var out []deployutil.Resize
	for _, rs := range old {
		if *rs.Spec.Replicas == 0 {
			continue
		}
		if s, ok := facts.ScaleReplicaSet(rs, 0, d, false, action.Because(action.RuleRecreateScaleDownOld,
			action.Str("replicaSet", rs.Name), action.Num("from", *rs.Spec.Replicas))); ok {
			out = append(out, s)
		}
	}
	return out
}

// OldPodsRunning reports whether an old pod may still run, by these rules in
// order:
//
//  1. Any old ReplicaSet reporting status.replicas > 0: true.
//  2. Any pod of an old ReplicaSet whose phase is not Failed or Succeeded:
//     true. The phase alone decides: a terminating pod still Running
//     counts, and so does a pod in phase Unknown or with no phase.
//
// pods must be upstream's pod map, as Sync builds it from the claimed
// ReplicaSets (by each pod's controller reference): pods[rs.UID] holds the pods rs controls. Pods
// under other keys are not looked at. The reason names what still runs
// (RuleRecreateOldPodsReported or RuleRecreateOldPodRunning); it is the zero
// Reason when nothing does.
func OldPodsRunning(old []*appsv1.ReplicaSet, pods map[types.UID][]*corev1.Pod) (bool, action.Reason) {
	if n := facts.StatusReplicas(old); n > 0 {
		return true, action.Because(action.RuleRecreateOldPodsReported, action.Num("pods", n))
	}
	for _, rs := range old {
		for _, p := range pods[rs.UID] {
			switch p.Status.Phase {
			case corev1.PodFailed, corev1.PodSucceeded:
				continue
			}
			phase := string(p.Status.Phase)
			if phase == "" {
				phase = "no phase"
			}
			if p.DeletionTimestamp != nil {
				phase += ", terminating"
			}
			return true, action.Because(action.RuleRecreateOldPodRunning, action.Str("pod", p.Name), action.Str("replicaSet", rs.Name), action.Str("phase", phase))
		}
	}
	return false, action.Reason{}
}

// ScaleUpNew decides to run the new ReplicaSet at spec.replicas; ok is false
// when it already does.
func ScaleUpNew(d *appsv1.Deployment, newRS *appsv1.ReplicaSet) (deployutil.Resize, bool) {
	return facts.ScaleReplicaSet(newRS, *d.Spec.Replicas, d, false, action.Because(action.RuleRecreateScaleUpNew,
		action.Str("replicaSet", newRS.Name), action.Num("from", *newRS.Spec.Replicas), action.Num("to", *d.Spec.Replicas)))
}
