package defaulting

import (
	"encoding/json"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/controller"
)

// TestExampleHash derives the hash the library's ExampleDeployment prints
// (package defaults, example_test.go) from upstream: the example's
// manifest through upstream's create path, read back through JSON, hashed
// by upstream's controller.ComputeHash.
func TestExampleHash(t *testing.T) {
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
	up, _, err := Deployment(d)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(up)
	if err != nil {
		t.Fatal(err)
	}
	var back appsv1.Deployment
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	const example = "6c489bb4f8" // what ExampleDeployment's Output says
	if h := controller.ComputeHash(&back.Spec.Template, nil); h != example {
		t.Errorf("upstream's hash of the example's stored template is %s; the example says %s", h, example)
	}
	// In memory, before the read back, the template hashes differently:
	// the reason the library reads its result back.
	if h := controller.ComputeHash(&up.Spec.Template, nil); h == example {
		t.Errorf("the in-memory template hashes as the read-back one; the example shows nothing")
	}
}
