package deployutil_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// richTemplate is a defaulted template with two containers, an init
// container, env, ports, probes, volumes and resources.
func richTemplate() *corev1.PodTemplateSpec {
	return &corev1.PodTemplateSpec{
		Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "init", Image: "busybox:1.36", Command: []string{"true"}}},
			Containers: []corev1.Container{
				{Name: "app", Image: "nginx:1.27", ImagePullPolicy: corev1.PullIfNotPresent,
					Env:   []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "B", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}}},
					Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 80, Protocol: corev1.ProtocolTCP}},
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
						corev1.ResourceCPU: resource.MustParse("1000m"), corev1.ResourceMemory: resource.MustParse("128Mi")}},
					ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/"}}, PeriodSeconds: 10},
					VolumeMounts:   []corev1.VolumeMount{{Name: "data", MountPath: "/data"}},
				},
				{Name: "sidecar", Image: "envoy:1.30"},
			},
			Volumes:                       []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			TerminationGracePeriodSeconds: ptr.To[int64](30),
			NodeSelector:                  map[string]string{"disk": "ssd"},
		},
	}
}

func TestTemplateChanges(t *testing.T) {
	for _, tt := range []struct {
		name   string
		edit   func(*corev1.PodTemplateSpec)
		want   []string
		reason string
	}{
		{name: "image", edit: func(p *corev1.PodTemplateSpec) { p.Spec.Containers[0].Image = "nginx:1.28" },
			want:   []string{"spec.template.spec.containers[app].image: nginx:1.27 → nginx:1.28"},
			reason: "a container's image, named by the container"},
		{name: "hash label only", edit: func(p *corev1.PodTemplateSpec) { p.Labels = map[string]string{"pod-template-hash": "abc"} },
			reason: "the pod-template-hash label is the controller's, not the template's: no change"},
		{name: "quantity spelled otherwise", edit: func(p *corev1.PodTemplateSpec) {
			p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("1")
		}, reason: "1000m and 1 are the same quantity"},
		{name: "nil and empty", edit: func(p *corev1.PodTemplateSpec) {
			p.Spec.Containers[1].Args = []string{}
			p.Annotations = map[string]string{}
		},
			reason: "nil and empty lists and maps are equal"},
		{name: "env added", edit: func(p *corev1.PodTemplateSpec) {
			p.Spec.Containers[0].Env = append(p.Spec.Containers[0].Env, corev1.EnvVar{Name: "C", Value: "3"})
		}, want: []string{`spec.template.spec.containers[app].env[C]: (none) → {"name":"C","value":"3"}`},
			reason: "an env var added, named by its name"},
		{name: "containers swapped", edit: func(p *corev1.PodTemplateSpec) {
			p.Spec.Containers[0], p.Spec.Containers[1] = p.Spec.Containers[1], p.Spec.Containers[0]
		}, want: []string{"spec.template.spec.containers (order): app, sidecar → sidecar, app"},
			reason: "equality is order-sensitive: a reorder rolls, said as one change of order"},
		{name: "nil pointer and zero", edit: func(p *corev1.PodTemplateSpec) { p.Spec.ActiveDeadlineSeconds = ptr.To[int64](0) },
			want:   []string{"spec.template.spec.activeDeadlineSeconds: (none) → 0"},
			reason: "a nil pointer differs from a pointer to zero"},
		{name: "annotation", edit: func(p *corev1.PodTemplateSpec) {
			p.Annotations = map[string]string{"kubectl.kubernetes.io/restartedAt": "2026-11-29T12:00:00Z"}
		}, want: []string{"spec.template.metadata.annotations[kubectl.kubernetes.io/restartedAt]: (none) → 2026-11-29T12:00:00Z"},
			reason: "kubectl rollout restart's annotation"},
		{name: "grace", edit: func(p *corev1.PodTemplateSpec) { p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](60) },
			want:   []string{"spec.template.spec.terminationGracePeriodSeconds: 30 → 60"},
			reason: "a scalar behind a pointer"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			a := richTemplate()
			b := a.DeepCopy()
			tt.edit(b)
			frozen := testutil.Freeze(t, a, b)
			var got []string
			for _, c := range deployutil.TemplateChanges(a, b) {
				got = append(got, c.String())
			}
			frozen.Check(t)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("%s\ngot  %q\nwant %q", tt.reason, got, tt.want)
			}
			if (len(got) == 0) != deployutil.EqualIgnoreHash(a, b) {
				t.Errorf("%d changes, EqualIgnoreHash %v", len(got), deployutil.EqualIgnoreHash(a, b))
			}
		})
	}
}

