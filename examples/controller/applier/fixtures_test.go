package applier

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
)

const ns = "ns"

var (
	t0  = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	now = t0.Add(time.Hour)
)

// deployment is a defaulted Deployment "web" (3 replicas, nginx:1, app=web)
// changed by the given functions.
func deployment(changes ...func(*appsv1.Deployment)) *appsv1.Deployment {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns, UID: "d-uid", Generation: 1,
			CreationTimestamp: metav1.NewTime(t0)},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: template("nginx:1"),
		},
	}
	for _, c := range changes {
		c(d)
	}
	return deployutil.SetDefaults(d)
}

func template(image string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: image}}},
	}
}

// replicaSet is a ReplicaSet of d's template with another image, named by
// its hash, controlled by d, with all its replicas available.
func replicaSet(d *appsv1.Deployment, image string, replicas int32, revision string, changes ...func(*appsv1.ReplicaSet)) *appsv1.ReplicaSet {
	tpl := template(image)
	tpl = *deployutil.SetPodTemplateDefaults(&tpl)
	hash := deployutil.ComputeHash(&tpl, nil)
	tpl.Labels = map[string]string{"app": "web", appsv1.DefaultDeploymentUniqueLabelKey: hash}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: deployutil.ReplicaSetName(d.Name, hash), Namespace: ns, UID: types.UID("rs-" + hash),
			Labels: tpl.Labels, Generation: 1, CreationTimestamp: metav1.NewTime(t0),
			Annotations: map[string]string{
				deployutil.RevisionAnnotation:        revision,
				deployutil.DesiredReplicasAnnotation: "3",
				deployutil.MaxReplicasAnnotation:     "4",
			},
			OwnerReferences: []metav1.OwnerReference{deployutil.ControllerRef(d)},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: tpl.Labels},
			Template: tpl,
		},
		Status: appsv1.ReplicaSetStatus{Replicas: replicas, ReadyReplicas: replicas, AvailableReplicas: replicas,
			ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0)},
	}
	for _, c := range changes {
		c(rs)
	}
	return rs
}

func orphan(rs *appsv1.ReplicaSet) { rs.OwnerReferences = nil; rs.Annotations = nil }

// complete gives d the status of a finished rollout of its replicas.
func complete(d *appsv1.Deployment) {
	n := *d.Spec.Replicas
	d.Annotations = map[string]string{deployutil.RevisionAnnotation: "2"}
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: n, UpdatedReplicas: n,
		ReadyReplicas: n, AvailableReplicas: n, TerminatingReplicas: ptr.To[int32](0),
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: deployutil.ReasonMinimumReplicasAvailable,
				Message: "Deployment has minimum availability.", LastUpdateTime: metav1.NewTime(t0), LastTransitionTime: metav1.NewTime(t0)},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: deployutil.ReasonNewReplicaSetAvailable,
				Message: `ReplicaSet "x" has successfully progressed.`, LastUpdateTime: metav1.NewTime(t0), LastTransitionTime: metav1.NewTime(t0)},
		}}
}
