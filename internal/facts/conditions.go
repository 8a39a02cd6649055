package facts

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NewCondition returns a Deployment condition stamped with now as both its
// update and transition time.
func NewCondition(t appsv1.DeploymentConditionType, status corev1.ConditionStatus, reason, message string, now time.Time) appsv1.DeploymentCondition {
	return appsv1.DeploymentCondition{
		Type:               t,
		Status:             status,
		LastUpdateTime:     metav1.NewTime(now),
		LastTransitionTime: metav1.NewTime(now),
		Reason:             reason,
		Message:            message,
	}
}

// SetCondition puts c into status by these rules, in order:
//
//  1. If a condition of the same type has the same status and reason,
//     nothing changes — not the message, not the times.
//  2. If it has the same status only, c keeps its LastTransitionTime.
//  3. The old condition is removed and c is appended, so a changed condition
//     moves to the end of the list.
//
// The conditions slice is replaced, never modified in place, so a status
// copied by value stays independent.
func SetCondition(status *appsv1.DeploymentStatus, c appsv1.DeploymentCondition) {
	cur := Condition(status, c.Type)
	if cur != nil && cur.Status == c.Status && cur.Reason == c.Reason {
		return
	}
	if cur != nil && cur.Status == c.Status {
		c.LastTransitionTime = cur.LastTransitionTime
	}
	status.Conditions = append(withoutCondition(status.Conditions, c.Type, 1), c)
}

// Condition returns the condition of type t in status, or nil: a pointer
// into status.Conditions, which the caller must not modify (unlike
// deployutil.GetCondition, it does not copy).
func Condition(status *appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range status.Conditions {
		if status.Conditions[i].Type == t {
			return &status.Conditions[i]
		}
	}
	return nil
}

// RemoveCondition removes the condition of type t; an empty result is nil,
// as upstream.
func RemoveCondition(status *appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) {
	if len(status.Conditions) == 0 {
		status.Conditions = nil
		return
	}
	if Condition(status, t) == nil {
		return // nothing to remove: the same conditions, not modified
	}
	status.Conditions = withoutCondition(status.Conditions, t, 0)
}

// withoutCondition returns a new slice of the conditions in cs not of type
// t, with room for extra more, or nil if there are none.
func withoutCondition(cs []appsv1.DeploymentCondition, t appsv1.DeploymentConditionType, extra int) []appsv1.DeploymentCondition {
	n := 0
	for i := range cs {
		if cs[i].Type != t {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]appsv1.DeploymentCondition, 0, n+extra)
	for i := range cs {
		if cs[i].Type != t {
			out = append(out, cs[i])
		}
	}
	return out
}

// ReplicaFailure returns the ReplicaFailure condition among a
// ReplicaSet's conditions, nil if there is none.
func ReplicaFailure(cs []appsv1.ReplicaSetCondition) *appsv1.ReplicaSetCondition {
	for i := range cs {
		if cs[i].Type == appsv1.ReplicaSetReplicaFailure {
			return &cs[i]
		}
	}
	return nil
}

// WithoutReplicaFailure returns a ReplicaSet's conditions other than
// ReplicaFailure in a new slice, nil when there are none (as upstream's
// filterOutCondition).
func WithoutReplicaFailure(cs []appsv1.ReplicaSetCondition) []appsv1.ReplicaSetCondition {
	var out []appsv1.ReplicaSetCondition
	for _, c := range cs {
		if c.Type != appsv1.ReplicaSetReplicaFailure {
			out = append(out, c)
		}
	}
	return out
}

// ReplicaSetCondition converts a ReplicaSet condition into a Deployment
// condition; its transition time is also its update time.
func ReplicaSetCondition(c appsv1.ReplicaSetCondition) appsv1.DeploymentCondition {
	return appsv1.DeploymentCondition{
		Type:               appsv1.DeploymentConditionType(c.Type),
		Status:             c.Status,
		LastTransitionTime: c.LastTransitionTime,
		LastUpdateTime:     c.LastTransitionTime,
		Reason:             c.Reason,
		Message:            c.Message,
	}
}
