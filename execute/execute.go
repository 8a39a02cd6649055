package execute

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
)

// Client is what [Plan] needs of an API client. Each method is one call
// to the apiserver and returns the object as the server answered it, or the
// client's error (an API status error for the server's refusals, which
// Plan classifies with k8s.io/apimachinery/pkg/api/errors). A caller
// implements it in a few lines with client-go, controller-runtime or any
// other client; package executetest has an in-memory one for tests.
//
// Plan never mutates the objects it passes and never passes the
// caller's objects: each is a copy it owns.
type Client interface {
	// CreateReplicaSet creates rs.
	CreateReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error)
	// UpdateReplicaSet replaces rs (metadata and spec), with rs's
	// resourceVersion as precondition.
	UpdateReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error)
	// PatchReplicaSet patches the ReplicaSet; pt is
	// types.StrategicMergePatchType for adoptions and releases.
	PatchReplicaSet(ctx context.Context, namespace, name string, pt types.PatchType, data []byte) (*appsv1.ReplicaSet, error)
	// DeleteReplicaSet deletes the ReplicaSet, with uid as precondition
	// unless it is empty.
	DeleteReplicaSet(ctx context.Context, namespace, name string, uid types.UID) error
	// GetDeployment reads the Deployment from the server, not from a
	// cache: it decides an adoption's precondition.
	GetDeployment(ctx context.Context, namespace, name string) (*appsv1.Deployment, error)
	// UpdateDeployment replaces d (metadata and spec), with d's
	// resourceVersion as precondition.
	UpdateDeployment(ctx context.Context, d *appsv1.Deployment) (*appsv1.Deployment, error)
	// UpdateDeploymentStatus writes d's status subresource, with d's
	// resourceVersion as precondition.
	UpdateDeploymentStatus(ctx context.Context, d *appsv1.Deployment) (*appsv1.Deployment, error)
	// Event records an event on d (component "deployment-controller", as
	// upstream's recorder). Events are best effort: there is no error.
	Event(d *appsv1.Deployment, eventType, reason, message string)
}

// ReplicaSetCache is an optional interface of a [Client]: the cache the
// states are made from (an informer's lister, a manager's cache), read now.
// A create refused with AlreadyExists is answered from it, as upstream
// answers it from its lister at that moment: see [Plan].
type ReplicaSetCache interface {
	// CachedReplicaSet returns the ReplicaSet as the cache holds it, or
	// the cache's error (NotFound when it does not hold it).
	CachedReplicaSet(ctx context.Context, namespace, name string) (*appsv1.ReplicaSet, error)
}

// ErrAdoptionRefused is matched (with [errors.Is]) by the failure of an
// adoption whose precondition did not hold: the Deployment read fresh from
// the server has another UID, is being deleted, or could not be read.
var ErrAdoptionRefused = errors.New("adoption refused")

// ErrStalePlan stops a plan whose create met the Deployment's own new
// ReplicaSet already on the server: the state the plan was made from missed
// it, so the rest of the plan is not what upstream would do. The next sync,
// with a fresh state, carries on with that ReplicaSet.
var ErrStalePlan = errors.New("plan made from a stale cache")

// ActionError is the failure of one action of a plan performed by
// [Plan]. It unwraps to the client's error, so apierrors.IsConflict and
// friends see through it.
type ActionError struct {
	// Index is the action's position in the plan.
	Index int
	// Action is the action that failed.
	Action action.Action
	// Unknown is set when the action's write may have taken effect: the
	// client's error is no refusal by the server (a timeout, a lost
	// connection, a 5xx). Plan did not retry it.
	Unknown bool
	// Err is the client's error, or one of ErrAdoptionRefused and
	// ErrStalePlan wrapping what decided.
	Err error
}

// Error names the failed action by index and the error.
func (e *ActionError) Error() string {
	s := fmt.Sprintf("plan action %d (%s): %v", e.Index, e.Action.String(), e.Err)
	if e.Unknown {
		s += " (the write may have taken effect)"
	}
	return s
}

// Unwrap returns the client's error.
func (e *ActionError) Unwrap() error { return e.Err }

