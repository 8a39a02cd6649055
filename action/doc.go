// Package action is the vocabulary of a plan: the writes and events that one
// sync of the Deployment controller intends, each carrying its reasons: why
// it follows from the state.
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
//
// A reason is data, not text: a [Reason] names the [Rule] that decided
// (RuleRollingScaleUpNew, RuleRecreateScaleDownOld, RuleProportional,
// RuleCleanup, RuleStatus, …) and the named numbers it used, and renders
// as a sentence only when read (String). An action's Why holds its
// [Reasons]; Explain is their sentence. [Reason.Check] says whether a
// reason's values are those its rule takes; one whose values are not is
// never rendered as the rule's sentence. The rules are both controllers':
// the Deployment controller's, and the ReplicaSet controller's
// (RuleCreatePods, RuleDeleteRanked, RuleReplicaSetStatus, …), whose
// decisions package replicaset plans with these same reasons.
//
// Every action marshals to JSON as one object: "kind" (the action's type
// name, "CreateReplicaSet"), the action's fields in lower camel case (its
// object with apiVersion and kind set, so a tool can send it as it is; a
// patch as the JSON it is; an Event's "type", "reason" and "message" as
// upstream records them), "why" (the reasons, each as
// [Reason.MarshalJSON] writes it) and "text" (String). The form is
// stable: fields are only ever added.
package action
