package facts_test

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// rollingDeployment is a RollingUpdate Deployment with the given replicas
// and fenceposts, and nothing else set.
func rollingDeployment(replicas int32, maxSurge, maxUnavailable intstr.IntOrString) *appsv1.Deployment {
	return &appsv1.Deployment{Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To(replicas),
		Strategy: appsv1.DeploymentStrategy{
			Type:          appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &maxSurge, MaxUnavailable: &maxUnavailable},
		},
	}}
}

// names lists the names of ReplicaSets, for readable comparisons.
func names(rss []*appsv1.ReplicaSet) []string {
	var out []string
	for _, rs := range rss {
		out = append(out, rs.Name)
	}
	return out
}