// Result is what [Plan] did with a plan, and when to sync again.
type Result struct {
	// Done are the actions performed, in order: the server accepted them,
	// or answered that there was nothing to do (a deletion or an adoption
	// of a ReplicaSet already gone, a release NotFound or Invalid). The
	// status write that raises collisionCount after a hash collision is
	// among them, though the plan did not hold it.
	Done []action.Action
	// Failed is the action that stopped the plan (nil if none did); the
	// error Plan returns says why.
	Failed action.Action
	// Unknown is set when Failed's write may have taken effect (see
	// [ActionError.Unknown]): count it neither done nor not done.
	Unknown bool
	// NotDone are the actions after Failed, not attempted.
	NotDone []action.Action
	// Written is the Deployment as the server answered the last write of
	// it (nil if none): a controller can wait for its cache to hold that
	// resourceVersion before it syncs the Deployment again.
	Written *appsv1.Deployment
	// Requeue asks to sync again with rate limiting: the plan asked so,
	// the plan's Err is set, or an action failed.
	Requeue bool
	// RequeueAfter asks to sync again after this long (the plan's
	// RequeueAfter, when the whole plan was done); 0 means no timed
	// requeue.
	RequeueAfter time.Duration
}

// Plan performs plan p, made by [deploysync.Sync] from state s, through c,
// action by action, in order, as upstream's syncDeployment performs its
// writes:
//
//   - CreateReplicaSet creates. A name already taken is answered by
//     [ResolveAlreadyExists] with the existing ReplicaSet as the cache holds
//     it now, if c is a [ReplicaSetCache], else as s holds it: the
//     Deployment's own ReplicaSet with its template stops the plan with
//     [ErrStalePlan]; anything else is a hash collision,
//     status.collisionCount is raised and Plan returns a
//     [*deploysync.HashCollisionError]. A cache (or a state) that does not
//     hold the ReplicaSet decides nothing: the create
//     fails with AlreadyExists, and the next sync, whose state holds the
//     ReplicaSet, decides as upstream would (Sync reads taken names from
//     its state).
//   - UpdateReplicaSet, UpdateDeployment and UpdateDeploymentStatus send the
//     plan's object.
//   - DeleteReplicaSet deletes with the ReplicaSet's UID as precondition; a
//     ReplicaSet already gone is not a failure.
//   - AdoptReplicaSet first reads the Deployment from the server (once per
//     plan) and refuses with [ErrAdoptionRefused] unless its UID is the
//     owner's and it is not being deleted; then it sends the plan's
//     strategic merge patch. A ReplicaSet already gone is not a failure.
//   - ReleaseReplicaSet sends the plan's strategic merge patch; NotFound and
//     Invalid answers are not failures (the ReplicaSet is gone or no longer
//     ours), as upstream.
//   - Event records the event on s.Deployment.
//
// A write of an object that this plan already wrote carries the
// resourceVersion the server returned for the earlier write (otherwise the
// second write of one object would fail with 409). Plan stops at the
// first failure, and returns it as an [*ActionError], or the
// [*deploysync.HashCollisionError]; no write is retried, so none can
// happen twice. After the last action it returns the plan's Err (nil for
// an ordinary sync). Every error comes with Result.Requeue set. The objects
// of s and p are not modified.
func Plan(ctx context.Context, c Client, s deploysync.State, p deploysync.Plan) (Result, error) {
	if s.Deployment == nil {
		return Result{NotDone: p.Actions, Requeue: true}, errors.New("execute.Plan: the state has no Deployment")
	}
	r := &execution{c: c, s: s, versions: map[objectKey]string{}}
	for i, act := range p.Actions {
		err := r.do(ctx, act)
		if err == nil {
			r.res.Done = append(r.res.Done, act)
			continue
		}
		r.res.Failed = act
		r.res.NotDone = p.Actions[i+1:]
		r.res.Requeue = true
		var collision *deploysync.HashCollisionError
		if errors.As(err, &collision) {
			return r.res, err
		}
		ae := &ActionError{Index: i, Action: act, Err: err}
		var u unknownOutcome
		if errors.As(err, &u) {
			ae.Err, ae.Unknown = u.err, true
			r.res.Unknown = true
		}
		return r.res, ae
	}
	r.res.Requeue = p.Requeue || p.Err != nil
	if !r.res.Requeue {
		r.res.RequeueAfter = p.RequeueAfter
	}
	return r.res, p.Err
}

