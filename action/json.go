package action

import (
	"encoding/json"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// jsonAction is the JSON form of every action (see the package doc).
type jsonAction struct {
	Kind       string             `json:"kind"`
	ReplicaSet *appsv1.ReplicaSet `json:"replicaSet,omitempty"`
	Deployment *appsv1.Deployment `json:"deployment,omitempty"`
	Namespace  string             `json:"namespace,omitempty"`
	Name       string             `json:"name,omitempty"`
	UID        types.UID          `json:"uid,omitempty"`
	OwnerUID   types.UID          `json:"ownerUID,omitempty"`
	Patch      json.RawMessage    `json:"patch,omitempty"`
	Type       string             `json:"type,omitempty"`
	Reason     string             `json:"reason,omitempty"`
	Message    string             `json:"message,omitempty"`
	Why        Reasons            `json:"why"`
	Text       string             `json:"text"`
}

func withRSKind(rs *appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if rs == nil {
		return nil
	}
	c := *rs
	c.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"}
	return &c
}

func withDKind(d *appsv1.Deployment) *appsv1.Deployment {
	if d == nil {
		return nil
	}
	c := *d
	c.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}
	return &c
}

// MarshalJSON writes the action's JSON form (see the package documentation).
func (a *CreateReplicaSet) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonAction{Kind: "CreateReplicaSet", ReplicaSet: withRSKind(a.ReplicaSet), Why: a.Why, Text: a.String()})
}

// MarshalJSON writes the action's JSON form (see the package documentation).
func (a *UpdateReplicaSet) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonAction{Kind: "UpdateReplicaSet", ReplicaSet: withRSKind(a.ReplicaSet), Why: a.Why, Text: a.String()})
}

// MarshalJSON writes the action's JSON form (see the package documentation).
func (a *DeleteReplicaSet) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonAction{Kind: "DeleteReplicaSet", Namespace: a.Namespace, Name: a.Name, UID: a.UID, Why: a.Why, Text: a.String()})
}

// MarshalJSON writes the action's JSON form (see the package documentation).
func (a *AdoptReplicaSet) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonAction{Kind: "AdoptReplicaSet", Namespace: a.Namespace, Name: a.Name, UID: a.UID, OwnerUID: a.OwnerUID,
		Patch: a.Patch, Why: a.Why, Text: a.String()})
}

// MarshalJSON writes the action's JSON form (see the package documentation).
func (a *ReleaseReplicaSet) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonAction{Kind: "ReleaseReplicaSet", Namespace: a.Namespace, Name: a.Name, UID: a.UID, OwnerUID: a.OwnerUID,
		Patch: a.Patch, Why: a.Why, Text: a.String()})
}

// MarshalJSON writes the action's JSON form (see the package documentation).
func (a *UpdateDeployment) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonAction{Kind: "UpdateDeployment", Deployment: withDKind(a.Deployment), Why: a.Why, Text: a.String()})
}

// MarshalJSON writes the action's JSON form (see the package documentation).
func (a *UpdateDeploymentStatus) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonAction{Kind: "UpdateDeploymentStatus", Deployment: withDKind(a.Deployment), Why: a.Why, Text: a.String()})
}

// MarshalJSON writes the action's JSON form (see the package documentation):
// "type", "reason" and "message" are upstream's event fields.
func (a *Event) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonAction{Kind: "Event", Type: a.Type, Reason: a.Reason, Message: a.Message, Why: a.Why, Text: a.String()})
}
