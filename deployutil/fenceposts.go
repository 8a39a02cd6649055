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
// It does not clamp (the controller clamps maxUnavailable to spec.replicas
// where it uses it). Tools that show a rollout's bounds, as kubectl describe
// and the CLI example do, need exactly these numbers. A string that is not a
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
// maxUnavailable (see [ResolveFenceposts]), unclamped: the bounds a user
// shows beside a rollout (at most spec.replicas+surge pods, at least
// spec.replicas−min(unavailable, spec.replicas) available). For any other
// strategy both are 0.
func Fenceposts(d *appsv1.Deployment) (surge, unavailable int32, err error) {
	if d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || d.Spec.Strategy.RollingUpdate == nil {
		return 0, 0, nil
	}
	ru := d.Spec.Strategy.RollingUpdate
	return ResolveFenceposts(ru.MaxSurge, ru.MaxUnavailable, replicasOf(d))
}

func replicasOf(d *appsv1.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return 0
	}
	return *d.Spec.Replicas
}
