package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/conformance/minors"
	"github.com/deploysync/deploysync/conformance/minors/corpus"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/randstate"
	"github.com/deploysync/deploysync/internal/testing/scenarios"
)

// templateCase is one template record to make: a Deployment of that name
// with that template and status.collisionCount.
type templateCase struct {
	id             string
	name           string
	template       corev1.PodTemplateSpec
	collisionCount *int32
	fuzzed         bool
}

// deploymentNames are the hand-shaped names: short, at the lengths where
// v1.34+ starts cutting the name (253 minus the separator and the hash,
// whose length varies), up to the longest valid name, with a dot or a dash
// where the cut falls.
func deploymentNames() []string {
	long := func(n int, at int, c byte) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[i%36]
		}
		if at > 0 && at < n-1 {
			b[at] = c
		}
		return string(b)
	}
	names := []string{"web", "a", "web.v2", "a-rather-long-deployment-name", long(63, 0, 0), long(64, 0, 0), long(200, 0, 0)}
	for _, n := range []int{240, 241, 242, 243, 244, 245, 250, 252, 253} {
		names = append(names, long(n, 0, 0))
	}
	for _, at := range []int{240, 241, 242, 243} {
		names = append(names, long(253, at, '.'), long(253, at, '-'))
	}
	return names
}

var collisionCounts = []*int32{nil, ptr.To[int32](0), ptr.To[int32](1), ptr.To[int32](2), ptr.To[int32](7), ptr.To[int32](100), ptr.To[int32](math.MaxInt32), ptr.To[int32](-1), ptr.To[int32](math.MinInt32)}

// handShaped are the templates users write: the scenarios', with and
// without a pod-template-hash label, with several containers, with
// resources, probes and volumes. templateDeployment defaults them as an
// apiserver does.
func handShaped() []corev1.PodTemplateSpec {
	var out []corev1.PodTemplateSpec
	out = append(out, scenarios.Template("nginx:1"), scenarios.Template("nginx:2"))
	withHash := scenarios.Template("nginx:1")
	withHash.Labels = map[string]string{"app": "web", appsv1.DefaultDeploymentUniqueLabelKey: "abc"}
	out = append(out, withHash)
	rich := scenarios.Template("registry.example.com/team/app:v1.2.3")
	rich.Annotations = map[string]string{"kubectl.kubernetes.io/restartedAt": "2026-11-02T10:00:00Z"}
	rich.Spec.Containers[0].Resources = corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
	}
	rich.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}
	rich.Spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http")}}, PeriodSeconds: 5}
	rich.Spec.Containers = append(rich.Spec.Containers, corev1.Container{Name: "sidecar", Image: "envoy:1", ImagePullPolicy: corev1.PullIfNotPresent, TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile})
	rich.Spec.Volumes = []corev1.Volume{{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}, DefaultMode: ptr.To[int32](0o644)}}}}
	out = append(out, rich)
	out = append(out, scenarios.Template("nginx:3"))
	return out
}

// fuzzedTemplate fills a template at random: every field of the library's
// k8s.io/api layout may be set, the ones an older minor lacks included.
func fuzzedTemplate(seed uint64) corev1.PodTemplateSpec {
	f := filler{r: rand.New(rand.NewPCG(seed, 0x5eed))}
	var t corev1.PodTemplateSpec
	f.fill(reflect.ValueOf(&t.Spec).Elem(), 0)
	if f.r.IntN(2) == 0 {
		t.Annotations = map[string]string{f.word(): f.word()}
	}
	t.Labels = map[string]string{"app": "web"}
	if f.r.IntN(3) == 0 {
		t.Labels[f.word()] = f.word()
	}
	if len(t.Spec.Containers) == 0 {
		t.Spec.Containers = []corev1.Container{{}}
	}
	t.Spec.Containers[0].Name, t.Spec.Containers[0].Image = "web", "nginx:1"
	return t
}

// filler sets fields of a value at random, fewer the deeper it goes.
type filler struct{ r *rand.Rand }

var words = []string{"a", "web", "x-1", "Always", "IfNotPresent", "TCP", "RuntimeDefault", "/data", "nginx:1", "node-1", "10.0.0.1", "Exists", "NoSchedule"}

func (f filler) word() string { return words[f.r.IntN(len(words))] }

var (
	quantityType = reflect.TypeFor[resource.Quantity]()
	intOrStrType = reflect.TypeFor[intstr.IntOrString]()
	timeType     = reflect.TypeFor[metav1.Time]()
)

