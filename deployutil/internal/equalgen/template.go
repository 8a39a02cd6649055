package equalgen

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
)

// Template is the configuration deployutil's zz_generated_equal.go is
// generated with: the comparison of pod templates behind
// deployutil.EqualIgnoreHash, which compares the labels itself.
func Template() Config {
	return Config{
		Package:  "deployutil",
		Root:     reflect.TypeFor[corev1.PodTemplateSpec](),
		RootFunc: "equalTemplateExceptLabels",
		Omit:     []string{"ObjectMeta.Labels"},
		Command:  "deployutil/internal/equalgen (go generate ./deployutil)",
	}
}
