package deployutil

import appsv1 "k8s.io/api/apps/v1"

// The annotations and the label the controller reads and writes on
// Deployments and ReplicaSets. A user needs them to read what a plan
// writes (a ReplicaSet's revision, say), to build ReplicaSets in tests as a
// cluster holds them, or to request the deprecated rollback.
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
	// ChangeCauseAnnotation is set by kubectl --record; the controller copies
	// it like any other annotation, and `kubectl rollout history` shows it.
	ChangeCauseAnnotation = "kubernetes.io/change-cause"
	// PodTemplateHashLabel is the label that ties a ReplicaSet and its pods to
	// one pod template.
	PodTemplateHashLabel = appsv1.DefaultDeploymentUniqueLabelKey
)
