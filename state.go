package deploysync

import (
	"encoding/json"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
)

// State is a snapshot of what a Deployment controller reads in one sync.
type State struct {
	// Deployment is the Deployment to sync.
	Deployment *appsv1.Deployment
	// ReplicaSets are every ReplicaSet in the Deployment's namespace the
	// caller knows of, in the order its cache lists them. Claiming (adopting
	// orphans, releasing strays) is part of the plan, and happens in this
	// order.
	ReplicaSets []*appsv1.ReplicaSet
	// Pods are the pods of those ReplicaSets, keyed by the UID of their
	// controlling ReplicaSet. Only a Recreate rollout reads them.
	//
	// As upstream's pod index, Sync assigns each pod by its controller
	// ownerReference, not by the key it is listed under: a pod counts for
	// the claimed ReplicaSet of its namespace whose kind, name and UID its
	// controller reference names. A pod keyed by
	// a UID no claimed ReplicaSet has, a pod without a controller, or one
	// controlled by another object, another namespace or a ReplicaSet the
	// Deployment does not claim, is ignored, as upstream ignores it. A nil
	// pod is an error: no snapshot holds one.
	Pods map[types.UID][]*corev1.Pod
	// Now is the time of the sync: conditions are stamped with it and the
	// progress deadline is measured against it.
	Now time.Time
}

// Branch names the branch of upstream's syncDeployment that decided a plan,
// by the case it handles; syncDeployment tries them in the order below and
// the first that applies decides. The values are the constants' names, as
// plans print them ("branch RollingUpdate").
type Branch string

const (
	// SelectingAll: the Deployment's empty selector selects all pods; the
	// controller only warns.
	SelectingAll Branch = "SelectingAll"
	// Deleting: the Deployment is being deleted; only its status is kept up
	// to date.
	Deleting Branch = "Deleting"
	// Paused: the Deployment is paused; it is scaled proportionally and its
	// history cleaned, but not rolled out.
	Paused Branch = "Paused"
	// Rollback: the Deployment asks for a rollback through the deprecated
	// annotation.
	Rollback Branch = "Rollback"
	// ScalingEvent: the Deployment was scaled (spec.replicas changed); the
	// replicas are spread over its ReplicaSets before any rollout continues.
	ScalingEvent Branch = "ScalingEvent"
	// Recreate: a step of the Recreate strategy.
	Recreate Branch = "Recreate"
	// RollingUpdate: a step of the RollingUpdate strategy.
	RollingUpdate Branch = "RollingUpdate"
)

// Plan is what one sync intends.
type Plan struct {
	// Branch is the branch of syncDeployment that decided.
	Branch Branch
	// Actions are the writes and events, in order. Apply them in order and
	// stop at the first failure; the next sync starts again from what the
	// cluster then holds.
	Actions []action.Action
	// Requeue asks to sync again soon, with rate limiting: the progress
	// deadline is less than a second away.
	Requeue bool
	// RequeueAfter asks to sync again after this long (one second past the
	// progress deadline); 0 means no timed requeue.
	RequeueAfter time.Duration
	// Why says, when a rule holds the rollout back in this sync, why it
	// does not move on: Recreate waits for old pods
	// ([action.RuleRecreateWaits], then the pod or count it waits for), or a
	// rolling update that is not done can neither grow the new ReplicaSet
	// nor shrink an old one ([action.RuleRollingWaits]). Such a plan may
	// still write the status. It is nil otherwise.
	Why action.Reasons
	// Err is the error upstream's sync returns after these actions (a hash
	// collision); the caller applies the actions and requeues with rate
	// limiting. It is nil for an ordinary sync.
	Err error
}

// String renders the plan for people: the branch, one action per line,
// then why the rollout waits (Why) and how the sync ends.
func (p Plan) String() string {
	s := fmt.Sprintf("branch %s", p.Branch)
	for _, a := range p.Actions {
		s += "\n- " + a.String()
	}
	if len(p.Why) > 0 {
		s += "\nwaits: " + p.Why.String()
	}
	switch {
	case p.Err != nil:
		s += "\nthen fail: " + p.Err.Error()
	case p.Requeue:
		s += "\nthen requeue now (rate limited)"
	case p.RequeueAfter > 0:
		s += "\nthen requeue after " + p.RequeueAfter.String()
	}
	return s
}

