package hashlayout_test

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync/internal/hashlayout"
	"github.com/deploysync/deploysync/internal/kversion"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// fill sets every field it can reach to a non-zero value, down to depth.
func fill(v reflect.Value, depth int) {
	if depth == 0 {
		return
	}
	switch v.Type() {
	case reflect.TypeFor[resource.Quantity]():
		v.Set(reflect.ValueOf(resource.MustParse("250m")))
		return
	case reflect.TypeFor[metav1.Time]():
		return // zero, as templates hold it
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), depth-1)
			}
		}
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), depth-1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), depth-1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		fill(k, depth-1)
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e, depth-1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(0.5)
	}
}

// leaves counts the non-zero scalar leaves of a value.
func leaves(v reflect.Value) int {
	switch v.Kind() {
	case reflect.Struct:
		n := 0
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				n += leaves(v.Field(i))
			}
		}
		return n
	case reflect.Pointer:
		if v.IsNil() {
			return 0
		}
		return leaves(v.Elem())
	case reflect.Slice, reflect.Array:
		n := 0
		for i := 0; i < v.Len(); i++ {
			n += leaves(v.Index(i))
		}
		return n
	case reflect.Map:
		n := 0
		for it := v.MapRange(); it.Next(); {
			n += leaves(it.Key()) + leaves(it.Value())
		}
		return n
	}
	if v.IsZero() {
		return 0
	}
	return 1
}

// TestTemplateEveryField copies a template with every field set into each
// minor's layout: no field's type defeats the copy, the copy is of the
// minor's own PodTemplateSpec type (named v1.PodTemplateSpec, as spew prints
// it), older minors keep fewer fields (those they do not know are dropped)
// and never more than the newer minor after them, and the input is not
// modified.
func TestTemplateEveryField(t *testing.T) {
	var tpl corev1.PodTemplateSpec
	fill(reflect.ValueOf(&tpl).Elem(), 14)
	frozen := testutil.Freeze(t, &tpl)
	all := leaves(reflect.ValueOf(tpl))
	prev := 0
	for _, m := range kversion.Supported() {
		got, err := hashlayout.Template(m, &tpl)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		rt := reflect.TypeOf(got)
		if rt.String() != "v1.PodTemplateSpec" {
			t.Errorf("%s: the copy is a %s, want a v1.PodTemplateSpec", m, rt)
		}
		n := leaves(reflect.ValueOf(got))
		switch {
		case m == kversion.Newest && n != all:
			t.Errorf("%s: %d of %d fields kept; the newest minor keeps all", m, n, all)
		case m != kversion.Newest && n >= all:
			t.Errorf("%s: %d of %d fields kept; an older minor knows fewer fields", m, n, all)
		case n < prev:
			t.Errorf("%s: %d fields kept, fewer than the minor before it (%d): API fields are never removed", m, n, prev)
		}
		if m != kversion.Newest && !strings.Contains(rt.PkgPath(), "internal/hashlayout/v1_") {
			t.Errorf("%s: the copy's type is from %s, not a generated layout", m, rt.PkgPath())
		}
		t.Logf("%s: %d of %d fields kept", m, n, all)
		prev = n
	}
	frozen.Check(t)
}

// TestTemplateNilsStayNil: nil and empty maps and slices are distinct in a
// dump, so the copy must keep them apart.
func TestTemplateNilsStayNil(t *testing.T) {
	tpl := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{}, NodeSelector: nil},
	}
	got, err := hashlayout.Template(kversion.V1_33, &tpl)
	if err != nil {
		t.Fatal(err)
	}
	v := reflect.ValueOf(got)
	if l := v.FieldByName("ObjectMeta").FieldByName("Labels"); l.IsNil() || l.Len() != 0 {
		t.Error("empty labels became nil")
	}
	spec := v.FieldByName("Spec")
	if c := spec.FieldByName("Containers"); c.IsNil() || c.Len() != 0 {
		t.Error("empty containers became nil")
	}
	if !spec.FieldByName("NodeSelector").IsNil() {
		t.Error("nil nodeSelector became empty")
	}
	if !spec.FieldByName("InitContainers").IsNil() {
		t.Error("nil initContainers became empty")
	}
}
