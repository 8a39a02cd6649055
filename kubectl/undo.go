package kubectl

import (
	"encoding/json"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/kversion"
)

// The reasons `kubectl rollout undo` does not patch, matched with
// [errors.Is] by every [*UndoError].
var (
	// ErrUndoRevisionNotFound: the revision asked for is not in the history
	// (or is negative).
	ErrUndoRevisionNotFound = errors.New("revision not found")
	// ErrUndoNoPrevious: undo to the previous revision, but the history has
	// fewer than two revisions.
	ErrUndoNoPrevious = errors.New("no previous revision")
	// ErrUndoPaused: the Deployment is paused.
	ErrUndoPaused = errors.New("deployment paused")
	// ErrUndoUnchanged: the Deployment's template already is the revision's.
	// kubectl reports this as success ("skipped rollback ...", exit status
	// 0) and sends nothing.
	ErrUndoUnchanged = errors.New("template unchanged")
)

// UndoError is why `kubectl rollout undo` sends no patch. Its Error text is
// kubectl's, byte for byte: the error kubectl exits with, or — for
// [ErrUndoUnchanged] — the message it prints after the Deployment's name.
type UndoError struct {
	// Kind is one of ErrUndoRevisionNotFound, ErrUndoNoPrevious,
	// ErrUndoPaused, ErrUndoUnchanged.
	Kind error
	// Revision is the revision asked for (0: the previous one).
	Revision int64
	// ReplicaSet is the revision's ReplicaSet, when it was found.
	ReplicaSet *appsv1.ReplicaSet
	msg        string
}

// Error is kubectl's message for the refusal.
func (e *UndoError) Error() string { return e.msg }

// Is reports whether target is e's Kind.
func (e *UndoError) Is(target error) bool { return target == e.Kind }

// Undo returns the patch `kubectl rollout undo deployment/NAME
// --to-revision=toRevision` sends for the Deployment d, given the
// ReplicaSets of its namespace (see [HistoryReplicaSets] for which count
// and in which order), or why it sends none. The rules, in kubectl's order:
//
//  1. toRevision < 0: [ErrUndoRevisionNotFound], "unable to find specified
//     revision N in history".
//  2. toRevision > 0: the first ReplicaSet in kubectl's order with that
//     revision (a missing annotation is revision 0; one that does not parse
//     is skipped), else [ErrUndoRevisionNotFound].
//  3. toRevision 0: the previous revision — the second highest in a scan
//     of kubectl's order, where a tie with the highest counts as second (so
//     two ReplicaSets sharing the highest revision roll back to the later
//     of them). None: [ErrUndoNoPrevious], "no rollout history found for
//     deployment %q".
//  4. d is paused: [ErrUndoPaused], "you cannot rollback a paused
//     deployment; resume it first with 'kubectl rollout resume' and try
//     again".
//  5. The ReplicaSet's template equals d's, ignoring the pod-template-hash
//     label: [ErrUndoUnchanged], "skipped rollback (current template already
//     matches revision N)", N being toRevision as given (0 for the previous
//     one).
//  6. Otherwise a JSON patch (RFC 6902) with two operations, serialized as
//     kubectl serializes it: replace /spec/template with the ReplicaSet's
//     template minus the pod-template-hash label, and replace
//     /metadata/annotations with d's controller-managed annotations
//     (revision, revision-history, desired-replicas, max-replicas,
//     last-applied-configuration, the deprecated rollback request) plus
//     every other annotation of the ReplicaSet.
//
// [UndoPatch.ApplyTo] applies the patch as an apiserver does.
// Neither d nor rss is modified.
func Undo(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, toRevision int64) (*UndoPatch, error) {
	return undo(kversion.Default, d, rss, toRevision)
}

func undo(m kversion.Minor, d *appsv1.Deployment, rss []*appsv1.ReplicaSet, toRevision int64) (*UndoPatch, error) {
	if toRevision < 0 {
		return nil, notFound(toRevision)
	}
	owned, err := HistoryReplicaSets(d, rss)
	if err != nil {
		return nil, err
	}
	target, err := undoTarget(d, owned, toRevision)
	if err != nil {
		return nil, err
	}
	if d.Spec.Paused {
		return nil, &UndoError{Kind: ErrUndoPaused, Revision: toRevision, ReplicaSet: target,
			msg: "you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again"}
	}
	if deployutil.EqualIgnoreHash(&target.Spec.Template, &d.Spec.Template) {
		return nil, &UndoError{Kind: ErrUndoUnchanged, Revision: toRevision, ReplicaSet: target,
			msg: fmt.Sprintf("skipped rollback (current template already matches revision %d)", toRevision)}
	}
	template := *target.Spec.Template.DeepCopy()
	// kubectl deletes the hash label from the map it has; a template whose
	// only label was the hash keeps an empty (not absent) label map.
	delete(template.Labels, deployutil.PodTemplateHashLabel)
	var value any = template
	if !m.AtLeast(kversion.V1_34) {
		value = templateV133{ObjectMeta: objectMetaV133(template.ObjectMeta), Spec: template.Spec}
	}
	patch, err := json.Marshal([]any{
		map[string]any{"op": "replace", "path": "/spec/template", "value": value},
		map[string]any{"op": "replace", "path": "/metadata/annotations", "value": facts.RollbackAnnotations(d, target)},
	})
	if err != nil {
		return nil, fmt.Errorf("failed restoring revision %d: %v", toRevision, err)
	}
	rev, _ := deployutil.Revision(target)
	return &UndoPatch{
		Namespace: d.Namespace, Name: d.Name, Type: types.JSONPatchType, Patch: patch,
		Why: fmt.Sprintf("kubectl rollout undo: restore the template and annotations of revision %d (ReplicaSet %s)", rev, target.Name),
	}, nil
}

// undoTarget finds the ReplicaSet of the revision, as kubectl scans them.
func undoTarget(d *appsv1.Deployment, owned []*appsv1.ReplicaSet, toRevision int64) (*appsv1.ReplicaSet, error) {
	var latest, previous *appsv1.ReplicaSet
	latestRev, previousRev := int64(-1), int64(-1)
	for _, rs := range owned {
		v, err := deployutil.Revision(rs)
		if err != nil {
			continue
		}
		switch {
		case toRevision > 0:
			if v == toRevision {
				return rs, nil
			}
		case latestRev < v:
			previous, previousRev = latest, latestRev
			latest, latestRev = rs, v
		case previousRev < v:
			previous, previousRev = rs, v
		}
	}
	if toRevision > 0 {
		return nil, notFound(toRevision)
	}
	if previous == nil {
		return nil, &UndoError{Kind: ErrUndoNoPrevious, msg: fmt.Sprintf("no rollout history found for deployment %q", d.Name)}
	}
	return previous, nil
}

func notFound(rev int64) error {
	return &UndoError{Kind: ErrUndoRevisionNotFound, Revision: rev, msg: fmt.Sprintf("unable to find specified revision %v in history", rev)}
}
