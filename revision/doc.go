// Package revision handles the Deployment's revisions: the revision numbers
// the controller writes on ReplicaSets, the revision-history annotation,
// which old ReplicaSets to delete past revisionHistoryLimit, the deprecated
// rollback annotation, the revision list `kubectl rollout history` shows
// ([History], [HistoryText]), and the patch `kubectl rollout undo` sends
// ([Undo]).
//
// A revision is the number in a ReplicaSet's
// deployment.kubernetes.io/revision annotation. A missing annotation counts
// as revision 0; one that does not parse is skipped wherever upstream skips
// it.
package revision