// unknownOutcome marks a write error whose outcome the client cannot know.
type unknownOutcome struct{ err error }

func (u unknownOutcome) Error() string { return u.err.Error() }

// wrote classifies the error of a write: nil stays nil; an error that is
// not a refusal by the server (a 4xx other than 408) becomes an
// unknownOutcome.
func wrote(err error) error {
	if err == nil {
		return nil
	}
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		code := st.Status().Code
		if code >= 400 && code < 500 && code != 408 && !apierrors.IsTimeout(err) && !apierrors.IsServerTimeout(err) {
			return err
		}
	}
	return unknownOutcome{err}
}

// objectKey names an object a plan writes.
type objectKey struct {
	kind, namespace, name string
}

// execution is one performance of one plan.
type execution struct {
	c Client
	s deploysync.State
	// versions holds the resourceVersion of every object this execution
	// wrote, as the server returned it.
	versions map[objectKey]string
	// adoptionChecked is set once the adoption precondition held.
	adoptionChecked bool
	res             Result
}

func (r *execution) do(ctx context.Context, act action.Action) error {
	switch a := act.(type) {
	case *action.CreateReplicaSet:
		return r.create(ctx, a.ReplicaSet)
	case *action.UpdateReplicaSet:
		rs := a.ReplicaSet.DeepCopy()
		r.carry("ReplicaSet", rs.Namespace, rs.Name, &rs.ResourceVersion)
		out, err := r.c.UpdateReplicaSet(ctx, rs)
		if err != nil {
			return wrote(err)
		}
		r.remember("ReplicaSet", out.Namespace, out.Name, out.ResourceVersion)
	case *action.DeleteReplicaSet:
		err := r.c.DeleteReplicaSet(ctx, a.Namespace, a.Name, a.UID)
		if err != nil && !apierrors.IsNotFound(err) {
			return wrote(err)
		}
		delete(r.versions, objectKey{"ReplicaSet", a.Namespace, a.Name})
	case *action.AdoptReplicaSet:
		if err := r.checkAdoption(ctx, a.OwnerUID); err != nil {
			return err
		}
		return r.patch(ctx, a.Namespace, a.Name, a.Patch, apierrors.IsNotFound)
	case *action.ReleaseReplicaSet:
		return r.patch(ctx, a.Namespace, a.Name, a.Patch, func(err error) bool {
			return apierrors.IsNotFound(err) || apierrors.IsInvalid(err)
		})
	case *action.UpdateDeployment:
		d := a.Deployment.DeepCopy()
		r.carry("Deployment", d.Namespace, d.Name, &d.ResourceVersion)
		out, err := r.c.UpdateDeployment(ctx, d)
		if err != nil {
			return wrote(err)
		}
		r.rememberDeployment(out)
	case *action.UpdateDeploymentStatus:
		return r.updateStatus(ctx, a.Deployment)
	case *action.Event:
		r.c.Event(r.s.Deployment, a.Type, a.Reason, a.Message)
	default:
		return fmt.Errorf("unknown action type %T", act)
	}
	return nil
}

func (r *execution) updateStatus(ctx context.Context, planned *appsv1.Deployment) error {
	d := planned.DeepCopy()
	r.carry("Deployment", d.Namespace, d.Name, &d.ResourceVersion)
	out, err := r.c.UpdateDeploymentStatus(ctx, d)
	if err != nil {
		return wrote(err)
	}
	r.rememberDeployment(out)
	return nil
}

