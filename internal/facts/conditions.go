package facts

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync/deployutil"
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
	cur := deployutil.GetCondition(*status, c.Type)
	if cur != nil && cur.Status == c.Status && cur.Reason == c.Reason {
		return
	}
	if cur != nil && cur.Status == c.Status {
		c.LastTransitionTime = cur.LastTransitionTime
	}
	status.Conditions = append(withoutCondition(status.Conditions, c.Type), c)
}

// RemoveCondition removes the condition of type t; an empty result is nil,
// as upstream.
func RemoveCondition(status *appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) {
	status.Conditions = withoutCondition(status.Conditions, t)
}

func withoutCondition(cs []appsv1.DeploymentCondition, t appsv1.DeploymentConditionType) []appsv1.DeploymentCondition {
	var out []appsv1.DeploymentCondition
	for _, c := range cs {
		if c.Type != t {
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
