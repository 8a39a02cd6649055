package defaults_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync/defaults"
	"github.com/deploysync/deploysync/deployutil"
)

// A manifest as written gets the apiserver's defaults before its
// pod-template-hash is computed, so the hash is the one the cluster gives.
func ExampleDeployment() {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "app", Image: "nginx",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1000m")}},
					Env:       []corev1.EnvVar{{Name: "POD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}},
				}}},
			},
		},
	}
	stored, err := defaults.Deployment("1.37", d)
	if err != nil {
		fmt.Println(err)
		return
	}
	c := stored.Spec.Template.Spec.Containers[0]
	cpu := c.Resources.Requests[corev1.ResourceCPU]
	fmt.Println("replicas:", *stored.Spec.Replicas, "strategy:", stored.Spec.Strategy.Type, stored.Spec.Strategy.RollingUpdate.MaxSurge)
	fmt.Println("pull policy:", c.ImagePullPolicy, "fieldRef:", c.Env[0].ValueFrom.FieldRef.APIVersion, "cpu:", cpu.String())
	fmt.Println("hash:", deployutil.ComputeHash(&stored.Spec.Template, nil))
	// Output:
	// replicas: 1 strategy: RollingUpdate 25%
	// pull policy: Always fieldRef: v1 cpu: 1
	// hash: 6c489bb4f8
}
