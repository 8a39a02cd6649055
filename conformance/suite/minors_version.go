package suite

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
)

// VersionOptions returns the Sync options that make the library decide as
// Kubernetes minor does, for the recorded corpora (TestRecordedMinors).
func VersionOptions(minor string) ([]deploysync.Option, error) {
	return []deploysync.Option{deploysync.WithKubernetesVersion(minor)}, nil
}

// ComputeHashFor is the pod-template-hash as minor computes it.
func ComputeHashFor(minor string, t *corev1.PodTemplateSpec, collisionCount *int32) (string, error) {
	return deployutil.ComputeHashFor(minor, t, collisionCount)
}
