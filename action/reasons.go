package action

// The reasons of the Deployment's conditions, as a plan's status writes set
// them (in UpdateDeploymentStatus and UpdateDeployment) and kube-controller-manager
// v1.37.2 sets them: compare a condition's Reason against these to tell, say,
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
	// characters; see WithKubernetesVersion).
	ReasonReplicaSetCreateError = "ReplicaSetCreateError"
)

// The reasons of the events a plan records on a Deployment ([Event.Reason]),
// those of kube-controller-manager v1.37.2.
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
