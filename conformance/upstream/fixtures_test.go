package upstream_test

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// now is the pinned time of the traces: whole seconds, UTC.
var now = time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)

// Annotation keys of the Deployment controller.
const (
	annRevision = "deployment.kubernetes.io/revision"
	annDesired  = "deployment.kubernetes.io/desired-replicas"
	annMax      = "deployment.kubernetes.io/max-replicas"
	hashLabel   = "pod-template-hash"
	goldenHash  = "6bcddfc897"
	goldenName  = "web-" + goldenHash
)

// template returns the pod template of the traces in reference Appendix B;
// with image nginx:1 its hash is 6bcddfc897 (the container is named "web").
func template(image string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "web", Image: image}},
		},
	}
}

// baseDeployment is the Deployment of the traces: web/default, selector
// app=web, RollingUpdate 25%/25%, deadline 600s, history 10, generation 1.
func baseDeployment(replicas int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name: "web", Namespace: "default", UID: "d-uid",
			Generation: 1, ResourceVersion: "d-rv",
			CreationTimestamp: metav1.NewTime(now.Add(-time.Hour)),
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: template("nginx:1"),
			Strategy: appsv1.DeploymentStrategy{
				Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxSurge:       ptr.To(intstr.FromString("25%")),
					MaxUnavailable: ptr.To(intstr.FromString("25%")),
				},
			},
			RevisionHistoryLimit:    ptr.To[int32](10),
			ProgressDeadlineSeconds: ptr.To[int32](600),
		},
	}
}

// recreate turns d into a Recreate Deployment.
func recreate(d *appsv1.Deployment) *appsv1.Deployment {
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	return d
}

// ownedRS returns a ReplicaSet controlled by the base Deployment, running
// tmpl at the given size, fully available, at revision rev.
func ownedRS(name string, uid types.UID, tmpl corev1.PodTemplateSpec, hash string, replicas int32, rev string, created time.Time) *appsv1.ReplicaSet {
	tmpl = *tmpl.DeepCopy()
	labels := map[string]string{"app": "web", hashLabel: hash}
	tmpl.Labels = labels
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "default", UID: uid,
			ResourceVersion:   "rv-" + name,
			Generation:        1,
			CreationTimestamp: metav1.NewTime(created),
			Labels:            map[string]string{"app": "web", hashLabel: hash},
			Annotations: map[string]string{
				annRevision: rev,
				annDesired:  "",
				annMax:      "",
			},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "d-uid",
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", hashLabel: hash}},
			Template: tmpl,
		},
		Status: appsv1.ReplicaSetStatus{
			Replicas:             replicas,
			FullyLabeledReplicas: replicas,
			ReadyReplicas:        replicas,
			AvailableReplicas:    replicas,
			ObservedGeneration:   1,
			TerminatingReplicas:  ptr.To[int32](0),
		},
	}
}

// withSizeAnnotations sets the desired and max replica annotations of rs.
func withSizeAnnotations(rs *appsv1.ReplicaSet, desired, max string) *appsv1.ReplicaSet {
	rs.Annotations[annDesired] = desired
	rs.Annotations[annMax] = max
	return rs
}

// pod returns a Running pod controlled by rs.
func pod(name string, rs *appsv1.ReplicaSet) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: rs.Namespace, UID: types.UID("uid-" + name),
			Labels: rs.Spec.Template.Labels,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
}
