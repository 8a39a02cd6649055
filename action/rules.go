package action

// Rule identifies the decision rule a [Reason] comes from. The values are
// the constants' names without "Rule" ("RollingScaleUpNew"); they are
// stable, so tools may switch on them. Each constant's documentation says
// what the rule decides, then the names of its values in order; the table
// of sentences below gives each rule's sentence beside the same names.
// There are two groups: the Deployment controller's rules (the root
// package's Sync and the step packages) and the ReplicaSet controller's
// (package replicaset); every reason of the module is of one of them.
type Rule string

// The rules of the Deployment controller's decisions (Sync and the step
// packages).
const (
	// RuleRollingScaleUpNew: the rolling update grows the new ReplicaSet
	// within maxSurge. Values: replicaSet, from, to, maxSurge, maxPods, pods.
	RuleRollingScaleUpNew Rule = "RollingScaleUpNew"
	// RuleScaleDownNew: the new ReplicaSet is larger than spec.replicas and
	// shrinks to it. Values: replicaSet, from, to, replicas.
	RuleScaleDownNew Rule = "ScaleDownNew"
	// RuleRollingScaleDownUnavailable: the rolling update removes unavailable
	// replicas of an old ReplicaSet, oldest first, within the room
	// maxUnavailable leaves. Values: replicaSet, from, to, unavailable, room.
	RuleRollingScaleDownUnavailable Rule = "RollingScaleDownUnavailable"
	// RuleRollingScaleDownOld: the rolling update shrinks an old ReplicaSet by
	// the available pods beyond replicas − maxUnavailable. Values: replicaSet,
	// from, to, available, minAvailable, replicas, maxUnavailable.
	RuleRollingScaleDownOld Rule = "RollingScaleDownOld"
	// RuleRollingWaits: (a plan's Why) the rolling update can neither grow the
	// new ReplicaSet nor shrink an old one until pods change. Values:
	// maxSurge, maxPods, pods, available, minAvailable, replicas,
	// maxUnavailable.
	RuleRollingWaits Rule = "RollingWaits"
	// RuleLimitHoldsNew: a rollout limit holds the new ReplicaSet below what
	// maxSurge allows. Values: limit, max.
	RuleLimitHoldsNew Rule = "LimitHoldsNew"
	// RuleLimitKeepsOld: a rollout limit keeps replicas on the old
	// ReplicaSets. Values: limit, keep.
	RuleLimitKeepsOld Rule = "LimitKeepsOld"
	// RuleLimitScaleUpOld: a lowered rollout limit grows an old ReplicaSet
	// back. Values: replicaSet, from, to, limit, leaves, have, maxSurge,
	// maxPods, pods.
	RuleLimitScaleUpOld Rule = "LimitScaleUpOld"
	// RuleLimitScaleDownNew: a lowered rollout limit shrinks the new
	// ReplicaSet. Values: replicaSet, from, to, limit, unavailable, available,
	// minAvailable, replicas, maxUnavailable.
	RuleLimitScaleDownNew Rule = "LimitScaleDownNew"
	// RuleReplicasAnnotations: a ReplicaSet of the right size gets its
	// desired-replicas and max-replicas annotations rewritten. Values:
	// desired, max.
	RuleReplicasAnnotations Rule = "ReplicasAnnotations"
	// RuleRecreateScaleDownOld: Recreate scales every old ReplicaSet to zero
	// before starting new pods. Values: replicaSet, from.
	RuleRecreateScaleDownOld Rule = "RecreateScaleDownOld"
	// RuleRecreateWaits: (a plan's Why, followed by the pods it waits for)
	// Recreate starts no new pod while an old one runs.
	RuleRecreateWaits Rule = "RecreateWaits"
	// RuleRecreateOldPodsReported: old ReplicaSets still report pods in their
	// status. Values: pods.
	RuleRecreateOldPodsReported Rule = "RecreateOldPodsReported"
	// RuleRecreateOldPodRunning: an old pod has not finished. Values: pod,
	// replicaSet, phase.
	RuleRecreateOldPodRunning Rule = "RecreateOldPodRunning"
	// RuleRecreateScaleUpNew: Recreate scales the new ReplicaSet up once no
	// old pod runs. Values: replicaSet, from, to.
	RuleRecreateScaleUpNew Rule = "RecreateScaleUpNew"
	// RuleOnlyActive: a scaling event sizes the only ReplicaSet that should
	// run pods. Values: replicas.
	RuleOnlyActive Rule = "OnlyActive"
	// RuleSaturated: a scaling event scales old ReplicaSets to zero once the
	// new one is saturated. Values: replicaSet, available, replicas.
	RuleSaturated Rule = "Saturated"
	// RuleProportional: proportional scaling gives a ReplicaSet its share.
	// Values: active, current, allowed, replicas, maxSurge, share.
	RuleProportional Rule = "Proportional"
	// RuleUnhealthyFirst: proportional scaling with the fix UnhealthyFirst;
	// followed by a reason for this ReplicaSet and Share. Values: active,
	// current, allowed, replicas, maxSurge, took, rest.
	RuleUnhealthyFirst Rule = "UnhealthyFirst"
	// RuleUnhealthyFirstNew: the new ReplicaSet gives up no unavailable
	// replica first.
	RuleUnhealthyFirstNew Rule = "UnhealthyFirstNew"
	// RuleUnhealthyFirstGave: an old ReplicaSet gave up unavailable replicas.
	// Values: unavailable, replicas, available, gave.
	RuleUnhealthyFirstGave Rule = "UnhealthyFirstGave"
	// RuleUnhealthyFirstLate: older ReplicaSets already gave up all that was
	// to be removed. Values: unavailable, removed.
	RuleUnhealthyFirstLate Rule = "UnhealthyFirstLate"
	// RuleUnhealthyFirstHealthy: the ReplicaSet has no unavailable replica.
	// Values: replicas, available.
	RuleUnhealthyFirstHealthy Rule = "UnhealthyFirstHealthy"
	// RuleShare: the ReplicaSet's share of an UnhealthyFirst scaling. Values:
	// share.
	RuleShare Rule = "Share"
	// RuleFixStaleDesired: the fix StaleDesiredReplicas rewrites stale replica
	// annotations. Values: replicas, desired, max, maxReplicas, maxSurge
	// (desired and max as read, quoted, or "missing").
	RuleFixStaleDesired Rule = "FixStaleDesired"
	// RuleCleanup: an old ReplicaSet past revisionHistoryLimit is deleted.
	// Values: revisionHistoryLimit, exist, revision.
	RuleCleanup Rule = "Cleanup"
	// RuleAdopt: an orphaned ReplicaSet whose labels match is adopted. Values:
	// labels, selector.
	RuleAdopt Rule = "Adopt"
	// RuleRelease: an owned ReplicaSet whose labels no longer match is
	// released. Values: labels, selector.
	RuleRelease Rule = "Release"
	// RuleSelectingAll: the Deployment's selector is empty.
	RuleSelectingAll Rule = "SelectingAll"
	// RuleObserveGeneration: the status records the Deployment's generation.
	// Values: generation.
	RuleObserveGeneration Rule = "ObserveGeneration"
	// RulePaused: Progressing becomes Unknown on a pause.
	RulePaused Rule = "Paused"
	// RuleResumed: Progressing becomes Unknown on a resume.
	RuleResumed Rule = "Resumed"
	// RuleScaleEvent: a ScalingReplicaSet event reports the scale of the
	// ReplicaSet written just before it. Values: replicaSet.
	RuleScaleEvent Rule = "ScaleEvent"
	// RuleNewStartsEvent: a ScalingReplicaSet event reports the new
	// ReplicaSet's first size.
	RuleNewStartsEvent Rule = "NewStartsEvent"
	// RuleCreateNew: no ReplicaSet matches the pod template, so the new one is
	// created. Values: replicaSet, hash, revision, replicas.
	RuleCreateNew Rule = "CreateNew"
	// RuleCreateNewLimited: CreateNew under a rollout limit. Values:
	// replicaSet, hash, revision, replicas, maxSurgeAllows, limit, max.
	RuleCreateNewLimited Rule = "CreateNewLimited"
	// RuleRecordRevision: the Deployment's revision annotation takes the new
	// ReplicaSet's revision. Values: revision.
	RuleRecordRevision Rule = "RecordRevision"
	// RuleRecordFoundRevision: the Deployment's revision annotation takes the
	// revision of the new ReplicaSet found. Values: revision.
	RuleRecordFoundRevision Rule = "RecordFoundRevision"
	// RuleStartTracking: a Deployment with a progress deadline and no
	// Progressing condition gets one.
	RuleStartTracking Rule = "StartTracking"
	// RuleNoteCreated: the Progressing condition notes the new ReplicaSet.
	RuleNoteCreated Rule = "NoteCreated"
	// RuleHashCollision: the new ReplicaSet's name is taken by another
	// ReplicaSet. Values: replicaSet, collisionCount.
	RuleHashCollision Rule = "HashCollision"
	// RuleHashCollisionReleased: the new ReplicaSet's name is taken by a
	// ReplicaSet this sync releases. Values: replicaSet, collisionCount.
	RuleHashCollisionReleased Rule = "HashCollisionReleased"
	// RuleCreateRefused: (Kubernetes 1.33) the apiserver refuses the new
	// ReplicaSet's name. Values: replicaSet, length.
	RuleCreateRefused Rule = "CreateRefused"
	// RuleCreateRefusedEvent: (Kubernetes 1.33) the event of the refused
	// create. Values: kubernetesVersion, replicaSet, length.
	RuleCreateRefusedEvent Rule = "CreateRefusedEvent"
	// RuleCreateFailed: the apiserver refused the new ReplicaSet's create
	// for another reason than its name (a quota, an admission webhook, an
	// unavailable server), as the caller's client reported it (see
	// execute.ResolveCreateFailed). Values: replicaSet, error.
	RuleCreateFailed Rule = "CreateFailed"
	// RuleCreateFailedEvent: the event of that failed create. Values:
	// replicaSet, error.
	RuleCreateFailedEvent Rule = "CreateFailedEvent"
	// RuleRollbackNoPrevious: the rollback asks for the previous revision and
	// there is none.
	RuleRollbackNoPrevious Rule = "RollbackNoPrevious"
	// RuleRollbackNotFound: the rollback's revision does not exist. Values:
	// revision.
	RuleRollbackNotFound Rule = "RollbackNotFound"
	// RuleRollbackUnchanged: the rollback's revision has the current template.
	// Values: revision, replicaSet.
	RuleRollbackUnchanged Rule = "RollbackUnchanged"
	// RuleRollbackDone: the rollback's template is back. Values: revision.
	RuleRollbackDone Rule = "RollbackDone"
	// RuleRollbackNothingPrevious: the Deployment update of
	// RollbackNoPrevious.
	RuleRollbackNothingPrevious Rule = "RollbackNothingPrevious"
	// RuleRollbackMissing: the Deployment update of RollbackNotFound. Values:
	// revision.
	RuleRollbackMissing Rule = "RollbackMissing"
	// RuleRollbackNothing: the Deployment update of RollbackUnchanged.
	RuleRollbackNothing Rule = "RollbackNothing"
	// RuleRollbackTemplate: the rollback restores a revision's template and
	// annotations. Values: revision, replicaSet.
	RuleRollbackTemplate Rule = "RollbackTemplate"
	// RuleClearRollback: the deprecated rollback annotation is removed
	// (follows the rollback's reason).
	RuleClearRollback Rule = "ClearRollback"
	// RuleNote: a sentence a tool supplies for an action Sync did not decide
	// (a recorded plan). Values: text.
	RuleNote Rule = "Note"
	// RuleStatus: the Deployment's status changes. Values, each present only
	// when it changes: observedGeneration; for each count that changes (in
	// status order: replicas, updatedReplicas, readyReplicas,
	// availableReplicas, unavailableReplicas, terminatingReplicas) its old
	// and new value as "<field>.from" and "<field>.to" ("-" for an unset
	// terminatingReplicas); for each condition set or refreshed
	// "<Type>.status" and "<Type>.reason"; for each condition removed "drop"
	// with its type. With no value the write only refreshes the status.
	RuleStatus Rule = "Status"
	// RuleSyncNewReplicaSet: the new ReplicaSet's annotations or
	// minReadySeconds are brought up to date. Values: replicaSet, then only
	// what changes: minReadySeconds.from and minReadySeconds.to, revision.from
	// and revision.to (texts, "none" for no revision), copyAnnotations (1
	// when the Deployment's annotations are copied).
	RuleSyncNewReplicaSet Rule = "SyncNewReplicaSet"
)

