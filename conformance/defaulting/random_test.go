package defaulting

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/randfill"
)

// The generator draws Deployments from the whole apps/v1 schema with
// randfill, as upstream's own round-trip tests do: every pointer, list and
// map present or absent, every string and number either blank (the zero
// value a manifest leaves out, which defaulting fills) or random. A few
// kinds of value get pools of their own, because random bytes rarely hit
// what the defaulters tell apart: quantities (rounding to milli-units,
// canonical forms), image references (the pull policy is Always only for
// a valid reference that pulls "latest"), and the rollback annotation.
// Then the fields the library's validation reads are made valid, but in
// a few cases, so that a refusal is compared too.

var quantityPool = []string{
	"1", "1000m", "1500m", "1.5", "0.5", "1.5m", "0.0001", "100Mi", "1.5Gi", "1Ki", "1e3", "2E",
	"500u", "1n", "12345678901234567890", "-1", "0", "0.1m", "999999999999999999999m", "3.3333333",
}

var digest = strings.Repeat("ab", 32)

var imagePool = []string{
	"", "nginx", "nginx:latest", "nginx:1.27", "NGINX", "nginx:Latest", "nginx:", "nginx::x",
	"registry.example.com:5000/app:latest", "registry.example.com:5000/app", "localhost/app",
	"localhost:5000/team/app:v1", "app@sha256:" + digest, "app:latest@sha256:" + digest,
	"app@sha256:abc", "app@md5:" + digest, "app@SHA256:" + digest, "app@sha256:" + strings.ToUpper(digest),
	digest + digest[:0], strings.Repeat("0", 64), "a/b/c:tag", "Registry.Example.com/app",
	"docker.io/library/nginx:latest", "index.docker.io/nginx", "[::1]:5000/app", "[::1]/app:latest",
	"a__b/c--d/e.f_g:latest", "a___b", "-a", "a-", "app:" + strings.Repeat("t", 128), "app:" + strings.Repeat("t", 129),
	strings.Repeat("a/", 127) + "a", strings.Repeat("a/", 128) + "a", "my.registry/Team/app", "app @sha256:" + digest,
	" nginx", "nginx ", "ex ample", "example.com/app:1.0@sha512:" + strings.Repeat("0", 128),
	"example.com/app@sha384:" + strings.Repeat("1", 96), "example.com/app@sha384:" + strings.Repeat("1", 95),
	// With the latest tag, the digest's validity decides the pull policy.
	"app:latest@md5:" + digest, "app:latest@sha256:" + strings.ToUpper(digest), "app:latest@sha384:" + strings.Repeat("1", 95),
	"app:latest@sha512:" + strings.Repeat("f", 128), "app:latest@sha256:" + digest + "0", "app:latest@x.y+z:" + digest,
	strings.Repeat("a", 256) + ":latest", "example.com/" + strings.Repeat("a", 255) + ":latest", "example.com/" + strings.Repeat("a", 256) + ":latest",
}

var rollbackPool = []string{"5", "+5", "007", "", "-1", "0", "9223372036854775807", "9223372036854775808", "x", " 5"}

// generator draws random inputs.
type generator struct {
	r *rand.Rand
	f *randfill.Filler
}

func newGenerator(seed int64) *generator {
	r := rand.New(rand.NewSource(seed))
	g := &generator{r: r}
	g.f = randfill.New().RandSource(rand.NewSource(seed)).NilChance(0.45).NumElements(0, 2).MaxDepth(40).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			if c.Intn(3) == 0 {
				*q = *resource.NewScaledQuantity(c.Int63n(1<<40)-1<<20, resource.Scale(c.Intn(16)-9))
				return
			}
			*q = resource.MustParse(quantityPool[c.Intn(len(quantityPool))])
		},
		func(m *metav1.ObjectMeta, c randfill.Continue) {
			c.FillNoCustom(m)
			m.ManagedFields = nil // raw fieldsV1 bytes are no part of the question
		},
		func(ct *corev1.Container, c randfill.Continue) {
			c.FillNoCustom(ct)
			if c.Intn(4) != 0 {
				ct.Image = imagePool[c.Intn(len(imagePool))]
			}
		},
		func(ct *corev1.EphemeralContainerCommon, c randfill.Continue) {
			c.FillNoCustom(ct)
			if c.Intn(4) != 0 {
				ct.Image = imagePool[c.Intn(len(imagePool))]
			}
		},
		func(v *corev1.ImageVolumeSource, c randfill.Continue) {
			c.FillNoCustom(v)
			if c.Intn(4) != 0 {
				v.Reference = imagePool[c.Intn(len(imagePool))]
			}
		},
		func(v *corev1.VolumeSource, c randfill.Continue) {
			// Usually one source or none, as written; sometimes any set.
			switch c.Intn(4) {
			case 0:
				*v = corev1.VolumeSource{}
			case 1:
				c.FillNoCustom(v)
			default:
				var all corev1.VolumeSource
				c.FillNoCustom(&all)
				keepOne(&all, v, c.Rand)
			}
		},
	)
	return g
}

