package kubectl_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/kubectl"
)

func TestUndoPatchApplyTo(t *testing.T) {
	base := func() *appsv1.Deployment {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Generation: 9223372036854775807}}
		d.Spec.Template.Labels = map[string]string{"app": "web"}
		return d
	}
	tests := []struct {
		name      string
		d         *appsv1.Deployment
		typ       types.PatchType
		patch     string
		wantAnn   map[string]string
		wantLabel string
		wantErr   bool
		reason    string
	}{
		{name: "replace", d: base(), typ: types.JSONPatchType,
			patch:   `[{"op":"replace","path":"/spec/template","value":{"metadata":{"labels":{"app":"api"}}}},{"op":"replace","path":"/metadata/annotations","value":{"a":"b"}}]`,
			wantAnn: map[string]string{"a": "b"}, wantLabel: "api",
			reason: "a missing member is replaced as the apiserver's JSON patch library does (it adds it)"},
		{name: "escaped pointer", d: base(), typ: types.JSONPatchType,
			patch:   `[{"op":"add","path":"/metadata/annotations","value":{}},{"op":"add","path":"/metadata/annotations/a~1b~0c","value":"x"}]`,
			wantAnn: map[string]string{"a/b~c": "x"}, wantLabel: "web", reason: "RFC 6901 escapes"},
		{name: "missing parent", d: base(), typ: types.JSONPatchType, patch: `[{"op":"replace","path":"/nope/x","value":1}]`, wantErr: true,
			reason: "a path through a member that does not exist fails"},
		{name: "remove", d: base(), typ: types.JSONPatchType, patch: `[{"op":"remove","path":"/metadata/annotations"}]`, wantErr: true,
			reason: "only replace and add are understood"},
		{name: "merge patch", d: base(), typ: types.MergePatchType, patch: `{}`, wantErr: true, reason: "only JSON patches"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			a := &kubectl.UndoPatch{Namespace: "default", Name: "web", Type: tt.typ, Patch: []byte(tt.patch), Why: "test"}
			frozen := testutil.Freeze(t, tt.d)
			got, err := a.ApplyTo(tt.d)
			frozen.Check(t)
			if tt.wantErr {
				if err == nil {
					t.Errorf("ApplyTo succeeded, want an error (%s)", tt.reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("ApplyTo: %v (%s)", err, tt.reason)
			}
			if len(got.Annotations) != len(tt.wantAnn) || got.Spec.Template.Labels["app"] != tt.wantLabel || got.Generation != tt.d.Generation {
				t.Errorf("ApplyTo = %+v (%s)", got.ObjectMeta, tt.reason)
			}
			for k, v := range tt.wantAnn {
				if got.Annotations[k] != v {
					t.Errorf("annotation %s = %q, want %q", k, got.Annotations[k], v)
				}
			}
			if a.String() != "patch deployment web "+string(tt.typ)+": test" {
				t.Errorf("String = %q", a.String())
			}
		})
	}
}
