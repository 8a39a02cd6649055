package execute

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
)

// ResolveAlreadyExists answers a [action.CreateReplicaSet] that the server
// refused because a ReplicaSet of that name exists (the caller's cache did
// not show it), as upstream answers it, given the Deployment as planned and
// the existing ReplicaSet read from the server:
//
//  1. If the existing ReplicaSet is controlled by the Deployment and has its
//     pod template (ignoring pod-template-hash), it is the new ReplicaSet
//     already: the plan is empty and asks for a requeue. Stop applying the
//     plan the create was part of (made from a cache that missed the
//     ReplicaSet, it announces a creation upstream would not announce); the
//     next sync, with a fresh cache, carries on with it.
//  2. Otherwise it is a hash collision: the plan raises
//     status.collisionCount (nil becomes 1) so the next sync computes
//     another name, and its Err is a [*deploysync.HashCollisionError].
//
// Neither argument is modified. As upstream's, the increment is in int32:
// a collision at status.collisionCount 2³¹−1 writes −2³¹ (which a real
// apiserver then refuses, as it refuses upstream's write).
func ResolveAlreadyExists(d *appsv1.Deployment, existing *appsv1.ReplicaSet) (deploysync.Plan, error) {
	if d == nil || existing == nil {
		return deploysync.Plan{}, &deployutil.InputError{Object: "ResolveAlreadyExists", Field: "arguments", Kind: deployutil.Required,
			Detail: "both the Deployment and the existing ReplicaSet are needed", Rule: "not a snapshot: a nil object"}
	}
	ref := metav1.GetControllerOfNoCopy(existing)
	if ref != nil && ref.UID == d.UID && deployutil.EqualIgnoreHash(&d.Spec.Template, &existing.Spec.Template) {
		return deploysync.Plan{Requeue: true}, nil
	}
	n := int32(1)
	if c := d.Status.CollisionCount; c != nil {
		n = *c + 1 // wraps at 2³¹−1, as upstream's
	}
	bumped := d.DeepCopy()
	bumped.Status.CollisionCount = &n
	err := &deploysync.HashCollisionError{Name: existing.Name, CollisionCount: n}
	return deploysync.Plan{
		Actions: []action.Action{&action.UpdateDeploymentStatus{Deployment: bumped, Why: action.Reasons{action.Because(action.RuleHashCollision,
			action.Str("replicaSet", existing.Name), action.Num("collisionCount", n))}}},
		Err: err,
	}, nil
}

// ResolveCreateFailed answers a [action.CreateReplicaSet] that failed for
// any reason but AlreadyExists (use [ResolveAlreadyExists] for that) as
// upstream's getNewReplicaSet does, given the Deployment as planned, the
// name of the ReplicaSet, the client's error and the time:
//
//   - a create refused because the namespace is terminating (the error's
//     cause NamespaceTerminating): no write, the sync fails;
//   - any other error: with a progress deadline, the Progressing condition
//     becomes False with reason ReplicaSetCreateError and the message
//     "Failed to create new replica set NAME: ERROR", written with the
//     status (the status write's own failure is ignored, as upstream
//     ignores it); then a Warning event ReplicaSetCreateError with that
//     message; the sync fails with a [*deploysync.CreateRejectedError].
//
// The plan's Err is the error to return after applying its actions. d is
// not modified. The event's message is the 1.36-and-later one: up to 1.35
// upstream passes it to Eventf as a format, which changes a message with
// a '%' in it (the library's own plans do that per minor).
func ResolveCreateFailed(d *appsv1.Deployment, name string, createErr error, now time.Time) (deploysync.Plan, error) {
	if d == nil || createErr == nil {
		return deploysync.Plan{}, &deployutil.InputError{Object: "ResolveCreateFailed", Field: "arguments", Kind: deployutil.Required,
			Detail: "the Deployment and the create's error are needed", Rule: "not a snapshot: a nil object"}
	}
	if apierrors.HasStatusCause(createErr, corev1.NamespaceTerminatingCause) {
		return deploysync.Plan{Err: createErr}, nil
	}
	msg := fmt.Sprintf("Failed to create new replica set %q: %v", name, createErr)
	why := []action.Value{action.Str("replicaSet", name), action.Str("error", createErr.Error())}
	var p deploysync.Plan
	if facts.HasProgressDeadline(d) {
		failed := d.DeepCopy()
		facts.SetCondition(&failed.Status, facts.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse,
			deployutil.ReasonReplicaSetCreateError, msg, now))
		p.Actions = append(p.Actions, &action.UpdateDeploymentStatus{Deployment: failed,
			Why: action.Reasons{action.Because(action.RuleCreateFailed, why...)}})
	}
	p.Actions = append(p.Actions, &action.Event{Type: corev1.EventTypeWarning, Reason: deployutil.EventReplicaSetCreateError, Message: msg,
		Why: action.Reasons{action.Because(action.RuleCreateFailedEvent, why...)}})
	p.Err = &deploysync.CreateRejectedError{Name: name, Message: createErr.Error()}
	return p, nil
}
