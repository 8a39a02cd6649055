package applier

import (
	"context"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
)

// Component is the event source component of kube-controller-manager's
// Deployment controller; recorders given to an [Applier] should use it so
// that events read the same whichever controller wrote them.
const Component = "deployment-controller"

// ErrAdoptionRefused is matched (with [errors.Is]) by the failure of an
// adoption whose precondition did not hold: the Deployment read fresh from
// the server has another UID or is being deleted.
var ErrAdoptionRefused = errors.New("adoption refused")

// ErrStalePlan stops a plan whose create met the Deployment's own new
// ReplicaSet already on the server: the cache the plan was made from missed
// it, so the rest of the plan is not what upstream would do. Requeue; the
// next sync, with a fresh cache, carries on with that ReplicaSet.
var ErrStalePlan = errors.New("plan made from a stale cache")

// Applier performs plans with a clientset. The zero value is not usable: set
// both fields.
type Applier struct {
	// Client writes the ReplicaSets and the Deployment, and reads the
	// Deployment fresh before an adoption.
	Client kubernetes.Interface
	// Recorder records the plan's events on the Deployment.
	Recorder record.EventRecorder
	// Cached, if set, reads a ReplicaSet from the cache the plans are made
	// from (an informer's lister, a manager's cache). A create refused with
	// AlreadyExists is then answered as upstream answers it from its
	// lister: the ReplicaSet as that cache holds it at that moment decides
	// between the Deployment's own ReplicaSet and a hash collision, and a
	// cache that does not hold it yet fails the create with its NotFound
	// and decides nothing (the caller requeues; the next sync sees the
	// ReplicaSet in its state). Unset, the ReplicaSet is read from the
	// server instead, which can decide otherwise than upstream would with
	// the same cache: a collision a sync before upstream sees it, or one
	// where upstream's cache still shows the ReplicaSet as the
	// Deployment's own (a release the cache has not delivered yet).
	Cached func(ctx context.Context, namespace, name string) (*appsv1.ReplicaSet, error)
	// Written, if set, is called with every Deployment the applier wrote,
	// as the server answered, so a controller can wait for its cache to
	// hold that write before it syncs the Deployment again.
	Written func(d *appsv1.Deployment)
}

// ActionError is the failure of one action of a plan. It unwraps to the
// client's error, so apierrors.IsConflict and friends see through it.
type ActionError struct {
	// Index is the action's position in the plan.
	Index int
	// Action is the action that failed.
	Action action.Action
	// Err is the client's error.
	Err error
}

// Error names the failed action by index and the API error.
func (e *ActionError) Error() string {
	return fmt.Sprintf("plan action %d (%s): %v", e.Index, describe(e.Action), e.Err)
}

// Unwrap returns the API error.
func (e *ActionError) Unwrap() error { return e.Err }

// Apply performs the plan made for d, action by action, in order:
//
//  1. CreateReplicaSet creates; a name already taken is answered by
//     [deploysync.ResolveAlreadyExists] with the existing ReplicaSet as
//     [Applier.Cached] holds it (read from the server if Cached is unset;
//     a cache that does not hold it fails the create): the Deployment's
//     own ReplicaSet with its template stops the plan with [ErrStalePlan]
//     (requeue); anything else is a hash collision: status.collisionCount
//     is raised and Apply returns a [*deploysync.HashCollisionError].
//  2. UpdateReplicaSet, UpdateDeployment and UpdateDeploymentStatus send
//     the plan's object with Update (UpdateStatus for the status).
//  3. DeleteReplicaSet deletes with the ReplicaSet's UID as precondition; a
//     ReplicaSet already gone is not a failure.
//  4. AdoptReplicaSet first reads the Deployment from the server (once per
//     plan) and refuses with [ErrAdoptionRefused] unless its UID is the
//     owner's and it is not being deleted; then it sends the plan's
//     strategic merge patch. A ReplicaSet already gone is not a failure.
//  5. ReleaseReplicaSet sends the plan's strategic merge patch; NotFound and
//     Invalid answers are not failures (the ReplicaSet is gone or no longer
//     ours), as upstream.
//  6. Event records the event on d.
//
// A write of an object that this plan already wrote is sent with the
// resourceVersion of the first write's answer. Apply stops at the first
// failure and returns it as an [*ActionError]; after the last action it
// returns the plan's Err (nil for an ordinary sync). Every error calls for
// a rate-limited retry.
func (a *Applier) Apply(ctx context.Context, d *appsv1.Deployment, p deploysync.Plan) error {
	r := &run{Applier: a, d: d, versions: map[objectKey]string{}}
	for i, act := range p.Actions {
		if err := r.do(ctx, act); err != nil {
			var collision *deploysync.HashCollisionError
			if errors.As(err, &collision) {
				return err
			}
			return &ActionError{Index: i, Action: act, Err: err}
		}
	}
	return p.Err
}

