package deploysync_test

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
)

// The fixtures of this file build the objects of upstream's controller
// tests (k8s.io/kubernetes/pkg/controller/deployment at v1.37.2) that only
// this package's tests use, as valid input for Sync; the shared ones
// (newDeployment, newReplicaSet, testTime) are in internal/testing/testutil. Their
// names start with fx so they do not collide with other test files of the
// package.

// fxPodOf is upstream's generatePodFromRS: a pod controlled by rs.
func fxPodOf(rs *appsv1.ReplicaSet, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: rs.Name + "-pod", Namespace: rs.Namespace, Labels: rs.Spec.Selector.MatchLabels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: ptr.To(true)}}},
		Spec:   rs.Spec.Template.Spec,
		Status: corev1.PodStatus{Phase: phase},
	}
}

// fxRS describes a ReplicaSet of fxProgressDeployment: new ones have its
// template, old ones another image.
type fxRS struct {
	name                    string
	spec, status, available int32
}

// fxProgressDeployment is upstream's currentDeployment(pds, replicas,
// statusReplicas, updated, available, conditions): a Recreate Deployment
// "progress-test" at generation 0 whose status says so; ready replicas
// equal available ones (a status with fewer ready than available is
// invalid). Its revision is 1.
func fxProgressDeployment(pds *int32, replicas, statusReplicas, updated, available int32, conds ...appsv1.DeploymentCondition) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "progress-test", Namespace: metav1.NamespaceDefault, UID: "progress-uid",
			Annotations: map[string]string{deployutil.RevisionAnnotation: "1"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "progress"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "progress"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "progress:2"}}},
			},
			Strategy:                appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
			ProgressDeadlineSeconds: pds,
		},
		Status: appsv1.DeploymentStatus{Replicas: statusReplicas, UpdatedReplicas: updated, ReadyReplicas: available, AvailableReplicas: available,
			Conditions: conds},
	}
}

// fxProgressReplicaSet builds a ReplicaSet of d from a description: the new
// one (revision 1, d's template) or an old one (revision 0, image
// progress:1). Its desired-replicas says d's spec.replicas, so no scaling
// event is seen.
func fxProgressReplicaSet(d *appsv1.Deployment, r fxRS, isNew bool) *appsv1.ReplicaSet {
	tpl := *d.Spec.Template.DeepCopy()
	hash := "new"
	if !isNew {
		tpl.Spec.Containers[0].Image = "progress:1"
		hash = "old"
	}
	tpl.Labels = map[string]string{"app": "progress", deployutil.PodTemplateHashLabel: hash}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: r.name, Namespace: d.Namespace, UID: types.UID(r.name + "-uid"), Labels: tpl.Labels,
			Annotations:     map[string]string{deployutil.DesiredReplicasAnnotation: fmt.Sprint(*d.Spec.Replicas)},
			OwnerReferences: []metav1.OwnerReference{deployutil.ControllerRef(d)}},
		Spec:   appsv1.ReplicaSetSpec{Replicas: ptr.To(r.spec), Selector: &metav1.LabelSelector{MatchLabels: tpl.Labels}, Template: tpl},
		Status: appsv1.ReplicaSetStatus{Replicas: r.status, ReadyReplicas: r.available, AvailableReplicas: r.available},
	}
	if isNew {
		rs.Annotations[deployutil.RevisionAnnotation] = "1"
	}
	return rs
}

// fxProgressing is a Progressing condition last updated and transitioned
// at the given time.
func fxProgressing(status corev1.ConditionStatus, reason string, at time.Time) appsv1.DeploymentCondition {
	return appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: status, Reason: reason,
		LastUpdateTime: metav1.NewTime(at), LastTransitionTime: metav1.NewTime(at)}
}

// fxSummary renders a plan's actions one per line: the verb, the object
// and, for ReplicaSets, the size; events with their type, reason and
// message.
func fxSummary(actions []action.Action) []string {
	var out []string
	for _, a := range actions {
		switch a := a.(type) {
		case *action.CreateReplicaSet:
			out = append(out, fmt.Sprintf("create replicaset %s %d", a.ReplicaSet.Name, *a.ReplicaSet.Spec.Replicas))
		case *action.UpdateReplicaSet:
			out = append(out, fmt.Sprintf("update replicaset %s %d", a.ReplicaSet.Name, *a.ReplicaSet.Spec.Replicas))
		case *action.DeleteReplicaSet:
			out = append(out, "delete replicaset "+a.Name)
		case *action.AdoptReplicaSet:
			out = append(out, "adopt replicaset "+a.Name)
		case *action.ReleaseReplicaSet:
			out = append(out, "release replicaset "+a.Name)
		case *action.UpdateDeployment:
			out = append(out, "update deployment "+a.Deployment.Name)
		case *action.UpdateDeploymentStatus:
			out = append(out, "update deployment status "+a.Deployment.Name)
		case *action.Event:
			out = append(out, strings.Join([]string{"event", a.Type, a.Reason, a.Message}, " "))
		}
	}
	return out
}
