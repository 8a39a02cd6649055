// Package revision handles what the Deployment controller does with
// revisions: the revision numbers it writes on ReplicaSets, the
// revision-history annotation, which old ReplicaSets to delete past
// revisionHistoryLimit, and the deprecated rollback annotation. kubectl's
// view of revisions (`kubectl rollout history` and `undo`) is in the
// kubectl package.
//
// A revision is the number in a ReplicaSet's
// deployment.kubernetes.io/revision annotation. A missing annotation counts
// as revision 0; one that does not parse is skipped wherever upstream skips
// it.
package revision