// objectKey names an object a plan writes.
type objectKey struct {
	kind, namespace, name string
}

// run is one application of one plan.
type run struct {
	*Applier
	d *appsv1.Deployment
	// versions holds the resourceVersion of every object this run wrote,
	// as the server returned it.
	versions map[objectKey]string
	// lastD is the Deployment as this run last wrote it (nil before).
	lastD *appsv1.Deployment
	// adoptionChecked is set once the adoption precondition held.
	adoptionChecked bool
}

func (r *run) do(ctx context.Context, act action.Action) error {
	switch a := act.(type) {
	case *action.CreateReplicaSet:
		return r.create(ctx, a.ReplicaSet)
	case *action.UpdateReplicaSet:
		rs := a.ReplicaSet.DeepCopy()
		r.carry("ReplicaSet", &rs.ObjectMeta)
		out, err := r.Client.AppsV1().ReplicaSets(rs.Namespace).Update(ctx, rs, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		r.remember("ReplicaSet", &out.ObjectMeta)
	case *action.DeleteReplicaSet:
		opts := metav1.DeleteOptions{}
		if a.UID != "" {
			uid := a.UID
			opts.Preconditions = &metav1.Preconditions{UID: &uid}
		}
		err := r.Client.AppsV1().ReplicaSets(a.Namespace).Delete(ctx, a.Name, opts)
		if err != nil && !apierrors.IsNotFound(err) {
			return err
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
		r.carry("Deployment", &d.ObjectMeta)
		out, err := r.Client.AppsV1().Deployments(d.Namespace).Update(ctx, d, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		r.rememberDeployment(out)
	case *action.UpdateDeploymentStatus:
		d := a.Deployment.DeepCopy()
		r.carry("Deployment", &d.ObjectMeta)
		out, err := r.Client.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		r.rememberDeployment(out)
	case *action.Event:
		r.Recorder.Event(r.d, a.Type, a.Reason, a.Message)
	default:
		return fmt.Errorf("unknown action type %T", act)
	}
	return nil
}

func (r *run) create(ctx context.Context, rs *appsv1.ReplicaSet) error {
	client := r.Client.AppsV1().ReplicaSets(rs.Namespace)
	out, err := client.Create(ctx, rs, metav1.CreateOptions{})
	if err == nil {
		r.remember("ReplicaSet", &out.ObjectMeta)
		return nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	// The cache the plan was made from did not have this ReplicaSet yet.
	// Read it where upstream reads it, the cache (it may have arrived since
	// the plan was made), and decide.
	var existing *appsv1.ReplicaSet
	var gerr error
	if r.Cached != nil {
		existing, gerr = r.Cached(ctx, rs.Namespace, rs.Name)
	} else {
		existing, gerr = client.Get(ctx, rs.Name, metav1.GetOptions{})
	}
	if gerr != nil {
		return fmt.Errorf("%w (reading the existing replicaset: %v)", err, gerr)
	}
	base := r.d
	if r.lastD != nil {
		base = r.lastD
	}
	answer, aerr := deploysync.ResolveAlreadyExists(base, existing)
	if aerr != nil {
		return aerr
	}
	if answer.Err == nil {
		// Ours already: the rest of the plan was made from a cache that
		// missed it and announces a creation upstream would not announce.
		r.remember("ReplicaSet", &existing.ObjectMeta)
		return fmt.Errorf("%w: replicaset %s exists and is this Deployment's new ReplicaSet", ErrStalePlan, rs.Name)
	}
	for _, a := range answer.Actions {
		st := a.(*action.UpdateDeploymentStatus).Deployment
		r.carry("Deployment", &st.ObjectMeta)
		out2, uerr := r.Client.AppsV1().Deployments(st.Namespace).UpdateStatus(ctx, st, metav1.UpdateOptions{})
		if uerr != nil {
			return fmt.Errorf("%w (raising collisionCount: %v)", err, uerr)
		}
		r.rememberDeployment(out2)
	}
	return answer.Err
}

// checkAdoption is upstream's adoption precondition, checked once per plan
// against the server, not a cache: the Deployment must still be the owner
// the plan names and must not be being deleted.
func (r *run) checkAdoption(ctx context.Context, owner types.UID) error {
	if r.adoptionChecked {
		return nil
	}
	fresh, err := r.Client.AppsV1().Deployments(r.d.Namespace).Get(ctx, r.d.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("%w: reading deployment %s/%s: %v", ErrAdoptionRefused, r.d.Namespace, r.d.Name, err)
	}
	if fresh.UID != owner {
		return fmt.Errorf("%w: deployment %s/%s is gone: got uid %s, wanted %s", ErrAdoptionRefused, r.d.Namespace, r.d.Name, fresh.UID, owner)
	}
	if fresh.DeletionTimestamp != nil {
		return fmt.Errorf("%w: deployment %s/%s is being deleted", ErrAdoptionRefused, r.d.Namespace, r.d.Name)
	}
	r.adoptionChecked = true
	return nil
}

func (r *run) patch(ctx context.Context, ns, name string, patch []byte, ignore func(error) bool) error {
	out, err := r.Client.AppsV1().ReplicaSets(ns).Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		if ignore(err) {
			return nil
		}
		return err
	}
	r.remember("ReplicaSet", &out.ObjectMeta)
	return nil
}

// carry sets the resourceVersion this run last got for the object, if it
// wrote it before.
func (r *run) carry(kind string, m *metav1.ObjectMeta) {
	if v, ok := r.versions[objectKey{kind, m.Namespace, m.Name}]; ok {
		m.ResourceVersion = v
	}
}

func (r *run) remember(kind string, m *metav1.ObjectMeta) {
	r.versions[objectKey{kind, m.Namespace, m.Name}] = m.ResourceVersion
}

func (r *run) rememberDeployment(d *appsv1.Deployment) {
	r.remember("Deployment", &d.ObjectMeta)
	r.lastD = d
	if r.Written != nil {
		r.Written(d)
	}
}

// describe names an action shortly, without its reason.
func describe(act action.Action) string {
	switch a := act.(type) {
	case *action.CreateReplicaSet:
		return "create replicaset " + a.ReplicaSet.Name
	case *action.UpdateReplicaSet:
		return "update replicaset " + a.ReplicaSet.Name
	case *action.DeleteReplicaSet:
		return "delete replicaset " + a.Name
	case *action.AdoptReplicaSet:
		return "adopt replicaset " + a.Name
	case *action.ReleaseReplicaSet:
		return "release replicaset " + a.Name
	case *action.UpdateDeployment:
		return "update deployment " + a.Deployment.Name
	case *action.UpdateDeploymentStatus:
		return "update deployment status " + a.Deployment.Name
	case *action.Event:
		return "event " + a.Reason
	default:
		return fmt.Sprintf("%T", act)
	}
}
