package defaults

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync/internal/kversion"
)

// A newField is a field of the library's k8s.io/api (v0.37.2) that older
// minors' k8s.io/api do not have: an apiserver of such a minor decodes
// the object it is sent into its own types, so the field is gone from
// what it stores, whatever its gates.
type newField struct {
	in    reflect.Type // the struct holding it
	field string       // its Go name (the JSON name in the comment)
	since kversion.Minor
}

// newFields lists every field reachable from a Deployment, a ReplicaSet or
// a PodTemplate that a supported minor older than 1.37 does not know,
// with the first minor that does. It is derived by comparing the JSON
// names of every struct of core/v1 and apps/v1 in k8s.io/api v0.33.5,
// v0.34.4, v0.35.4 and v0.36.3 with v0.37.2 (apps/v1's Deployment and
// ReplicaSet types did not change; fields of status-only types are left
// out, a template holds none).
func newFields() []newField {
	t := func(v any) reflect.Type { return reflect.TypeOf(v) }
	return []newField{
		{t(corev1.Container{}), "RestartPolicyRules", kversion.V1_34},                // restartPolicyRules
		{t(corev1.EphemeralContainerCommon{}), "RestartPolicyRules", kversion.V1_34}, // restartPolicyRules
		{t(corev1.EnvVarSource{}), "FileKeyRef", kversion.V1_34},                     // fileKeyRef
		{t(corev1.PodSpec{}), "HostnameOverride", kversion.V1_34},                    // hostnameOverride
		{t(corev1.VolumeProjection{}), "PodCertificate", kversion.V1_34},             // podCertificate
		{t(corev1.PodCertificateProjection{}), "UserAnnotations", kversion.V1_35},    // userAnnotations
		{t(corev1.PodSpec{}), "SchedulingGroup", kversion.V1_36},                     // schedulingGroup
		{t(corev1.PodSpec{}), "EvictionResponders", kversion.V1_37},                  // evictionResponders
		{t(corev1.VolumeMount{}), "BindMountOptions", kversion.V1_37},                // bindMountOptions
		{t(corev1.EmptyDirVolumeSource{}), "Mode", kversion.V1_37},                   // mode
		{t(corev1.GRPCAction{}), "Mode", kversion.V1_37},                             // mode
		{t(corev1.HTTPGetAction{}), "Protocol", kversion.V1_37},                      // protocol
		{t(corev1.SecretVolumeSource{}), "DefaultUser", kversion.V1_37},              // defaultUser
		{t(corev1.ConfigMapVolumeSource{}), "DefaultUser", kversion.V1_37},           // defaultUser
		{t(corev1.DownwardAPIVolumeSource{}), "DefaultUser", kversion.V1_37},         // defaultUser
		{t(corev1.ProjectedVolumeSource{}), "DefaultUser", kversion.V1_37},           // defaultUser
		{t(corev1.KeyToPath{}), "User", kversion.V1_37},                              // user
		{t(corev1.DownwardAPIVolumeFile{}), "User", kversion.V1_37},                  // user
		{t(corev1.ServiceAccountTokenProjection{}), "User", kversion.V1_37},          // user
		{t(corev1.ClusterTrustBundleProjection{}), "User", kversion.V1_37},           // user
		{t(corev1.PodCertificateProjection{}), "User", kversion.V1_37},               // user
	}
}

// dropUnknown clears, in the value p points to, every field minor m does
// not know, as that minor's decoding would.
func dropUnknown(p any, m kversion.Minor) {
	drop := map[reflect.Type][]string{}
	for _, f := range newFields() {
		if m < f.since {
			drop[f.in] = append(drop[f.in], f.field)
		}
	}
	if len(drop) == 0 {
		return
	}
	clearFields(reflect.ValueOf(p), drop)
}

func clearFields(v reflect.Value, drop map[reflect.Type][]string) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			clearFields(v.Elem(), drop)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			clearFields(v.Index(i), drop)
		}
	case reflect.Struct:
		for _, name := range drop[v.Type()] {
			v.FieldByName(name).SetZero()
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				clearFields(v.Field(i), drop)
			}
		}
	}
}