// MarshalJSON writes the plan for tools, as one object: "branch",
// "actions" (each as its MarshalJSON writes it, with its "kind"), "why"
// (the reasons of Why, [] when there are none), "requeue",
// "requeueAfter" (a Go duration such as "5m1s", present only when
// RequeueAfter > 0) and "error" (Err's text, present only with an Err).
// The form is stable: fields are only ever added.
func (p Plan) MarshalJSON() ([]byte, error) {
	out := struct {
		Branch       Branch          `json:"branch"`
		Actions      []action.Action `json:"actions"`
		Why          action.Reasons  `json:"why"`
		Requeue      bool            `json:"requeue"`
		RequeueAfter string          `json:"requeueAfter,omitempty"`
		Error        string          `json:"error,omitempty"`
	}{Branch: p.Branch, Actions: p.Actions, Why: p.Why, Requeue: p.Requeue}
	if out.Actions == nil {
		out.Actions = []action.Action{}
	}
	if p.RequeueAfter > 0 {
		out.RequeueAfter = p.RequeueAfter.String()
	}
	if p.Err != nil {
		out.Error = p.Err.Error()
	}
	return json.Marshal(out)
}

// InputError is the error [Sync], [Apply] and execute.ResolveAlreadyExists
// return for input an apps/v1 apiserver would refuse, or that cannot be a
// snapshot of one: it names the object, the field, the value and the
// apiserver rule. It is [deployutil.InputError] under a second name, so a
// caller of Sync handles it without importing deployutil; match it with
// [errors.As] on a *InputError.
type InputError = deployutil.InputError

// ErrInvalidInput is matched, with [errors.Is], by every [*InputError].
// It is the same value as [deployutil.ErrInvalidInput], so either name
// matches.
var ErrInvalidInput = deployutil.ErrInvalidInput

// HashCollisionError is a plan's Err when the name the new ReplicaSet would
// get belongs to a ReplicaSet that is not the Deployment's or has another
// template. The plan raises status.collisionCount so the next sync computes
// another name.
type HashCollisionError struct {
	// Name is the ReplicaSet name that is taken.
	Name string
	// CollisionCount is the Deployment's new status.collisionCount.
	CollisionCount int32
}

// Error names the ReplicaSet that collided and the new collisionCount.
func (e *HashCollisionError) Error() string {
	return fmt.Sprintf("hash collision: replicaset %q already exists and is not this Deployment's new ReplicaSet; collisionCount is now %d", e.Name, e.CollisionCount)
}

// CreateRejectedError is a plan's Err when the apiserver would refuse the
// new ReplicaSet's create because its name is no DNS subdomain: on
// Kubernetes 1.33, whose controller names it "<deployment>-<hash>" uncut, a
// name longer than 253 characters (a Deployment name longer than 242 to 244
// characters, with the hash); on every minor, a Deployment name of 243 or
// more characters with a '.' where the cut falls, which gives
// "<prefix>.-<hash>". The plan holds what upstream does then: the
// Progressing condition becomes False with reason ReplicaSetCreateError
// (when there is a progress deadline) and a Warning event
// ReplicaSetCreateError says why; the sync fails, so the caller requeues
// with rate limiting, and every sync fails the same way until the
// Deployment is renamed — the rollout never starts. A create that fails
// for a reason no state shows (a quota, a webhook, an unavailable server)
// is answered the same way by execute.ResolveCreateFailed, from the
// client's error.
type CreateRejectedError struct {
	// Name is the ReplicaSet name the create sent.
	Name string
	// Message is the apiserver's answer, as its error reads.
	Message string
}

// Error is the apiserver's answer.
func (e *CreateRejectedError) Error() string { return e.Message }