// keepOne copies into dst one source of src, chosen at random, if any.
func keepOne(src, dst *corev1.VolumeSource, r *rand.Rand) {
	sv, dv := reflect.ValueOf(src).Elem(), reflect.ValueOf(dst).Elem()
	i := r.Intn(sv.NumField())
	if sv.Field(i).IsNil() {
		sv.Field(i).Set(reflect.New(sv.Field(i).Type().Elem()))
	}
	dv.Field(i).Set(sv.Field(i))
}

// blank walks a value and sets strings and numbers in structs to their
// zero value at random, as a manifest leaves them out. Map keys and values
// are left alone.
func blank(v reflect.Value, r *rand.Rand) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			blank(v.Elem(), r)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			blank(v.Index(i), r)
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(resource.Quantity{}) || v.Type() == reflect.TypeOf(metav1.Time{}) || v.Type() == reflect.TypeOf(intstr.IntOrString{}) {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if !f.CanSet() {
				continue
			}
			switch f.Kind() {
			case reflect.String, reflect.Int32, reflect.Int64, reflect.Int, reflect.Bool:
				if r.Intn(2) == 0 {
					f.SetZero()
				}
			default:
				blank(f, r)
			}
		}
	}
}

// deployment draws one Deployment. valid says whether the fields the
// library validates were made valid.
func (g *generator) deployment(i int) (d *appsv1.Deployment, valid bool) {
	d = &appsv1.Deployment{}
	g.f.Fill(d)
	blank(reflect.ValueOf(d), g.r)
	d.TypeMeta = metav1.TypeMeta{}
	d.Name = fmt.Sprintf("web-%d", i)
	if g.r.Intn(2) == 0 {
		d.Namespace = "default"
	} else {
		d.Namespace = ""
	}
	s := &d.Spec
	s.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	if s.Template.Labels == nil {
		s.Template.Labels = map[string]string{}
	}
	s.Template.Labels["app"] = "web"
	if s.Replicas != nil && *s.Replicas < 0 {
		*s.Replicas = -(*s.Replicas + 1)
	}
	if s.MinReadySeconds < 0 {
		s.MinReadySeconds = -(s.MinReadySeconds + 1)
	}
	s.MinReadySeconds %= 1000
	if s.RevisionHistoryLimit != nil && *s.RevisionHistoryLimit < 0 {
		*s.RevisionHistoryLimit = -(*s.RevisionHistoryLimit + 1)
	}
	if s.ProgressDeadlineSeconds != nil {
		*s.ProgressDeadlineSeconds = s.MinReadySeconds + 1 + int32(g.r.Intn(1000))
	}
	g.strategy(&s.Strategy)
	if g.r.Intn(8) == 0 {
		if d.Annotations == nil {
			d.Annotations = map[string]string{}
		}
		d.Annotations[appsv1.DeprecatedRollbackTo] = rollbackPool[g.r.Intn(len(rollbackPool))]
	}
	if g.r.Intn(10) == 0 {
		if s.Template.Annotations == nil {
			s.Template.Annotations = map[string]string{}
		}
		s.Template.Annotations["pod.beta.kubernetes.io/init-containers"] = "[]"
	}
	if g.r.Intn(25) != 0 {
		return d, true
	}
	switch g.r.Intn(5) {
	case 0:
		d.Name = "Web_1"
	case 1:
		s.Template.Labels["app"] = "other"
	case 2:
		s.Replicas = ptr.To[int32](-1)
	case 3:
		s.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{}}
	case 4:
		s.Strategy = appsv1.DeploymentStrategy{RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromString("x"))}}
	}
	return d, false
}

func (g *generator) strategy(st *appsv1.DeploymentStrategy) {
	switch g.r.Intn(3) {
	case 0:
		st.Type = ""
	case 1:
		st.Type = appsv1.RollingUpdateDeploymentStrategyType
	default:
		st.Type = appsv1.RecreateDeploymentStrategyType
		st.RollingUpdate = nil
		return
	}
	if st.RollingUpdate == nil {
		return
	}
	pick := func() *intstr.IntOrString {
		switch g.r.Intn(3) {
		case 0:
			return nil
		case 1:
			return ptr.To(intstr.FromInt32(int32(g.r.Intn(5))))
		default:
			return ptr.To(intstr.FromString(fmt.Sprintf("%d%%", g.r.Intn(101))))
		}
	}
	ru := st.RollingUpdate
	ru.MaxSurge, ru.MaxUnavailable = pick(), pick()
	zero := func(v *intstr.IntOrString) bool {
		return v != nil && (v.String() == "0" || v.String() == "0%")
	}
	if zero(ru.MaxSurge) && zero(ru.MaxUnavailable) {
		ru.MaxSurge = ptr.To(intstr.FromInt32(1))
	}
}
