package deployutil

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync/internal/hashlayout"
	"github.com/deploysync/deploysync/internal/kversion"
)

// ComputeHashFor returns the pod-template-hash of a template as the
// kube-controller-manager of a Kubernetes minor computes it. version is
// parsed as deploysync.WithKubernetesVersion parses it ("1.34",
// "v1.34.4-eks-1a2b3c"); a version it does not support is an error
// (*deploysync.UnsupportedVersionError, which lists the supported minors).
//
// Every minor hashes as [ComputeHash] does, but over the template as that
// minor's k8s.io/api holds it: its types, their fields in their order, and
// only the fields that minor knows (a field added later is dropped, as the
// older apiserver's decoding drops it). So a template that sets a newer
// field hashes as if it were unset, and even an unchanged template hashes
// differently on minors whose types differ. The layouts are generated from
// each minor's k8s.io/api source (internal/hashlayout). For 1.37,
// ComputeHashFor is [ComputeHash].
func ComputeHashFor(version string, template *corev1.PodTemplateSpec, collisionCount *int32) (string, error) {
	m, err := kversion.Parse(version)
	if err != nil {
		return "", err
	}
	return computeHashMinor(m, template, collisionCount)
}

// computeHashMinor is ComputeHashFor for a parsed minor.
func computeHashMinor(m kversion.Minor, template *corev1.PodTemplateSpec, collisionCount *int32) (string, error) {
	if m == kversion.Newest {
		return ComputeHash(template, collisionCount), nil
	}
	v, err := hashlayout.Template(m, template)
	if err != nil {
		return "", err
	}
	return hashOf(v, collisionCount), nil
}
