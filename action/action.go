package action

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Action is one intended write or event of a plan.
type Action interface {
	// Explain returns why the action follows from the state, in words a
	// person reading a plan understands.
	Explain() string
	// String renders the action on one line, its explanation included.
	String() string
	// Reasons returns the reasons the action carries (its Why field), for
	// tools that read the rules and values rather than the sentence.
	Reasons() Reasons

	isAction()
}

// CreateReplicaSet creates a ReplicaSet. It is the Deployment's new
// ReplicaSet: its name carries the pod-template-hash.
type CreateReplicaSet struct {
	ReplicaSet *appsv1.ReplicaSet
	Why        Reasons
}

// UpdateReplicaSet replaces a ReplicaSet's metadata and spec (its size, the
// replica annotations, the revision annotations, minReadySeconds) with those
// of ReplicaSet. The status sent is the status read; servers ignore it.
type UpdateReplicaSet struct {
	ReplicaSet *appsv1.ReplicaSet
	Why        Reasons
}

// DeleteReplicaSet deletes an old ReplicaSet past the revision history limit.
type DeleteReplicaSet struct {
	Namespace string
	Name      string
	UID       types.UID
	Why       Reasons
}

// AdoptReplicaSet makes the Deployment the controller of an orphaned
// ReplicaSet whose labels match its selector. Patch is the strategic merge
// patch upstream sends, byte for byte.
//
// Before sending it, an applier must read the Deployment fresh from the
// server (not from a cache) and check that its UID is still OwnerUID and that
// it is not being deleted; otherwise the adoption must not happen.
type AdoptReplicaSet struct {
	Namespace string
	Name      string
	UID       types.UID
	OwnerUID  types.UID
	Patch     []byte
	Why       Reasons
}

// ReleaseReplicaSet removes the Deployment's controller reference from a
// ReplicaSet it owns whose labels no longer match its selector. Patch is the
// strategic merge patch upstream sends, byte for byte. A NotFound or Invalid
// answer to it is not a failure.
type ReleaseReplicaSet struct {
	Namespace string
	Name      string
	UID       types.UID
	OwnerUID  types.UID
	Patch     []byte
	Why       Reasons
}

// UpdateDeployment replaces the Deployment's metadata and spec (a rollback
// through the deprecated annotation). Servers ignore the status sent.
type UpdateDeployment struct {
	Deployment *appsv1.Deployment
	Why        Reasons
}

// UpdateDeploymentStatus writes the Deployment's status subresource: the
// status, and the metadata the status endpoint accepts (the revision
// annotation travels this way). Servers ignore its spec and labels.
type UpdateDeploymentStatus struct {
	Deployment *appsv1.Deployment
	Why        Reasons
}

// Event is an event recorded on the Deployment by the component
// "deployment-controller". Type, Reason and Message are those upstream emits.
type Event struct {
	Type    string // "Normal" or "Warning"
	Reason  string
	Message string
	Why     Reasons
}

// Explain returns the action's reasons as one sentence (Why.String()).
func (a *CreateReplicaSet) Explain() string { return a.Why.String() }

// Explain returns the action's reason.
func (a *UpdateReplicaSet) Explain() string { return a.Why.String() }

// Explain returns the action's reason.
func (a *DeleteReplicaSet) Explain() string { return a.Why.String() }

// Explain returns the action's reason.
func (a *AdoptReplicaSet) Explain() string { return a.Why.String() }

// Explain returns the action's reason.
func (a *ReleaseReplicaSet) Explain() string { return a.Why.String() }

// Explain returns the action's reason.
func (a *UpdateDeployment) Explain() string { return a.Why.String() }

// Explain returns the action's reason.
func (a *UpdateDeploymentStatus) Explain() string { return a.Why.String() }

// Explain returns the action's reason.
func (a *Event) Explain() string { return a.Why.String() }

// Reasons returns the action's Why.
func (a *CreateReplicaSet) Reasons() Reasons { return a.Why }

// Reasons returns the action's Why.
func (a *UpdateReplicaSet) Reasons() Reasons { return a.Why }

// Reasons returns the action's Why.
func (a *DeleteReplicaSet) Reasons() Reasons { return a.Why }

// Reasons returns the action's Why.
func (a *AdoptReplicaSet) Reasons() Reasons { return a.Why }

// Reasons returns the action's Why.
func (a *ReleaseReplicaSet) Reasons() Reasons { return a.Why }

// Reasons returns the action's Why.
func (a *UpdateDeployment) Reasons() Reasons { return a.Why }

// Reasons returns the action's Why.
func (a *UpdateDeploymentStatus) Reasons() Reasons { return a.Why }

// Reasons returns the action's Why.
func (a *Event) Reasons() Reasons { return a.Why }

func (*CreateReplicaSet) isAction()       {}
func (*UpdateReplicaSet) isAction()       {}
func (*DeleteReplicaSet) isAction()       {}
func (*AdoptReplicaSet) isAction()        {}
func (*ReleaseReplicaSet) isAction()      {}
func (*UpdateDeployment) isAction()       {}
func (*UpdateDeploymentStatus) isAction() {}
func (*Event) isAction()                  {}

// String is one line: the action, its object, its numbers and its reason.
func (a *CreateReplicaSet) String() string {
	return line("create replicaset", a.ReplicaSet.Name, fmt.Sprintf("replicas=%d", replicas(a.ReplicaSet)), a.Why.String())
}

// String is one line: the action, its object, its numbers and its reason.
func (a *UpdateReplicaSet) String() string {
	return line("update replicaset", a.ReplicaSet.Name, fmt.Sprintf("replicas=%d", replicas(a.ReplicaSet)), a.Why.String())
}

// String is one line: the action, its object, its numbers and its reason.
func (a *DeleteReplicaSet) String() string {
	return line("delete replicaset", a.Name, "", a.Why.String())
}

// String is one line: the action, its object, its numbers and its reason.
func (a *AdoptReplicaSet) String() string {
	return line("adopt replicaset", a.Name, "", a.Why.String())
}

// String is one line: the action, its object, its numbers and its reason.
func (a *ReleaseReplicaSet) String() string {
	return line("release replicaset", a.Name, "", a.Why.String())
}

// String is one line: the action, its object, its numbers and its reason.
func (a *UpdateDeployment) String() string {
	return line("update deployment", a.Deployment.Name, "", a.Why.String())
}

// String is one line: the action, its object, its numbers and its reason.
func (a *UpdateDeploymentStatus) String() string {
	s := a.Deployment.Status
	return line("update deployment status", a.Deployment.Name,
		fmt.Sprintf("replicas=%d updated=%d ready=%d available=%d unavailable=%d",
			s.Replicas, s.UpdatedReplicas, s.ReadyReplicas, s.AvailableReplicas, s.UnavailableReplicas), a.Why.String())
}

// String is one line: the action, its object, its numbers and its reason.
func (a *Event) String() string {
	return line("event", a.Type+" "+a.Reason, fmt.Sprintf("%q", a.Message), a.Why.String())
}

func line(verb, name, detail, why string) string {
	var b strings.Builder
	b.WriteString(verb)
	b.WriteByte(' ')
	b.WriteString(name)
	if detail != "" {
		b.WriteByte(' ')
		b.WriteString(detail)
	}
	if why != "" {
		b.WriteString(": ")
		b.WriteString(why)
	}
	return b.String()
}

func replicas(rs *appsv1.ReplicaSet) int32 {
	if rs.Spec.Replicas == nil {
		return 0
	}
	return *rs.Spec.Replicas
}