func (r *execution) create(ctx context.Context, rs *appsv1.ReplicaSet) error {
	out, err := r.c.CreateReplicaSet(ctx, rs.DeepCopy())
	if err == nil {
		r.remember("ReplicaSet", out.Namespace, out.Name, out.ResourceVersion)
		return nil
	}
	if !apierrors.IsAlreadyExists(err) {
		// Upstream reports a failed create in the Deployment's status and an
		// event before the sync fails; the write's own failure is ignored.
		base := r.s.Deployment
		if r.res.Written != nil {
			base = r.res.Written
		}
		if answer, aerr := ResolveCreateFailed(base, rs.Name, err, r.s.Now); aerr == nil {
			for _, a := range answer.Actions {
				switch w := a.(type) {
				case *action.UpdateDeploymentStatus:
					if r.updateStatus(ctx, w.Deployment) != nil {
						continue
					}
				case *action.Event:
					r.c.Event(r.s.Deployment, w.Type, w.Reason, w.Message)
				}
				r.res.Done = append(r.res.Done, a)
			}
		}
		return wrote(err)
	}
	// The state the plan was made from did not hold this ReplicaSet. Read
	// it where upstream reads it, the cache (it may have arrived since the
	// plan was made), and decide.
	existing, gerr := r.existing(ctx, rs.Namespace, rs.Name)
	if gerr != nil {
		return fmt.Errorf("%w (reading the existing replicaset: %v)", err, gerr)
	}
	base := r.s.Deployment
	if r.res.Written != nil {
		base = r.res.Written
	}
	answer, aerr := ResolveAlreadyExists(base, existing)
	if aerr != nil {
		return aerr
	}
	if answer.Err == nil {
		// Ours already: the rest of the plan was made from a state that
		// missed it and announces a creation upstream would not announce.
		return fmt.Errorf("%w: replicaset %s exists and is this Deployment's new ReplicaSet", ErrStalePlan, rs.Name)
	}
	for _, a := range answer.Actions {
		if uerr := r.updateStatus(ctx, a.(*action.UpdateDeploymentStatus).Deployment); uerr != nil {
			var u unknownOutcome
			if errors.As(uerr, &u) {
				return unknownOutcome{fmt.Errorf("raising collisionCount after %v: %w", err, u.err)}
			}
			return fmt.Errorf("raising collisionCount after %v: %w", err, uerr)
		}
		r.res.Done = append(r.res.Done, a)
	}
	return answer.Err
}

// existing reads a ReplicaSet a create found taken: from the client's
// cache if it has one, else from the state.
func (r *execution) existing(ctx context.Context, ns, name string) (*appsv1.ReplicaSet, error) {
	if cache, ok := r.c.(ReplicaSetCache); ok {
		return cache.CachedReplicaSet(ctx, ns, name)
	}
	for _, rs := range r.s.ReplicaSets {
		if rs != nil && rs.Namespace == ns && rs.Name == name {
			return rs, nil
		}
	}
	return nil, apierrors.NewNotFound(appsv1.Resource("replicasets"), name)
}

// checkAdoption is upstream's adoption precondition, checked once per plan
// against the server, not a cache: the Deployment must still be the owner
// the plan names and must not be being deleted.
func (r *execution) checkAdoption(ctx context.Context, owner types.UID) error {
	if r.adoptionChecked {
		return nil
	}
	d := r.s.Deployment
	fresh, err := r.c.GetDeployment(ctx, d.Namespace, d.Name)
	if err != nil {
		return fmt.Errorf("%w: reading deployment %s/%s: %w", ErrAdoptionRefused, d.Namespace, d.Name, err)
	}
	if fresh.UID != owner {
		return fmt.Errorf("%w: deployment %s/%s is gone: got uid %s, wanted %s", ErrAdoptionRefused, d.Namespace, d.Name, fresh.UID, owner)
	}
	if fresh.DeletionTimestamp != nil {
		return fmt.Errorf("%w: deployment %s/%s is being deleted", ErrAdoptionRefused, d.Namespace, d.Name)
	}
	r.adoptionChecked = true
	return nil
}

func (r *execution) patch(ctx context.Context, ns, name string, patch []byte, ignore func(error) bool) error {
	out, err := r.c.PatchReplicaSet(ctx, ns, name, types.StrategicMergePatchType, patch)
	if err != nil {
		if ignore(err) {
			return nil
		}
		return wrote(err)
	}
	r.remember("ReplicaSet", out.Namespace, out.Name, out.ResourceVersion)
	return nil
}

// carry sets *rv to the resourceVersion this execution last got for the
// object, if it wrote it before.
func (r *execution) carry(kind, ns, name string, rv *string) {
	if v, ok := r.versions[objectKey{kind, ns, name}]; ok {
		*rv = v
	}
}

func (r *execution) remember(kind, ns, name, rv string) {
	r.versions[objectKey{kind, ns, name}] = rv
}

func (r *execution) rememberDeployment(d *appsv1.Deployment) {
	r.remember("Deployment", d.Namespace, d.Name, d.ResourceVersion)
	r.res.Written = d
}
