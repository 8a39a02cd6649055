package equalgen_test

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync/deployutil/internal/equalgen"
)

type withFloat struct{ F float64 }
type withUnexported struct{ x int }

var _ = withUnexported{x: 1}.x

type withInterface struct{ I any }
type withArray struct{ A [2]int }
type withFunc struct{ F func() }
type withAnonymous struct{ S struct{ X int } }
type withStructKey struct{ M map[withArray]string }

// TestGenerateRefuses checks that kinds the rules do not settle exactly in
// generated code stop the generator instead of being compared some way.
func TestGenerateRefuses(t *testing.T) {
	tests := []struct {
		name   string
		root   reflect.Type
		omit   []string
		want   string
		reason string
	}{
		{name: "float", root: reflect.TypeFor[withFloat](), want: "float64",
			reason: "upstream's address shortcuts make a NaN equal to itself; == would not"},
		{name: "unexported", root: reflect.TypeFor[withUnexported](), want: "unexported field x",
			reason: "generated code in another package cannot read it; upstream panics on it"},
		{name: "interface", root: reflect.TypeFor[withInterface](), want: "interface",
			reason: "upstream compares the dynamic values, which typed code cannot know"},
		{name: "array", root: reflect.TypeFor[withArray](), want: "[2]int",
			reason: "no API type has one; not written rather than untested"},
		{name: "func", root: reflect.TypeFor[withFunc](), want: "func()",
			reason: "upstream says two non-nil funcs differ; no API type has one"},
		{name: "anonymous struct", root: reflect.TypeFor[withAnonymous](), want: "struct { X int }",
			reason: "a function per type needs a name for it"},
		{name: "map key", root: reflect.TypeFor[withStructKey](), want: "map key",
			reason: "only keys compared with == are written"},
		{name: "omitted path missing", root: reflect.TypeFor[corev1.PodTemplateSpec](), omit: []string{"ObjectMeta.Labelz"}, want: "does not exist",
			reason: "an omitted field renamed by a k8s.io/api bump must not silently compare everything"},
		{name: "root not a struct", root: reflect.TypeFor[corev1.ResourceList](), want: "not a named struct",
			reason: "the entry function takes pointers to a struct"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Error("reason must be provided")
			}
			_, err := equalgen.Generate(equalgen.Config{Package: "p", Root: tt.root, RootFunc: "eq", Omit: tt.omit, Command: "test"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Generate: error %v, want one naming %q (%s)", err, tt.want, tt.reason)
			}
		})
	}
}

// TestTemplateOmitsOnlyTheLabels checks the entry function of the
// template configuration: the labels are not compared there (EqualIgnoreHash
// compares them ignoring the hash), but every other ObjectMeta field is, and
// ObjectMeta reached below the root (a volume claim template's) is
// compared in full, labels included.
func TestTemplateOmitsOnlyTheLabels(t *testing.T) {
	res, err := equalgen.Generate(equalgen.Template())
	if err != nil {
		t.Fatal(err)
	}
	src := string(res.Source)
	entry := src[strings.Index(src, "func equalTemplateExceptLabels("):]
	entry = entry[:strings.Index(entry, "\n}\n")]
	if strings.Contains(entry, ".Labels") {
		t.Errorf("the entry function compares the labels:\n%s", entry)
	}
	for _, f := range []string{"a.ObjectMeta.Annotations", "a.ObjectMeta.Name", "a.ObjectMeta.ManagedFields", "&a.Spec"} {
		if !strings.Contains(entry, f) {
			t.Errorf("the entry function does not compare %s:\n%s", f, entry)
		}
	}
	meta := src[strings.Index(src, "func equalMetav1ObjectMeta("):]
	meta = meta[:strings.Index(meta, "\n}\n")]
	if !strings.Contains(meta, "maps.Equal(a.Labels, b.Labels)") {
		t.Errorf("ObjectMeta below the root does not compare its labels:\n%s", meta)
	}
	if !strings.HasPrefix(src, "// Code generated ") || !strings.Contains(src[:strings.Index(src, "\n")], "DO NOT EDIT.") {
		t.Error("the file does not start with a generated-code header")
	}
}
