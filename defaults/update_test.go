package defaults_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/defaults"
)

// changed returns a copy of d changed by f.
func changed(d *appsv1.Deployment, f func(*appsv1.Deployment)) *appsv1.Deployment {
	d = d.DeepCopy()
	f(d)
	return d
}

// replicaSet is the ReplicaSet of d's metadata, replicas, selector and
// template.
func replicaSet(d *appsv1.Deployment) *appsv1.ReplicaSet {
	d = d.DeepCopy()
	return &appsv1.ReplicaSet{ObjectMeta: d.ObjectMeta, Spec: appsv1.ReplicaSetSpec{Replicas: d.Spec.Replicas, Selector: d.Spec.Selector, Template: d.Spec.Template}}
}

// An updateCase is one row of the update tests: an update of old at a
// minor, and the generation and pod-level resources it stores.
type updateCase struct {
	name, version string
	old, updated  *appsv1.Deployment
	generation    int64
	podResources  bool
	reason        string
}

// checkUpdate checks what an update stored: the generation, the stored
// status (observed generation 4, 1 replica) and whether the template kept
// pod-level resources.
func checkUpdate(t *testing.T, tc updateCase, generation, observed int64, replicas int32, tmpl *corev1.PodTemplateSpec) {
	t.Helper()
	if generation != tc.generation {
		t.Errorf("%s: generation %d, want %d (%s)", tc.name, generation, tc.generation, tc.reason)
	}
	if observed != 4 || replicas != 1 {
		t.Errorf("%s: status observed %d, replicas %d; want the stored one's 4, 1", tc.name, observed, replicas)
	}
	if has := tmpl.Spec.Resources != nil; has != tc.podResources {
		t.Errorf("%s: spec.template.spec.resources kept %v, want %v (%s)", tc.name, has, tc.podResources, tc.reason)
	}
}

func TestDeploymentUpdate(t *testing.T) {
	old, err := defaults.Deployment("1.37", manifest())
	if err != nil {
		t.Fatal(err)
	}
	old.Generation = 4
	old.Status = appsv1.DeploymentStatus{ObservedGeneration: 4, Replicas: 1}
	// 1.37's PodLevelResources is on; 1.33's is off, so 1.33 drops
	// spec.resources unless the stored template has it.
	withPodResources := func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
	}
	for _, tc := range []updateCase{
		{"same manifest", "1.37", old, manifest(), 4, false, "equal after defaulting: the generation stays"},
		{"replicas", "1.37", old, changed(manifest(), func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](3) }), 5, false, "a spec change bumps the generation"},
		{"annotation", "1.37", old, changed(manifest(), func(d *appsv1.Deployment) { d.Annotations = map[string]string{"a": "b"} }), 5, false, "an annotation change bumps it too (annotations are copied to ReplicaSets)"},
		{"gate off, old lacks the field", "1.33", old, changed(manifest(), withPodResources), 4, false, "a disabled field is dropped when the stored object does not use it (and so the spec is unchanged)"},
		{"gate off, old has the field", "1.33", changed(old, withPodResources), changed(manifest(), withPodResources), 4, true, "a disabled field the stored object uses is kept"},
		{"gate off, old has it empty", "1.33", changed(old, func(d *appsv1.Deployment) { d.Spec.Template.Spec.Resources = &corev1.ResourceRequirements{} }), changed(manifest(), withPodResources), 5, false,
			"1.33's podLevelResourcesInUse asks for a request or a limit: an empty resources: {} is not in use, so the update's is dropped, and the template then differs from the stored one (recorded: TestMinorUpdates)"},
		{"init-container annotation stored, 1.36", "1.36", changed(old, withInitAnnotation), manifest(), 4, false, "before 1.37 the conversion drops the legacy annotation from the stored object too: no change"},
		{"init-container annotation stored, 1.37", "1.37", changed(old, withInitAnnotation), manifest(), 5, false, "1.37 drops it from the new object only: the template differs and the generation is bumped"},
	} {
		got, err := defaults.DeploymentUpdate(tc.version, tc.old, tc.updated)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		checkUpdate(t, tc, got.Generation, got.Status.ObservedGeneration, got.Status.Replicas, &got.Spec.Template)
	}
	if _, err := defaults.DeploymentUpdate("", nil, manifest()); err == nil {
		t.Error("a nil old Deployment: no error")
	}
}

func withInitAnnotation(d *appsv1.Deployment) {
	d.Spec.Template.Annotations = map[string]string{"pod.beta.kubernetes.io/init-containers": "[]"}
}

func TestReplicaSetUpdate(t *testing.T) {
	old := manifest()
	for _, tc := range []updateCase{
		{"same manifest", "1.37", old, manifest(), 4, false, "equal after defaulting: the generation stays"},
		{"replicas", "1.37", old, changed(manifest(), func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](3) }), 5, false, "a spec change bumps the generation"},
		{"annotation", "1.37", old, changed(manifest(), func(d *appsv1.Deployment) { d.Annotations = map[string]string{"a": "b"} }), 4, false,
			"unlike a Deployment's, a ReplicaSet's annotations do not bump it (the ReplicaSet strategy compares the spec only)"},
	} {
		stored, err := defaults.ReplicaSet("1.37", replicaSet(tc.old))
		if err != nil {
			t.Fatal(err)
		}
		stored.Generation = 4
		stored.Status = appsv1.ReplicaSetStatus{ObservedGeneration: 4, Replicas: 1}
		got, err := defaults.ReplicaSetUpdate(tc.version, stored, replicaSet(tc.updated))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		checkUpdate(t, tc, got.Generation, got.Status.ObservedGeneration, got.Status.Replicas, &got.Spec.Template)
	}
	if _, err := defaults.ReplicaSetUpdate("", replicaSet(manifest()), nil); err == nil {
		t.Error("a nil updated ReplicaSet: no error")
	}
}

func TestPodTemplateUpdate(t *testing.T) {
	tmpl := func(res *corev1.ResourceRequirements) *corev1.PodTemplateSpec {
		t := manifest().Spec.Template
		t.Spec.Resources = res
		return &t
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
		got, err := defaults.PodTemplateUpdate("1.33", tc.old, tmpl(cpu))
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
