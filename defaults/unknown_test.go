package defaults

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/internal/kversion"
)

// TestNewFieldsExist checks that every entry of newFields names a field
// of its struct (clearFields would panic on a misspelt one).
func TestNewFieldsExist(t *testing.T) {
	for _, f := range newFields() {
		if _, ok := f.in.FieldByName(f.field); !ok {
			t.Errorf("%s has no field %s", f.in, f.field)
		}
	}
}

// TestDropUnknown checks the drop of fields an older minor does not know,
// on a template holding one of each kind.
func TestDropUnknown(t *testing.T) {
	tmpl := func() *corev1.PodTemplateSpec {
		return &corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			HostnameOverride: ptr.To("h"),
			Containers: []corev1.Container{{
				Name:         "c",
				VolumeMounts: []corev1.VolumeMount{{Name: "v", BindMountOptions: []string{"x"}}},
				Env:          []corev1.EnvVar{{Name: "e", ValueFrom: &corev1.EnvVarSource{FileKeyRef: &corev1.FileKeySelector{Key: "k"}}}},
			}},
			Volumes: []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{DefaultUser: ptr.To[int64](1)}}}},
		}}
	}
	for _, tc := range []struct {
		minor                   kversion.Minor
		hostname, fileKey, user bool
		reason                  string
	}{
		{kversion.V1_33, false, false, false, "1.33 knows none of hostnameOverride, fileKeyRef, defaultUser"},
		{kversion.V1_34, true, true, false, "1.34 knows hostnameOverride and fileKeyRef, not defaultUser"},
		{kversion.V1_36, true, true, false, "1.36 does not know defaultUser yet"},
		{kversion.V1_37, true, true, true, "1.37 knows every field of its own k8s.io/api"},
	} {
		p := tmpl()
		dropUnknown(p, tc.minor)
		got := [3]bool{p.Spec.HostnameOverride != nil, p.Spec.Containers[0].Env[0].ValueFrom.FileKeyRef != nil, p.Spec.Volumes[0].Secret.DefaultUser != nil}
		if want := [3]bool{tc.hostname, tc.fileKey, tc.user}; got != want {
			t.Errorf("%s: kept (hostnameOverride, fileKeyRef, defaultUser) = %v, want %v (%s)", tc.minor, got, want, tc.reason)
		}
	}
}
