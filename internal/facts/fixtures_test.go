package facts_test

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// The fixtures below build objects of the shapes upstream's util tests use
// (k8s.io/kubernetes/pkg/controller/deployment/util at v1.37.2), so that the
// table rows of this package can restate upstream's cases as data.

// imageDeployment is a one-replica Deployment named after its image, whose
// pod template is fully defaulted and labelled name=<image>.
func imageDeployment(image string) *appsv1.Deployment {
	labels := map[string]string{"name": image}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: image, Namespace: "test", UID: types.UID("uid-" + image), Annotations: map[string]string{}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"name": image}},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name: image, Image: image, ImagePullPolicy: corev1.PullAlways,
						TerminationMessagePath: corev1.TerminationMessagePathDefault,
					}},
					DNSPolicy:                     corev1.DNSClusterFirst,
					TerminationGracePeriodSeconds: ptr.To[int64](30),
					RestartPolicy:                 corev1.RestartPolicyAlways,
					SecurityContext:               &corev1.PodSecurityContext{},
					EnableServiceLinks:            ptr.To(corev1.DefaultEnableServiceLinks),
				},
			},
			Strategy: appsv1.DeploymentStrategy{
				Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(1)),
				},
			},
		},
	}
}

// replicaSetOf is a zero-sized ReplicaSet controlled by d with a copy of d's
// template; hash, when not empty, is put in its pod-template-hash label and
// in its template's (upstream's fixture shares one map between the two).
func replicaSetOf(d *appsv1.Deployment, name, hash string, created metav1.Time) *appsv1.ReplicaSet {
	tpl := d.Spec.Template.DeepCopy()
	labels := map[string]string{}
	for k, v := range tpl.Labels {
		labels[k] = v
	}
	if hash != "" {
		labels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
		tpl.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	}
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: d.Namespace, UID: types.UID("uid-" + name), Labels: labels,
			CreationTimestamp: created,
			OwnerReferences:   []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID, Controller: ptr.To(true)}},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To[int32](0),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: *tpl,
		},
	}
}

// rollingDeployment is a RollingUpdate Deployment with the given replicas
// and fenceposts, and nothing else set.
func rollingDeployment(replicas int32, maxSurge, maxUnavailable intstr.IntOrString) *appsv1.Deployment {
	return &appsv1.Deployment{Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To(replicas),
		Strategy: appsv1.DeploymentStrategy{
			Type:          appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &maxSurge, MaxUnavailable: &maxUnavailable},
		},
	}}
}

// names lists the names of ReplicaSets, for readable comparisons.
func names(rss []*appsv1.ReplicaSet) []string {
	var out []string
	for _, rs := range rss {
		out = append(out, rs.Name)
	}
	return out
}
