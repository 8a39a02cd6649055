package limits

import (
	"context"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/execute"
)

// Client is an execute.Client for the plans of a [View]: it puts the
// disguise back on every Deployment it writes, and writes the Available
// condition as kube-controller-manager judges it for the disguised
// Deployment ([KCMAvailable]). Everything else goes to the inner client
// as it is.
type Client struct {
	execute.Client
	// Now stamps an Available condition that changes.
	Now func() time.Time
}

// UpdateDeployment writes d in its disguise.
func (c Client) UpdateDeployment(ctx context.Context, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	d = d.DeepCopy()
	wear(d)
	return c.Client.UpdateDeployment(ctx, d)
}

// UpdateDeploymentStatus writes d's status with kube-controller-manager's
// Available condition (the apiserver ignores the spec of a status write;
// the disguise is put on anyway, so that no write of ours carries the
// view).
func (c Client) UpdateDeploymentStatus(ctx context.Context, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	d = d.DeepCopy()
	wear(d)
	var replicas int32
	if d.Spec.Replicas != nil {
		replicas = *d.Spec.Replicas
	}
	KCMAvailable(&d.Status, replicas, metav1.NewTime(c.Now()))
	return c.Client.UpdateDeploymentStatus(ctx, d)
}

// KCMAvailable sets st's Available condition to what
// kube-controller-manager computes for a disguised Deployment of replicas
// replicas: calculateStatus (pkg/controller/deployment/sync.go, v1.37.2)
// judges it against replicas − MaxUnavailable, and MaxUnavailable is 0
// for a Recreate Deployment (util/deployment_util.go), so the condition is
// True only when every replica is available. It changes the condition as
// kube-controller-manager's SetDeploymentCondition does: a condition with
// the same status and reason is left as it is (its times too); another
// replaces it, at the end of the list, keeping lastTransitionTime when
// only the reason changed.
func KCMAvailable(st *appsv1.DeploymentStatus, replicas int32, now metav1.Time) {
	c := appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue,
		Reason: deployutil.ReasonMinimumReplicasAvailable, Message: "Deployment has minimum availability.",
		LastUpdateTime: now, LastTransitionTime: now}
	if st.AvailableReplicas < replicas {
		c.Status, c.Reason, c.Message = corev1.ConditionFalse, deployutil.ReasonMinimumReplicasUnavailable,
			"Deployment does not have minimum availability."
	}
	kept := st.Conditions[:0:0]
	for _, cur := range st.Conditions {
		if cur.Type != appsv1.DeploymentAvailable {
			kept = append(kept, cur)
			continue
		}
		if cur.Status == c.Status && cur.Reason == c.Reason {
			return
		}
		if cur.Status == c.Status {
			c.LastTransitionTime = cur.LastTransitionTime
		}
	}
	st.Conditions = append(kept, c)
}
