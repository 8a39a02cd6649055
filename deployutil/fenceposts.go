package deployutil

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// ResolveFenceposts turns maxSurge and maxUnavailable into replica counts for
// desired replicas, as upstream does, by these rules in order:
//
//  1. A nil value counts as 0.
//  2. An integer is taken as is; a string must be a percentage ("25%").
//  3. A maxSurge percentage rounds up, a maxUnavailable percentage rounds down.
//  4. If both come out 0, maxUnavailable becomes 1, so that a rollout can
//     always make progress.
//  5. Each is then converted to int32 as upstream converts it: a value
//     outside int32 keeps its low 32 bits (a huge percentage of a large
//     Deployment can come out negative or 0). Rule 4 looks at the values
//     before this conversion, as upstream's does.
//
// It does not clamp; see [MaxUnavailable]. A string that is not a
// percentage, or whose digits do not fit an int, is an error, as upstream.
func ResolveFenceposts(maxSurge, maxUnavailable *intstr.IntOrString, desired int32) (surge, unavailable int32, err error) {
	s, err := scaled(maxSurge, desired, true)
	if err != nil {
		return 0, 0, fmt.Errorf("maxSurge: %w", err)
	}
	u, err := scaled(maxUnavailable, desired, false)
	if err != nil {
		return 0, 0, fmt.Errorf("maxUnavailable: %w", err)
	}
	if s == 0 && u == 0 {
		u = 1
	}
	return int32(s), int32(u), nil
}

func scaled(v *intstr.IntOrString, total int32, roundUp bool) (int, error) {
	if v == nil {
		return 0, nil
	}
	return intstr.GetScaledValueFromIntOrPercent(v, int(total), roundUp)
}

// Fenceposts returns a RollingUpdate Deployment's resolved maxSurge and
// maxUnavailable (see [ResolveFenceposts]), unclamped. For any other
// strategy both are 0.
func Fenceposts(d *appsv1.Deployment) (surge, unavailable int32, err error) {
	if !IsRollingUpdate(d) || d.Spec.Strategy.RollingUpdate == nil {
		return 0, 0, nil
	}
	ru := d.Spec.Strategy.RollingUpdate
	return ResolveFenceposts(ru.MaxSurge, ru.MaxUnavailable, replicasOf(d))
}

// MaxSurge returns how many pods a RollingUpdate Deployment may run above
// spec.replicas; 0 for other strategies or unresolvable fenceposts (as
// upstream: call [Validate] or [Fenceposts] to see errors).
func MaxSurge(d *appsv1.Deployment) int32 {
	s, _, err := Fenceposts(d)
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
	_, u, err := Fenceposts(d)
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

func replicasOf(d *appsv1.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return 0
	}
	return *d.Spec.Replicas
}

func rsReplicas(rs *appsv1.ReplicaSet) int32 {
	if rs == nil || rs.Spec.Replicas == nil {
		return 0
	}
	return *rs.Spec.Replicas
}
