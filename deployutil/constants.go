package deployutil

import appsv1 "k8s.io/api/apps/v1"

// Annotations the controller reads and writes.
const (
	// RevisionAnnotation holds a ReplicaSet's rollout sequence number; the
	// Deployment carries its new ReplicaSet's revision.
	RevisionAnnotation = "deployment.kubernetes.io/revision"
	// RevisionHistoryAnnotation lists, comma separated, earlier revisions a
	// ReplicaSet served before it became the new ReplicaSet again.
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	// DesiredReplicasAnnotation records spec.replicas of the Deployment at a
	// ReplicaSet's last write; a mismatch marks a scaling event.
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	// MaxReplicasAnnotation records replicas+maxSurge at a ReplicaSet's last
	// write; it is the denominator of proportional scaling.
	MaxReplicasAnnotation = "deployment.kubernetes.io/max-replicas"
	// RollbackToAnnotation is the deprecated rollback request ("0" means the
	// previous revision).
	RollbackToAnnotation = appsv1.DeprecatedRollbackTo
	// LastAppliedConfigAnnotation is kubectl's; it is never copied to
	// ReplicaSets.
	LastAppliedConfigAnnotation = "kubectl.kubernetes.io/last-applied-configuration"
	// ChangeCauseAnnotation is set by kubectl --record; the controller copies
	// it like any other annotation.
	ChangeCauseAnnotation = "kubernetes.io/change-cause"
	// PodTemplateHashLabel is the label that ties a ReplicaSet and its pods to
	// one pod template.
	PodTemplateHashLabel = appsv1.DefaultDeploymentUniqueLabelKey
)

// Reasons of the Deployment's conditions.
const (
	ReasonReplicaSetUpdated          = "ReplicaSetUpdated"
	ReasonReplicaSetCreateError      = "ReplicaSetCreateError"
	ReasonNewReplicaSetCreated       = "NewReplicaSetCreated"
	ReasonFoundNewReplicaSet         = "FoundNewReplicaSet"
	ReasonNewReplicaSetAvailable     = "NewReplicaSetAvailable"
	ReasonProgressDeadlineExceeded   = "ProgressDeadlineExceeded"
	ReasonDeploymentPaused           = "DeploymentPaused"
	ReasonDeploymentResumed          = "DeploymentResumed"
	ReasonMinimumReplicasAvailable   = "MinimumReplicasAvailable"
	ReasonMinimumReplicasUnavailable = "MinimumReplicasUnavailable"
)

// Reasons of the events the controller records on a Deployment.
const (
	EventSelectingAll              = "SelectingAll"
	EventScalingReplicaSet         = "ScalingReplicaSet"
	EventReplicaSetCreateError     = "ReplicaSetCreateError"
	EventRollbackDone              = "DeploymentRollback"
	EventRollbackRevisionNotFound  = "DeploymentRollbackRevisionNotFound"
	EventRollbackTemplateUnchanged = "DeploymentRollbackTemplateUnchanged"
)

// MaxRevisionHistoryChars is the length limit upstream applies to the
// revision-history annotation.
const MaxRevisionHistoryChars = 2000

// skippedAnnotations are never copied from a Deployment to its ReplicaSets,
// and are kept on the Deployment when a rollback copies a ReplicaSet's
// annotations back.
func isSkippedAnnotation(key string) bool {
	switch key {
	case LastAppliedConfigAnnotation, RevisionAnnotation, RevisionHistoryAnnotation,
		DesiredReplicasAnnotation, MaxReplicasAnnotation, RollbackToAnnotation:
		return true
	}
	return false
}
