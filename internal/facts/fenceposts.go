package facts

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/deploysync/deploysync/deployutil"
)

// MaxSurge returns how many pods a RollingUpdate Deployment may run above
// spec.replicas; 0 for other strategies or unresolvable fenceposts (as
// upstream: call [Validate] or [Fenceposts] to see errors).
func MaxSurge(d *appsv1.Deployment) int32 {
	s, _, err := deployutil.Fenceposts(d)
	if err != nil {
		return 0
	}
	return s
}

// MaxUnavailable returns how many of spec.replicas may be unavailable during
// a RollingUpdate: the resolved maxUnavailable clamped to spec.replicas, and
// 0 when spec.replicas is 0 or the strategy is not RollingUpdate.
func MaxUnavailable(d *appsv1.Deployment) int32 {
	r := replicasOf(d)
	if !IsRollingUpdate(d) || r == 0 {
		return 0
	}
	_, u, err := deployutil.Fenceposts(d)
	if err != nil {
		return 0
	}
	return min(u, r)
}

// IsRollingUpdate reports whether the Deployment uses the RollingUpdate
// strategy.
func IsRollingUpdate(d *appsv1.Deployment) bool {
	return d.Spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType
}

// MaxReplicas is spec.replicas + maxSurge: the most pods a RollingUpdate may
// run, and the value of the max-replicas annotation. The sum is in int32 and
// wraps around above 2³¹−1, as upstream's.
func MaxReplicas(d *appsv1.Deployment) int32 {
	return replicasOf(d) + MaxSurge(d)
}

func rsReplicas(rs *appsv1.ReplicaSet) int32 {
	if rs == nil || rs.Spec.Replicas == nil {
		return 0
	}
	return *rs.Spec.Replicas
}

func replicasOf(d *appsv1.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return 0
	}
	return *d.Spec.Replicas
}

// scaled is maxSurge or maxUnavailable as a count of total, before the
// conversion to int32 (see deployutil.ResolveFenceposts).
func scaled(v *intstr.IntOrString, total int32, roundUp bool) (int, error) {
	if v == nil {
		return 0, nil
	}
	return intstr.GetScaledValueFromIntOrPercent(v, int(total), roundUp)
}