func (f filler) fill(v reflect.Value, depth int) {
	if depth > 8 {
		return
	}
	switch v.Type() {
	case quantityType:
		v.Set(reflect.ValueOf(resource.MustParse([]string{"100m", "1", "2Gi", "500Mi", "0"}[f.r.IntN(5)])))
		return
	case intOrStrType:
		if f.r.IntN(2) == 0 {
			v.Set(reflect.ValueOf(intstr.FromInt32(int32(f.r.IntN(100)))))
		} else {
			v.Set(reflect.ValueOf(intstr.FromString("25%")))
		}
		return
	case timeType:
		v.Set(reflect.ValueOf(metav1.NewTime(randstate.Base)))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Struct:
		// At the top, a field in four is set; deeper, fewer.
		chance := 4 + 2*depth
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() || f.r.IntN(chance) != 0 {
				continue
			}
			f.fill(v.Field(i), depth+1)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte(f.word()))
			return
		}
		n := 1 + f.r.IntN(2)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			f.fill(s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		f.fill(k, depth+1)
		e := reflect.New(v.Type().Elem()).Elem()
		f.fill(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		v.SetString(f.word())
	case reflect.Bool:
		v.SetBool(f.r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(f.r.IntN(1000)))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(f.r.IntN(1000)))
	}
}

// templateCases are the hand-shaped cases (every name with every collision
// count on the first template, every template with a few of each) and n
// fuzzed ones.
func templateCases(n int) []templateCase {
	var cases []templateCase
	names := deploymentNames()
	hand := handShaped()
	for i, name := range names {
		for j, cc := range collisionCounts {
			cases = append(cases, templateCase{id: fmt.Sprintf("name %d collision %d", i, j), name: name, template: hand[0], collisionCount: cc})
		}
	}
	for i, t := range hand {
		for j, name := range names {
			if j%3 != i%3 {
				continue
			}
			for k, cc := range collisionCounts {
				if k%2 != j%2 {
					continue
				}
				cases = append(cases, templateCase{id: fmt.Sprintf("template %d name %d collision %d", i, j, k), name: name, template: t, collisionCount: cc})
			}
		}
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x4a3e))
		cases = append(cases, templateCase{
			id:             fmt.Sprintf("fuzzed %d", seed),
			name:           names[r.IntN(len(names))],
			template:       fuzzedTemplate(seed),
			collisionCount: collisionCounts[r.IntN(len(collisionCounts))],
			fuzzed:         true,
		})
	}
	return cases
}

// templateDeployment is the Deployment a template case syncs: new, no
// ReplicaSets yet, so the sync creates the new ReplicaSet, named by the
// minor's own code from the minor's own hash.
func templateDeployment(c templateCase) *appsv1.Deployment {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: c.name, Namespace: "default", UID: "d-uid", Generation: 1, CreationTimestamp: metav1.NewTime(randstate.Base)},
		Spec: appsv1.DeploymentSpec{
			Replicas:                ptr.To[int32](3),
			Selector:                &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template:                *c.template.DeepCopy(),
			Strategy:                appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromString("25%")), MaxUnavailable: ptr.To(intstr.FromString("25%"))}},
			RevisionHistoryLimit:    ptr.To[int32](10),
			ProgressDeadlineSeconds: ptr.To[int32](600),
		},
		Status: appsv1.DeploymentStatus{CollisionCount: c.collisionCount},
	}
	if c.fuzzed {
		return d // as drawn: most fuzzed templates are not valid anyway
	}
	// Hand-shaped Deployments are as an apiserver stores them: defaulted.
	return deployutil.SetDefaults(d)
}

// recordTemplates records, for each case, the minor's hash of the template
// and the sync that creates the Deployment's first ReplicaSet.
func recordTemplates(o *oracle, gateDefault bool, nFuzzed int) ([]minors.Record, []string, error) {
	var recs []minors.Record
	changed := 0
	for _, c := range templateCases(nFuzzed) {
		d := templateDeployment(c)
		r, err := o.syncRecord(c.id, deploysync.State{Deployment: d, Now: randstate.Base.Add(10e9)}, gateDefault)
		if err != nil {
			return nil, nil, err
		}
		sent, err := json.Marshal(&d.Spec.Template)
		if err != nil {
			return nil, nil, err
		}
		h, err := o.ask(minors.Request{Op: "hash", Template: sent, CollisionCount: c.collisionCount})
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", c.id, err)
		}
		r.Hash = h.Hash
		decoded, err := corpus.Template(h.Template)
		if err != nil {
			return nil, nil, err
		}
		if !equality.Semantic.DeepEqual(decoded, &d.Spec.Template) {
			r.Original = sent
			changed++
		}
		recs = append(recs, r)
	}
	return recs, []string{fmt.Sprintf("templates: %d of %d changed by the minor's decoding (their template as generated is recorded too)", changed, len(recs))}, nil
}
