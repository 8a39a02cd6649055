// Package testutil holds test helpers shared by the library module's
// packages: the no-mutation check every public entry point is run through
// (Freeze), the golden files with the module's -update flag (Golden), and
// the fixture builders of upstream's controller tests (fixture.go). It
// depends on k8s.io/api, k8s.io/apimachinery and go-cmp only, so the tests
// of every package of the module, internal ones included, can import it.
package testutil

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Frozen is a deep copy of some inputs, taken before a call, to prove
// afterwards that the call did not modify them.
type Frozen struct {
	objects []any
	copies  []any
}

// Freeze deep-copies the given objects (Deployments, ReplicaSets, slices of
// them, pod maps, pods, templates). Call Check after the function under
// test.
func Freeze(t testing.TB, objs ...any) *Frozen {
	t.Helper()
	f := &Frozen{}
	for _, o := range objs {
		c, ok := deepCopy(o)
		if !ok {
			t.Fatalf("testutil.Freeze: unsupported type %T", o)
		}
		f.objects = append(f.objects, o)
		f.copies = append(f.copies, c)
	}
	return f
}

// Check fails the test if any frozen object differs from its copy.
func (f *Frozen) Check(t testing.TB) {
	t.Helper()
	for i, o := range f.objects {
		if diff := cmp.Diff(f.copies[i], o); diff != "" {
			t.Errorf("input %d (%T) was modified (-before +after):\n%s", i, o, diff)
		}
	}
}

func deepCopy(o any) (any, bool) {
	switch x := o.(type) {
	case *appsv1.Deployment:
		return x.DeepCopy(), true
	case *appsv1.ReplicaSet:
		return x.DeepCopy(), true
	case *corev1.Pod:
		return x.DeepCopy(), true
	case *corev1.PodTemplateSpec:
		return x.DeepCopy(), true
	case []*appsv1.ReplicaSet:
		if x == nil {
			return x, true
		}
		out := make([]*appsv1.ReplicaSet, len(x))
		for i, rs := range x {
			out[i] = rs.DeepCopy()
		}
		return out, true
	case map[types.UID][]*corev1.Pod:
		if x == nil {
			return x, true
		}
		out := make(map[types.UID][]*corev1.Pod, len(x))
		for k, v := range x {
			if v == nil {
				out[k] = nil
				continue
			}
			l := make([]*corev1.Pod, len(v))
			for i, p := range v {
				l[i] = p.DeepCopy()
			}
			out[k] = l
		}
		return out, true
	}
	return nil, false
}
