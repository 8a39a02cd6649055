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

// The reasons of the Deployment's conditions, as the status writes of a
// plan set them ([action.UpdateDeploymentStatus], [action.UpdateDeployment])
// and kube-controller-manager v1.37.2 sets them (RolloutLimited apart, which
// is the library's): compare a condition's Reason with these to tell, say,
// a finished rollout (NewReplicaSetAvailable) from a stuck one
// (ProgressDeadlineExceeded).
const (
	// ReasonReplicaSetUpdated: Progressing, a ReplicaSet of the rollout was
	// created, scaled or found.
	ReasonReplicaSetUpdated = "ReplicaSetUpdated"
	// ReasonNewReplicaSetCreated: Progressing, the new ReplicaSet was created.
	ReasonNewReplicaSetCreated = "NewReplicaSetCreated"
	// ReasonFoundNewReplicaSet: Progressing, an existing ReplicaSet matches
	// the template.
	ReasonFoundNewReplicaSet = "FoundNewReplicaSet"
	// ReasonNewReplicaSetAvailable: Progressing, the rollout is complete.
	ReasonNewReplicaSetAvailable = "NewReplicaSetAvailable"
	// ReasonProgressDeadlineExceeded: Progressing False, the rollout made no
	// progress within spec.progressDeadlineSeconds.
	ReasonProgressDeadlineExceeded = "ProgressDeadlineExceeded"
	// ReasonDeploymentPaused: Progressing Unknown, the Deployment is paused.
	ReasonDeploymentPaused = "DeploymentPaused"
	// ReasonDeploymentResumed: Progressing Unknown, the Deployment was
	// resumed.
	ReasonDeploymentResumed = "DeploymentResumed"
	// ReasonMinimumReplicasAvailable: Available True.
	ReasonMinimumReplicasAvailable = "MinimumReplicasAvailable"
	// ReasonMinimumReplicasUnavailable: Available False.
	ReasonMinimumReplicasUnavailable = "MinimumReplicasUnavailable"
	// ReasonReplicaSetCreateError: Progressing False, the apiserver refused
	// the new ReplicaSet (Kubernetes 1.33 only, for a name over 253
	// characters; see deploysync.WithKubernetesVersion).
	ReasonReplicaSetCreateError = "ReplicaSetCreateError"
	// ReasonRolloutLimited: Progressing True, a rollout held at its limit
	// (not upstream's: see deploysync.WithLimits).
	ReasonRolloutLimited = "RolloutLimited"
)

// The reasons of the events a plan records on a Deployment (the Reason of
// an [action.Event]), those of kube-controller-manager v1.37.2.
const (
	// EventSelectingAll: the Deployment's selector is empty; the sync does
	// nothing else.
	EventSelectingAll = "SelectingAll"
	// EventScalingReplicaSet: a ReplicaSet was scaled up or down.
	EventScalingReplicaSet = "ScalingReplicaSet"
	// EventRollbackDone: the deprecated rollback annotation was carried out.
	EventRollbackDone = "DeploymentRollback"
	// EventRollbackRevisionNotFound: the rollback's revision does not exist.
	EventRollbackRevisionNotFound = "DeploymentRollbackRevisionNotFound"
	// EventRollbackTemplateUnchanged: the rollback's revision has the
	// current template.
	EventRollbackTemplateUnchanged = "DeploymentRollbackTemplateUnchanged"
	// EventReplicaSetCreateError: a Warning, the apiserver refused the new
	// ReplicaSet (Kubernetes 1.33, a name over 253 characters).
	EventReplicaSetCreateError = "ReplicaSetCreateError"
)