// The rules of the ReplicaSet controller's decisions (package replicaset:
// one syncReplicaSet). Their values are the ReplicaSet rules' names
// without "Rule" too; the status rule is RuleReplicaSetStatus, since
// RuleStatus is the Deployment's.
const (
	// RuleCreatePods: fewer active pods than spec.replicas; create the
	// difference, at most burst. Values: replicaSet, active, replicas,
	// create, burst, batches.
	RuleCreatePods Rule = "CreatePods"
	// RuleDeletePods: more active pods than spec.replicas; delete the
	// difference, at most burst. Values: replicaSet, active, replicas,
	// delete, burst.
	RuleDeletePods Rule = "DeletePods"
	// RuleDeleteRanked: a pod is among the first of upstream's deletion
	// order. Values: pod, position, of, node, onNode, phase, ready, cost,
	// restarts.
	RuleDeleteRanked Rule = "DeleteRanked"
	// RuleDeleteAll: every active pod goes, so upstream does not sort.
	// Values: pod, position, of.
	RuleDeleteAll Rule = "DeleteAll"
	// RuleAdoptPod: an orphan active pod whose labels match the selector is
	// adopted. Values: pod, replicaSet.
	RuleAdoptPod Rule = "AdoptPod"
	// RuleReleasePod: an owned active pod whose labels no longer match the
	// selector is released. Values: pod, replicaSet.
	RuleReleasePod Rule = "ReleasePod"
	// RuleReplicaSetStatus: the ReplicaSet's status changes; the reason
	// gives the whole new status, terminating as a text (the count, or
	// "unset" with the gate off). Values: replicas, fullyLabeled, ready,
	// available, minReadySeconds, terminating, observedGeneration.
	RuleReplicaSetStatus Rule = "ReplicaSetStatus"
	// RuleFailureSet: a pod write failed and no ReplicaFailure condition is
	// there yet. Values: reason, message.
	RuleFailureSet Rule = "FailureSet"
	// RuleFailureKept: a pod write failed and a ReplicaFailure condition is
	// already there; upstream keeps it as it is. Values: reason.
	RuleFailureKept Rule = "FailureKept"
	// RuleFailureCleared: the pod writes succeed; the ReplicaFailure
	// condition goes. Values: reason.
	RuleFailureCleared Rule = "FailureCleared"
	// RuleRequeueAvailable: some ready pods are not yet available; look
	// again when the first becomes available. Values: after, pod,
	// minReadySeconds, ready, available.
	RuleRequeueAvailable Rule = "RequeueAvailable"
	// RuleRequeueMinReady: some ready pods are not available and none
	// becomes so later (no ready time); look again after minReadySeconds.
	// Values: minReadySeconds, ready, available.
	RuleRequeueMinReady Rule = "RequeueMinReady"
	// RuleRequeueAllReady: (1.33) every wanted pod is ready and not every
	// one available; look again after minReadySeconds. Values:
	// minReadySeconds, ready, available.
	RuleRequeueAllReady Rule = "RequeueAllReady"
	// RuleInSync: (a plan's Why) as many active pods as spec.replicas.
	// Values: active, replicas.
	RuleInSync Rule = "InSync"
	// RuleBeingDeleted: (a plan's Why) the ReplicaSet is being deleted: no
	// pod is created, deleted, adopted or released.
	RuleBeingDeleted Rule = "BeingDeleted"
	// RuleExpectationsPending: (a plan's Why) earlier creates or deletes are
	// not yet observed; the sync only writes the status. Values: active,
	// replicas.
	RuleExpectationsPending Rule = "ExpectationsPending"
	// RuleWritesFail: (a plan's Why) the pod writes of this sync fail
	// (replicaset.State's PodWriteError); the sync returns the error and is
	// retried with backoff instead of requeued. Values: message.
	RuleWritesFail Rule = "WritesFail"
)

