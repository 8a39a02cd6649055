package facts

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync/deployutil"
)

// MaxRevisionHistoryChars is the length limit upstream applies to the
// revision-history annotation.
const MaxRevisionHistoryChars = 2000

// skippedAnnotations are never copied from a Deployment to its ReplicaSets,
// and are kept on the Deployment when a rollback copies a ReplicaSet's
// annotations back.
func isSkippedAnnotation(key string) bool {
	switch key {
	case corev1.LastAppliedConfigAnnotation, deployutil.RevisionAnnotation, deployutil.RevisionHistoryAnnotation,
		deployutil.DesiredReplicasAnnotation, deployutil.MaxReplicasAnnotation, deployutil.RollbackToAnnotation:
		return true
	}
	return false
}