// diffMutations are edits people make to a template, and edits that change
// nothing semantically; TestTemplateChangesAsSemantic draws from them.
var diffMutations = []func(r *rand.Rand, p *corev1.PodTemplateSpec){
	func(r *rand.Rand, p *corev1.PodTemplateSpec) { p.Spec.Containers[r.IntN(2)].Image += "-x" },
	func(r *rand.Rand, p *corev1.PodTemplateSpec) { p.Labels = map[string]string{"pod-template-hash": "h"} },
	func(r *rand.Rand, p *corev1.PodTemplateSpec) {
		c := &p.Spec.Containers[r.IntN(2)]
		if c.Resources.Requests == nil {
			c.Resources.Requests = corev1.ResourceList{}
		}
		c.Resources.Requests[corev1.ResourceCPU] = resource.MustParse([]string{"1", "1000m", "2", "500m"}[r.IntN(4)])
	},
	func(r *rand.Rand, p *corev1.PodTemplateSpec) { p.Spec.Containers[1].Args = []string{} },
	func(r *rand.Rand, p *corev1.PodTemplateSpec) { p.Spec.Containers[1].Args = []string{"-v"} },
	func(r *rand.Rand, p *corev1.PodTemplateSpec) {
		p.Spec.Containers[0], p.Spec.Containers[1] = p.Spec.Containers[1], p.Spec.Containers[0]
	},
	func(r *rand.Rand, p *corev1.PodTemplateSpec) { p.Spec.Containers[0].Env = nil },
	func(r *rand.Rand, p *corev1.PodTemplateSpec) {
		if env := p.Spec.Containers[0].Env; len(env) == 2 {
			env[0], env[1] = env[1], env[0]
		}
	},
	func(r *rand.Rand, p *corev1.PodTemplateSpec) {
		for _, e := range p.Spec.Containers[0].Env {
			if e.ValueFrom != nil {
				e.ValueFrom.FieldRef.APIVersion = ""
			}
		}
	},
	func(r *rand.Rand, p *corev1.PodTemplateSpec) { p.Spec.Volumes[0].EmptyDir = nil },
	func(r *rand.Rand, p *corev1.PodTemplateSpec) {
		if ed := p.Spec.Volumes[0].EmptyDir; ed != nil {
			ed.SizeLimit = ptr.To(resource.MustParse([]string{"1Gi", "1024Mi", "0"}[r.IntN(3)]))
		}
	},
	func(r *rand.Rand, p *corev1.PodTemplateSpec) { p.Spec.NodeSelector = map[string]string{} },
	func(r *rand.Rand, p *corev1.PodTemplateSpec) {
		if p.Spec.NodeSelector == nil {
			p.Spec.NodeSelector = map[string]string{}
		}
		p.Spec.NodeSelector["zone"] = "a"
	},
	func(r *rand.Rand, p *corev1.PodTemplateSpec) { p.Spec.TerminationGracePeriodSeconds = nil },
	func(r *rand.Rand, p *corev1.PodTemplateSpec) {
		for i := range p.Spec.Containers {
			if rp := p.Spec.Containers[i].ReadinessProbe; rp != nil {
				rp.PeriodSeconds = int32(r.IntN(3) + 9)
			}
		}
	},
	func(r *rand.Rand, p *corev1.PodTemplateSpec) { p.Spec.InitContainers = nil },
	func(r *rand.Rand, p *corev1.PodTemplateSpec) {
		p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: "init2", Image: "x"})
	},
	func(r *rand.Rand, p *corev1.PodTemplateSpec) {
		for i := range p.Spec.Containers {
			for j := range p.Spec.Containers[i].Ports {
				p.Spec.Containers[i].Ports[j].Name = ""
			}
		}
	},
	func(r *rand.Rand, p *corev1.PodTemplateSpec) {
		p.Annotations = map[string]string{"a": []string{"1", "2"}[r.IntN(2)]}
	},
	func(r *rand.Rand, p *corev1.PodTemplateSpec) {
		p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{}
	},
}

// TestTemplateChangesAsSemantic holds TemplateChanges to
// equality.Semantic (the controller's template comparison) on 10,000 pairs
// of templates, each side mutated at random: no change listed exactly when
// Semantic finds the templates equal once the hash label is dropped.
func TestTemplateChangesAsSemantic(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 3))
	differ := 0
	for i := range 10000 {
		a, b := richTemplate(), richTemplate()
		for _, p := range []*corev1.PodTemplateSpec{a, b} {
			for range r.IntN(3) {
				diffMutations[r.IntN(len(diffMutations))](r, p)
			}
		}
		changes := deployutil.TemplateChanges(a, b)
		sa, sb := a.DeepCopy(), b.DeepCopy()
		delete(sa.Labels, "pod-template-hash")
		delete(sb.Labels, "pod-template-hash")
		if want := equality.Semantic.DeepEqual(sa, sb); (len(changes) == 0) != want {
			t.Fatalf("pair %d: %d changes %v, equality.Semantic says equal=%v\na=%+v\nb=%+v", i, len(changes), changes, want, a.Spec, b.Spec)
		}
		if len(changes) > 0 {
			differ++
		}
	}
	t.Logf("10000 pairs, %d differ: TemplateChanges agrees with equality.Semantic on every one", differ)
}
