package deploysync

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/kversion"
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

// Branch names the branch of upstream's syncDeployment that decided a plan.
// The values complete the sentence "The Deployment is ...".
type Branch string

const (
	// SelectingAll: selecting all pods (an empty selector); the controller
	// only warns.
	SelectingAll Branch = "SelectingAll"
	// Deleting: being deleted; only its status is kept up to date.
	Deleting Branch = "Deleting"
	// Paused: paused; it is scaled proportionally and its history cleaned,
	// but not rolled out.
	Paused Branch = "Paused"
	// Rollback: asked to roll back through the deprecated annotation.
	Rollback Branch = "Rollback"
	// ScalingEvent: being scaled (spec.replicas changed); the replicas are
	// spread over its ReplicaSets before any rollout continues.
	ScalingEvent Branch = "ScalingEvent"
	// Recreate: rolled out by the Recreate strategy.
	Recreate Branch = "Recreate"
	// RollingUpdate: rolled out by the RollingUpdate strategy.
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
	// Err is the error upstream's sync returns after these actions (a hash
	// collision); the caller applies the actions and requeues with rate
	// limiting. It is nil for an ordinary sync.
	Err error
}

// String renders the plan for people: the branch, then one action per line.
func (p Plan) String() string {
	s := fmt.Sprintf("branch %s", p.Branch)
	for _, a := range p.Actions {
		s += "\n- " + a.String()
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

// Option changes how Sync decides.
type Option func(*options)

type options struct {
	// terminatingReplicas is the caller's setting of the gate, nil for the
	// minor's default (gateTerminatingReplicas).
	terminatingReplicas *bool
	version             kversion.Minor
	versionErr          error
	historyLimit        int
	fixes               []Fix
}

func defaultOptions() options {
	return options{version: kversion.Default, historyLimit: deployutil.MaxRevisionHistoryChars}
}

// WithTerminatingReplicas sets the DeploymentReplicaSetTerminatingReplicas
// feature gate: whether the status reports terminatingReplicas. Without it
// the gate has the default of the minor of [WithKubernetesVersion]: off in
// 1.33 and 1.34, on from 1.35.
func WithTerminatingReplicas(enabled bool) Option {
	return func(o *options) { o.terminatingReplicas = &enabled }
}

// WithRevisionHistoryChars sets the length limit of the revision-history
// annotation ([deployutil.MaxRevisionHistoryChars] upstream).
func WithRevisionHistoryChars(n int) Option {
	return func(o *options) { o.historyLimit = n }
}
