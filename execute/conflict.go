package execute

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
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
