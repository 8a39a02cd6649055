// Package action is the vocabulary of a plan: the writes and events that one
// sync of the Deployment controller intends, each carrying a sentence that
// says why it follows from the state.
//
// An [Action] is one of [CreateReplicaSet], [UpdateReplicaSet],
// [DeleteReplicaSet], [AdoptReplicaSet], [ReleaseReplicaSet],
// [UpdateDeployment], [UpdateDeploymentStatus] or [Event]. (kubectl's
// rollout undo patch is the kubectl package's UndoPatch, not an action: no
// sync emits it.) A caller applies
// them in order with whatever client it has and stops at the first failure;
// the next sync starts again from the state it then reads.
//
// Objects carried by actions are full intended objects: an update's object is
// the object as read (same resourceVersion) with every change of the sync
// already merged into it, so the last write of an object is the whole intent.
// Actions never alias the caller's input objects.
package action