// sentences is the table of the rules that render by a sentence: for each,
// the names of its values in the order the sentence takes them, and the
// sentence, a fmt format (%s and %q take a text value, %d a number; %[n]d
// takes the n-th value again). It is read only. RuleStatus and
// RuleSyncNewReplicaSet are not in it: their values say what changes, and
// they render field by field (statusText, syncNewText). The ReplicaSet
// controller's rules follow the Deployment controller's.
var sentences = map[Rule]sentence{
	RuleRollingScaleUpNew: {"replicaSet from to maxSurge maxPods pods",
		"scale up new ReplicaSet %s %d→%d: maxSurge %d allows %d pods, %d exist"},
	RuleScaleDownNew: {"replicaSet from to replicas",
		"scale down new ReplicaSet %s %d→%d: the Deployment wants %d replicas"},
	RuleRollingScaleDownUnavailable: {"replicaSet from to unavailable room",
		"scale down old ReplicaSet %s %d→%d: %d of its replicas are unavailable, and maxUnavailable allows %d pods to go"},
	RuleRollingScaleDownOld: {"replicaSet from to available minAvailable replicas maxUnavailable",
		"scale down old ReplicaSet %s %d→%d: %d pods are available and %d must stay (replicas %d − maxUnavailable %d)"},
	RuleRollingWaits: {"maxSurge maxPods pods available minAvailable replicas maxUnavailable",
		"the rollout waits for pods: maxSurge %d allows %d pods and %d exist; %d pods are available and %d must stay (replicas %d − maxUnavailable %d)"},
	RuleLimitHoldsNew: {"limit max",
		"%s holds it at %d"},
	RuleLimitKeepsOld: {"limit keep",
		"%s keeps %d replicas on the old ReplicaSets"},
	RuleLimitScaleUpOld: {"replicaSet from to limit leaves have maxSurge maxPods pods",
		"scale up old ReplicaSet %s %d→%d: %s leaves %d replicas to the old ReplicaSets and they have %d; maxSurge %d allows %d pods, %d exist"},
	RuleLimitScaleDownNew: {"replicaSet from to limit unavailable available minAvailable replicas maxUnavailable",
		"scale down new ReplicaSet %s %d→%d: %s is below its size; %d of its replicas are unavailable, %d pods are available and %d must stay (replicas %d − maxUnavailable %d)"},
	RuleReplicasAnnotations: {"desired max",
		"refresh the replica annotations to desired %d, max %d"},
	RuleRecreateScaleDownOld: {"replicaSet from",
		"scale down old ReplicaSet %s %d→0: Recreate stops every old pod before starting new ones"},
	RuleRecreateWaits: {"",
		"Recreate starts no new pod while old pods run"},
	RuleRecreateOldPodsReported: {"pods",
		"old ReplicaSets still report %d pods"},
	RuleRecreateOldPodRunning: {"pod replicaSet phase",
		"old pod %s of ReplicaSet %s has not finished (%s)"},
	RuleRecreateScaleUpNew: {"replicaSet from to",
		"scale up new ReplicaSet %s %d→%d: no old pod runs any more"},
	RuleOnlyActive: {"replicas",
		"it is the only ReplicaSet that should run pods; spec.replicas is %d"},
	RuleSaturated: {"replicaSet available replicas",
		"the new ReplicaSet %s is saturated (%d of %d available)"},
	RuleProportional: {"active current allowed replicas maxSurge share",
		"proportional scaling: %d active ReplicaSets hold %d replicas and may hold %d (replicas %d + maxSurge %d); this one's share is %d"},
	RuleUnhealthyFirst: {"active current allowed replicas maxSurge took rest",
		"proportional scaling, unavailable replicas of old ReplicaSets first (fix UnhealthyFirst): %d active ReplicaSets hold %d replicas and may hold %d (replicas %d + maxSurge %d); old ReplicaSets give up %d unavailable replicas first, oldest first, and the other %d are shared in proportion to size"},
	RuleUnhealthyFirstNew: {"",
		"this is the new ReplicaSet, which gives up no unavailable replica first"},
	RuleUnhealthyFirstGave: {"unavailable replicas available gave",
		"this one had %d unavailable (%d replicas, %d available) and gave up %d of them"},
	RuleUnhealthyFirstLate: {"unavailable removed",
		"this one has %d unavailable, but older ReplicaSets already gave up all %d"},
	RuleUnhealthyFirstHealthy: {"replicas available",
		"this one has no unavailable replica (%d replicas, %d available)"},
	RuleShare: {"share",
		"its share is %d"},
	RuleFixStaleDesired: {"replicas desired max maxReplicas maxSurge",
		"fix StaleDesiredReplicas: it is the only ReplicaSet that should run pods and already has spec.replicas %[1]d, but its desired-replicas (%[2]s) and max-replicas (%[3]s) annotations are stale; they become %[1]d and %[4]d (replicas %[1]d + maxSurge %[5]d) so the next sync is no scaling event"},
	RuleCleanup: {"revisionHistoryLimit exist revision",
		"revisionHistoryLimit %[1]d keeps %[1]d old ReplicaSets and %[2]d exist; this one (revision %[3]s) is among the oldest and scaled to zero"},
	RuleAdopt: {"labels selector",
		"it has no controller and its labels %s match the selector %s"},
	RuleRelease: {"labels selector",
		"it is controlled by this Deployment but its labels %s no longer match the selector %s"},
	RuleSelectingAll: {"",
		"the selector is empty; the controller acts on no Deployment that selects every pod"},
	RuleObserveGeneration: {"generation",
		"observe generation %d"},
	RulePaused: {"",
		"the Deployment is paused: Progressing becomes Unknown so the pause does not count against the progress deadline"},
	RuleResumed: {"",
		"the Deployment is resumed: the progress deadline starts again now"},
	RuleScaleEvent: {"replicaSet",
		"reports the scale of %s"},
	RuleNewStartsEvent: {"",
		"the new ReplicaSet starts with replicas"},
	RuleCreateNew: {"replicaSet hash revision replicas",
		"no ReplicaSet matches the pod template; create %s (pod-template-hash %s, revision %d) with %d replicas"},
	RuleCreateNewLimited: {"replicaSet hash revision replicas maxSurgeAllows limit max",
		"no ReplicaSet matches the pod template; create %s (pod-template-hash %s, revision %d) with %d replicas (maxSurge allows %d; %s holds it at %d)"},
	RuleRecordRevision: {"revision",
		"record revision %s on the Deployment"},
	RuleRecordFoundRevision: {"revision",
		"record revision %s of the new ReplicaSet on the Deployment"},
	RuleStartTracking: {"",
		"start tracking progress: there is a progress deadline and no Progressing condition yet"},
	RuleNoteCreated: {"",
		"note the new ReplicaSet in the Progressing condition"},
	RuleHashCollision: {"replicaSet collisionCount",
		"hash collision: %s exists and is not this Deployment's ReplicaSet with this template; collisionCount %d gives the next sync another name"},
	RuleHashCollisionReleased: {"replicaSet collisionCount",
		"hash collision: %s exists and is released by this sync: no longer this Deployment's; collisionCount %d gives the next sync another name"},
	RuleCreateRefused: {"replicaSet length",
		"the apiserver refuses the new ReplicaSet's name %q (%d characters): Progressing becomes False, ReplicaSetCreateError"},
	RuleCreateRefusedEvent: {"kubernetesVersion replicaSet length",
		"%s's controller names the new ReplicaSet %q (%d characters), which is no DNS subdomain; the create fails"},
	RuleCreateFailed: {"replicaSet error",
		"the create of the new ReplicaSet %s failed (%s): Progressing becomes False, ReplicaSetCreateError"},
	RuleCreateFailedEvent: {"replicaSet error",
		"reports the failed create of the new ReplicaSet %s (%s); the sync fails"},
	RuleRollbackNoPrevious: {"",
		"rollback to the previous revision asked, but no ReplicaSet has an earlier revision"},
	RuleRollbackNotFound: {"revision",
		"rollback to revision %d asked, but no ReplicaSet has it"},
	RuleRollbackUnchanged: {"revision replicaSet",
		"revision %d (%s) has the current template"},
	RuleRollbackDone: {"revision",
		"the template of revision %d is back"},
	RuleRollbackNothingPrevious: {"",
		"no previous revision to roll back to"},
	RuleRollbackMissing: {"revision",
		"revision %d not found"},
	RuleRollbackNothing: {"",
		"nothing to roll back"},
	RuleRollbackTemplate: {"revision replicaSet",
		"roll the template back to revision %d (ReplicaSet %s) and take its annotations"},
	RuleClearRollback: {"",
		"clear the rollback annotation"},
	RuleNote: {"text",
		"%s"},

	// The ReplicaSet controller's rules.
	RuleCreatePods: {"replicaSet active replicas create burst batches",
		"%s has %d active pods and wants %d: create %d (at most %d a sync), in slow-start batches %s"},
	RuleDeletePods: {"replicaSet active replicas delete burst",
		"%s has %d active pods and wants %d: delete %d (at most %d a sync)"},
	RuleDeleteRanked: {"pod position of node onNode phase ready cost restarts",
		"delete pod %s, %d of %d in the deletion order: node %q with %d related active pods, phase %s, %s, deletion cost %d, most restarts %d"},
	RuleDeleteAll: {"pod position of",
		"delete pod %s (%d of %d): every active pod goes, unsorted"},
	RuleAdoptPod: {"pod replicaSet",
		"adopt orphan pod %s: its labels match the selector of %s"},
	RuleReleasePod: {"pod replicaSet",
		"release pod %s: its labels no longer match the selector of %s"},
	RuleReplicaSetStatus: {"replicas fullyLabeled ready available minReadySeconds terminating observedGeneration",
		"status: replicas %d, fully labeled %d, ready %d, available %d (minReadySeconds %d), terminating %s, observed generation %d"},
	RuleFailureSet: {"reason message",
		"set condition ReplicaFailure (%s): %s"},
	RuleFailureKept: {"reason",
		"keep the ReplicaFailure condition (%s) as it is"},
	RuleFailureCleared: {"reason",
		"remove the ReplicaFailure condition (%s): the pod writes succeed"},
	RuleRequeueAvailable: {"after pod minReadySeconds ready available",
		"look again in %s, when pod %s has been ready for minReadySeconds %d (%d ready, %d available)"},
	RuleRequeueMinReady: {"minReadySeconds ready available",
		"look again after minReadySeconds %d: %d ready, %d available, and no ready time says when more become available"},
	RuleRequeueAllReady: {"minReadySeconds ready available",
		"look again after minReadySeconds %d: all %d wanted pods are ready, %d available"},
	RuleInSync: {"active replicas",
		"%d active pods, %d wanted: nothing to create or delete"},
	RuleBeingDeleted: {"",
		"the ReplicaSet is being deleted: no pod is created, deleted, adopted or released"},
	RuleExpectationsPending: {"active replicas",
		"earlier creates or deletes are not yet observed: %d active pods, %d wanted, nothing created or deleted this sync"},
	RuleWritesFail: {"message",
		"the pod writes fail (%s): the sync returns the error and is retried with backoff"},
}

// sentence is one row of the table of sentences.
type sentence struct {
	values string // the names of the values, in order, separated by spaces
	format string // the sentence the values fill
}
