package deploysync

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/internal/facts"
)

// ApplyError says which action of a plan could not be applied to a state,
// and why: the plan was made for another state.
type ApplyError struct {
	// Index is the position of the action in the plan.
	Index  int
	Action action.Action
	Reason string
}

// Error names the action by index and line, and why it could not be applied.
func (e *ApplyError) Error() string {
	return fmt.Sprintf("action %d (%s): %s", e.Index, e.Action.String(), e.Reason)
}

// Apply performs a plan's actions on a state in memory, in order, as an
// apiserver would store them:
//
//   - a ReplicaSet update takes the sent metadata and spec and keeps the
//     stored status;
//   - a Deployment update keeps the stored status; a status update keeps the
//     stored spec and labels;
//   - adopt and release patches add or remove the Deployment's owner
//     reference (after checking the adoption's precondition);
//   - creates append, deletes remove;
//   - a Deployment patch (kubectl rollout undo) is applied as a server
//     applies a JSON patch;
//   - events change nothing.
//
// It models nothing else an apiserver does (no generation bump, no UIDs or
// timestamps for created objects, no garbage collection); a simulator adds
// those. Pods and Now are carried over.
//
// The state is not modified. What an action's object carries is copied, so
// the plan and the result stay independent; what no action changed is
// shared with the state: the ReplicaSets no action touched, and in a written
// object the parts the write leaves as stored (a ReplicaSet's status; a
// Deployment's status on an update, its spec and labels on a status write;
// everything but the owner references on an adoption or release). Treat
// states as read-only, as objects from an informer's cache: copy what you
// edit.
func Apply(s State, p Plan) (State, error) {
	out := State{Deployment: s.Deployment, ReplicaSets: append([]*appsv1.ReplicaSet(nil), s.ReplicaSets...), Pods: s.Pods, Now: s.Now}
	// Deleted entries become nil until the end, so positions stay valid.
	var index map[string]int
	find := func(name string) int {
		if index == nil && len(out.ReplicaSets) <= linearLookup {
			// The last of a name, as the map below would find it.
			for i := len(out.ReplicaSets) - 1; i >= 0; i-- {
				if rs := out.ReplicaSets[i]; rs != nil && rs.Name == name {
					return i
				}
			}
			return -1
		}
		if index == nil {
			index = make(map[string]int, len(out.ReplicaSets))
			for i, rs := range out.ReplicaSets {
				if rs != nil { // a state that is no snapshot; nothing to find there
					index[rs.Name] = i
				}
			}
		}
		if i, ok := index[name]; ok {
			return i
		}
		return -1
	}
	for i, a := range p.Actions {
		fail := func(format string, args ...any) error {
			return &ApplyError{Index: i, Action: a, Reason: fmt.Sprintf(format, args...)}
		}
		switch a := a.(type) {
		case *action.CreateReplicaSet:
			if find(a.ReplicaSet.Name) >= 0 {
				return State{}, fail("replicaset %q already exists", a.ReplicaSet.Name)
			}
			out.ReplicaSets = append(out.ReplicaSets, a.ReplicaSet.DeepCopy())
			if index != nil {
				index[a.ReplicaSet.Name] = len(out.ReplicaSets) - 1
			}
		case *action.UpdateReplicaSet:
			j := find(a.ReplicaSet.Name)
			if j < 0 {
				return State{}, fail("replicaset %q not found", a.ReplicaSet.Name)
			}
			// The sent parts are copied, the stored status is kept.
			rs := &appsv1.ReplicaSet{TypeMeta: a.ReplicaSet.TypeMeta, Status: out.ReplicaSets[j].Status}
			a.ReplicaSet.ObjectMeta.DeepCopyInto(&rs.ObjectMeta)
			a.ReplicaSet.Spec.DeepCopyInto(&rs.Spec)
			out.ReplicaSets[j] = rs
		case *action.DeleteReplicaSet:
			j := find(a.Name)
			if j < 0 {
				return State{}, fail("replicaset %q not found", a.Name)
			}
			out.ReplicaSets[j] = nil
			delete(index, a.Name) // (a no-op while there is no index)
		case *action.AdoptReplicaSet, *action.ReleaseReplicaSet:
			name, adopt := ownershipTarget(a)
			j := find(name)
			if j < 0 {
				return State{}, fail("replicaset %q not found", name)
			}
			d := out.Deployment
			if adopt && (d.DeletionTimestamp != nil || d.UID != a.(*action.AdoptReplicaSet).OwnerUID) {
				return State{}, fail("the Deployment is being deleted or has another UID; adoption refused")
			}
			c := *out.ReplicaSets[j] // the references are replaced, not edited
			rs := &c
			if adopt {
				rs.OwnerReferences = facts.WithControllerRef(rs.OwnerReferences, d)
			} else {
				rs.OwnerReferences = facts.WithoutOwner(rs.OwnerReferences, a.(*action.ReleaseReplicaSet).OwnerUID)
			}
			out.ReplicaSets[j] = rs
		case *action.UpdateDeployment:
			d := &appsv1.Deployment{TypeMeta: a.Deployment.TypeMeta, Status: out.Deployment.Status}
			a.Deployment.ObjectMeta.DeepCopyInto(&d.ObjectMeta)
			a.Deployment.Spec.DeepCopyInto(&d.Spec)
			out.Deployment = d
		case *action.UpdateDeploymentStatus:
			d := &appsv1.Deployment{TypeMeta: a.Deployment.TypeMeta, Spec: out.Deployment.Spec}
			meta := a.Deployment.ObjectMeta
			meta.Labels = nil // the stored labels stay
			meta.DeepCopyInto(&d.ObjectMeta)
			d.Labels = out.Deployment.Labels
			a.Deployment.Status.DeepCopyInto(&d.Status)
			out.Deployment = d
		case *action.Event:
		default:
			return State{}, fail("unknown action type %T", a)
		}
	}
	kept := out.ReplicaSets[:0]
	for _, rs := range out.ReplicaSets {
		if rs != nil {
			kept = append(kept, rs)
		}
	}
	out.ReplicaSets = kept
	return out, nil
}

func ownershipTarget(a action.Action) (name string, adopt bool) {
	if x, ok := a.(*action.AdoptReplicaSet); ok {
		return x.Name, true
	}
	return a.(*action.ReleaseReplicaSet).Name, false
}
