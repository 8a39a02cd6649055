package revision

import (
	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
)

// Deletion is an old ReplicaSet that history cleanup deletes.
type Deletion struct {
	ReplicaSet *appsv1.ReplicaSet
	Why        action.Reasons
}

// Cleanup decides which old ReplicaSets to delete to keep
// revisionHistoryLimit of them, by these rules in order:
//
//  1. No limit (nil or MaxInt32): nothing.
//  2. Only ReplicaSets not already being deleted count; if there are no more
//     of them than the limit, nothing.
//  3. They are sorted by revision, oldest first (unparseable
//     revisions by creation), and the first len−limit are visited.
//  4. A visited ReplicaSet is deleted only if it is fully scaled down and its
//     controller has seen that (spec and status replicas 0, observed
//     generation current); otherwise it is skipped and the next one is NOT
//     visited in its place.
//
// old must be in the order upstream holds its old ReplicaSets (creation
// order, or newest first after a scaling decision): with revisions that do
// not parse, the sort depends on it.
func Cleanup(d *appsv1.Deployment, old []*appsv1.ReplicaSet) []Deletion {
	if !facts.HasRevisionHistoryLimit(d) {
		return nil
	}
	var alive []*appsv1.ReplicaSet
	for _, rs := range old {
		if rs != nil && rs.DeletionTimestamp == nil {
			alive = append(alive, rs)
		}
	}
	limit := int(*d.Spec.RevisionHistoryLimit)
	excess := len(alive) - limit
	if excess <= 0 {
		return nil
	}
	var out []Deletion
	for _, rs := range facts.SortedByRevision(alive)[:excess] {
		if rs.Status.Replicas != 0 || *rs.Spec.Replicas != 0 || rs.Generation > rs.Status.ObservedGeneration || rs.DeletionTimestamp != nil {
			continue
		}
		rev := rs.Annotations[deployutil.RevisionAnnotation]
		if rev == "" {
			rev = "none"
		}
		out = append(out, Deletion{ReplicaSet: rs, Why: action.Reasons{action.Because(action.RuleCleanup,
			action.Num("revisionHistoryLimit", limit), action.Num("exist", len(alive)), action.Str("revision", rev))}})
	}
	return out
}
