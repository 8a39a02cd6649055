package defaults

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestDeploymentUpdate(t *testing.T) {
	manifest := func() *appsv1.Deployment {
		return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
			Spec: appsv1.DeploymentSpec{
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}},
				},
			},
		}
	}
	old, err := Deployment("1.37", manifest())
	if err != nil {
		t.Fatal(err)
	}
	old.Generation = 4
	old.Status = appsv1.DeploymentStatus{ObservedGeneration: 4, Replicas: 1}
	// 1.37's PodLevelResources is on; 1.33's is off, so 1.33 drops
	// spec.resources unless the stored template has it.
	withPodResources := func(d *appsv1.Deployment) *appsv1.Deployment {
		d = d.DeepCopy()
		d.Spec.Template.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
		return d
	}
	withEmptyPodResources := func(d *appsv1.Deployment) *appsv1.Deployment {
		d = d.DeepCopy()
		d.Spec.Template.Spec.Resources = &corev1.ResourceRequirements{}
		return d
	}
	withInitAnnotation := func(d *appsv1.Deployment) *appsv1.Deployment {
		d = d.DeepCopy()
		d.Spec.Template.Annotations = map[string]string{"pod.beta.kubernetes.io/init-containers": "[]"}
		return d
	}
	for _, tc := range []struct {
		name, version string
		old, updated  *appsv1.Deployment
		generation    int64
		podResources  bool
		reason        string
	}{
		{"same manifest", "1.37", old, manifest(), 4, false, "equal after defaulting: the generation stays"},
		{"replicas", "1.37", old, func() *appsv1.Deployment { d := manifest(); d.Spec.Replicas = ptr.To[int32](3); return d }(), 5, false, "a spec change bumps the generation"},
		{"annotation", "1.37", old, func() *appsv1.Deployment { d := manifest(); d.Annotations = map[string]string{"a": "b"}; return d }(), 5, false, "an annotation change bumps it too (annotations are copied to ReplicaSets)"},
		{"gate off, old lacks the field", "1.33", old, withPodResources(manifest()), 4, false, "a disabled field is dropped when the stored object does not use it (and so the spec is unchanged)"},
		{"gate off, old has the field", "1.33", withPodResources(old), withPodResources(manifest()), 4, true, "a disabled field the stored object uses is kept"},
		{"gate off, old has it empty", "1.33", withEmptyPodResources(old), withPodResources(manifest()), 5, false, "1.33's podLevelResourcesInUse asks for a request or a limit: an empty resources: {} is not in use, so the update's is dropped, and the template then differs from the stored one (recorded: TestMinorUpdates)"},
		{"init-container annotation stored, 1.36", "1.36", withInitAnnotation(old), manifest(), 4, false, "before 1.37 the conversion drops the legacy annotation from the stored object too: no change"},
		{"init-container annotation stored, 1.37", "1.37", withInitAnnotation(old), manifest(), 5, false, "1.37 drops it from the new object only: the template differs and the generation is bumped"},
	} {
		got, err := DeploymentUpdate(tc.version, tc.old, tc.updated)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got.Generation != tc.generation {
			t.Errorf("%s: generation %d, want %d (%s)", tc.name, got.Generation, tc.generation, tc.reason)
		}
		if got.Status.ObservedGeneration != 4 || got.Status.Replicas != 1 {
			t.Errorf("%s: status %+v, want the stored one", tc.name, got.Status)
		}
		if has := got.Spec.Template.Spec.Resources != nil; has != tc.podResources {
			t.Errorf("%s: spec.template.spec.resources kept %v, want %v (%s)", tc.name, has, tc.podResources, tc.reason)
		}
	}
	if _, err := DeploymentUpdate("", nil, manifest()); err == nil {
		t.Error("a nil old Deployment: no error")
	}
}

func TestReplicaSetUpdate(t *testing.T) {
	manifest := func() *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "default"},
			Spec: appsv1.ReplicaSetSpec{
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}},
				},
			},
		}
	}
	old, err := ReplicaSet("1.37", manifest())
	if err != nil {
		t.Fatal(err)
	}
	old.Generation = 4
	old.Status = appsv1.ReplicaSetStatus{ObservedGeneration: 4, Replicas: 1}
	for _, tc := range []struct {
		name       string
		updated    *appsv1.ReplicaSet
		generation int64
		reason     string
	}{
		{"same manifest", manifest(), 4, "equal after defaulting: the generation stays"},
		{"replicas", func() *appsv1.ReplicaSet { rs := manifest(); rs.Spec.Replicas = ptr.To[int32](3); return rs }(), 5, "a spec change bumps the generation"},
		{"annotation", func() *appsv1.ReplicaSet { rs := manifest(); rs.Annotations = map[string]string{"a": "b"}; return rs }(), 4, "unlike a Deployment's, a ReplicaSet's annotations do not bump it (the ReplicaSet strategy compares the spec only)"},
	} {
		got, err := ReplicaSetUpdate("1.37", old, tc.updated)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got.Generation != tc.generation {
			t.Errorf("%s: generation %d, want %d (%s)", tc.name, got.Generation, tc.generation, tc.reason)
		}
		if got.Status.ObservedGeneration != 4 || got.Status.Replicas != 1 {
			t.Errorf("%s: status %+v, want the stored one", tc.name, got.Status)
		}
	}
	if _, err := ReplicaSetUpdate("", manifest(), nil); err == nil {
		t.Error("a nil updated ReplicaSet: no error")
	}
}

func TestPodTemplateUpdate(t *testing.T) {
	tmpl := func(res *corev1.ResourceRequirements) *corev1.PodTemplateSpec {
		return &corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}, Resources: res},
		}
	}
	cpu := &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
	for _, tc := range []struct {
		name   string
		old    *corev1.PodTemplateSpec
		kept   bool
		reason string
	}{
		{"stored without pod-level resources", tmpl(nil), false, "PodLevelResources is off at 1.33: dropped where the stored template does not use it"},
		{"stored with a pod-level request", tmpl(cpu), true, "kept where the stored template uses it"},
	} {
		got, err := PodTemplateUpdate("1.33", tc.old, tmpl(cpu))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if kept := got.Spec.Resources != nil; kept != tc.kept {
			t.Errorf("%s: spec.resources kept %v, want %v (%s)", tc.name, kept, tc.kept, tc.reason)
		}
		if got.Spec.RestartPolicy != corev1.RestartPolicyAlways {
			t.Errorf("%s: restartPolicy %q, want the default Always", tc.name, got.Spec.RestartPolicy)
		}
	}
}
