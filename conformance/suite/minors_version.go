package suite

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
)

// VersionOptions returns the Sync options that make the library decide as
// Kubernetes minor does, for the recorded corpora (TestRecordedMinors).
//
// This library decides as 1.37 only: every other minor is an error, so the
// check of the older minors' corpora fails until the library can select
// them (deploysync.WithKubernetesVersion).
func VersionOptions(minor string) ([]deploysync.Option, error) {
	if minor == "1.37" {
		return nil, nil
	}
	return nil, fmt.Errorf("the library cannot decide as Kubernetes %s: it has no deploysync.WithKubernetesVersion", minor)
}

// ComputeHashFor is the pod-template-hash as minor computes it.
func ComputeHashFor(minor string, t *corev1.PodTemplateSpec, collisionCount *int32) (string, error) {
	if minor == "1.37" {
		return deployutil.ComputeHash(t, collisionCount), nil
	}
	return "", fmt.Errorf("the library cannot hash as Kubernetes %s: it has no deployutil.ComputeHashFor", minor)
}
