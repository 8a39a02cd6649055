package deployutil

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// ControllerRef returns the controller owner reference a Deployment puts on
// its ReplicaSets, so a user can build ReplicaSets a Deployment owns (in
// tests, or to recognise them) exactly as the controller writes them.
func ControllerRef(d *appsv1.Deployment) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion:         "apps/v1",
		Kind:               "Deployment",
		Name:               d.Name,
		UID:                d.UID,
		Controller:         ptr.To(true),
		BlockOwnerDeletion: ptr.To(true),
	}
}

// Revision reads an object's revision annotation: a missing annotation is
// revision 0; otherwise it must parse as an int64. A user needs it to read
// which revision a ReplicaSet or a Deployment is at (kubectl rollout status
// and history take a revision).
func Revision(obj metav1.Object) (int64, error) {
	v, ok := obj.GetAnnotations()[RevisionAnnotation]
	if !ok {
		return 0, nil
	}
	return strconv.ParseInt(v, 10, 64)
}

// GetCondition returns a copy of the status's condition of type t, or nil:
// how a user reads a Deployment's Progressing or Available condition (and
// its reason, see the action package's Reason constants).
func GetCondition(status appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range status.Conditions {
		if status.Conditions[i].Type == t {
			c := status.Conditions[i]
			return &c
		}
	}
	return nil
}

// olderFirst orders by creation timestamp, then by name.
func olderFirst(a, b *appsv1.ReplicaSet) bool {
	if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.Name < b.Name
	}
	return a.CreationTimestamp.Before(&b.CreationTimestamp)
}
