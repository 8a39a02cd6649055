package testutil

import (
	"maps"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// The builders below make the objects of upstream's controller tests
// (k8s.io/kubernetes/pkg/controller/deployment and its util package at
// v1.37.2) as valid input, for every package's tests to restate upstream's
// cases as data. They take the annotations' keys from their callers, so the
// package does not import the library.

// Epoch is upstream's testTime, 2017-02-15 18:49 UTC: the time its
// progress tests stamp conditions with, and the creation time the revision
// and kubectl fixtures count from.
func Epoch() time.Time { return time.Date(2017, 2, 15, 18, 49, 0, 0, time.UTC) }

// DeploymentOption changes a Deployment Deployment builds.
type DeploymentOption func(*appsv1.Deployment)

// Deployment is the Deployment of upstream's newDeployment(name, replicas,
// nil, nil, nil, {foo: bar}): UID <name>-uid in namespace default, an
// empty annotation map, selector
// and template labels foo=bar, one container foo/bar, RollingUpdate with
// maxSurge 0 and maxUnavailable 1. Upstream's helper says 0 and 0, which an
// apiserver refuses; both resolve to surge 0 and unavailable 1, so the
// decisions are the same. Options change it further.
func Deployment(name string, replicas int32, opts ...DeploymentOption) *appsv1.Deployment {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceDefault, UID: types.UID(name + "-uid"), Annotations: map[string]string{}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"foo": "bar"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"foo": "bar"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Image: "foo/bar"}}},
			},
		},
	}
	Fenceposts(0, 1)(d)
	for _, o := range opts {
		o(d)
	}
	return d
}

// Fenceposts makes the Deployment RollingUpdate with integer maxSurge and
// maxUnavailable.
func Fenceposts(surge, unavailable int32) DeploymentOption {
	return func(d *appsv1.Deployment) {
		d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
			MaxSurge: ptr.To(intstr.FromInt32(surge)), MaxUnavailable: ptr.To(intstr.FromInt32(unavailable))}}
	}
}

// Recreate makes the Deployment use the Recreate strategy.
func Recreate(d *appsv1.Deployment) {
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
}

// HistoryLimit sets spec.revisionHistoryLimit (nil leaves it unset).
func HistoryLimit(limit *int32) DeploymentOption {
	return func(d *appsv1.Deployment) { d.Spec.RevisionHistoryLimit = limit }
}

// ReplicaSetOption changes a ReplicaSet ReplicaSet builds.
type ReplicaSetOption func(*appsv1.ReplicaSet)

// ReplicaSet is the ReplicaSet of upstream's rs and newRSWithStatus
// helpers: UID uid-<name> in namespace default with spec.replicas, nothing
// else. Options add an owner, a status, a creation time, annotations.
func ReplicaSet(name string, replicas int32, opts ...ReplicaSetOption) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceDefault, UID: types.UID("uid-" + name)},
		Spec:       appsv1.ReplicaSetSpec{Replicas: ptr.To(replicas)},
	}
	for _, o := range opts {
		o(rs)
	}
	return rs
}

// OwnedBy is upstream's newReplicaSet(d, name, replicas): the ReplicaSet is
// in d's namespace, controlled by d, labelled with d's selector's labels,
// and has a copy of d's selector and template.
func OwnedBy(d *appsv1.Deployment) ReplicaSetOption {
	return func(rs *appsv1.ReplicaSet) {
		labels := map[string]string{}
		for k, v := range d.Spec.Selector.MatchLabels {
			labels[k] = v
		}
		rs.Namespace, rs.Labels = d.Namespace, labels
		rs.OwnerReferences = []metav1.OwnerReference{controllerRef(d)}
		rs.Spec.Selector = d.Spec.Selector.DeepCopy()
		rs.Spec.Template = *d.Spec.Template.DeepCopy()
	}
}

// controllerRef is the reference upstream's fixtures make with
// metav1.NewControllerRef(d, apps/v1 Deployment).
func controllerRef(d *appsv1.Deployment) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID,
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
}

// UID sets the ReplicaSet's UID.
func UID(uid types.UID) ReplicaSetOption {
	return func(rs *appsv1.ReplicaSet) { rs.UID = uid }
}

// Selecting gives the ReplicaSet a selector of the given labels.
func Selecting(labels map[string]string) ReplicaSetOption {
	return func(rs *appsv1.ReplicaSet) { rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels} }
}

// Status sets the ReplicaSet's status replicas, ready and available ones.
func Status(replicas, ready, available int32) ReplicaSetOption {
	return func(rs *appsv1.ReplicaSet) {
		rs.Status.Replicas, rs.Status.ReadyReplicas, rs.Status.AvailableReplicas = replicas, ready, available
	}
}

// Created sets the ReplicaSet's creation time.
func Created(at time.Time) ReplicaSetOption {
	return func(rs *appsv1.ReplicaSet) { rs.CreationTimestamp = metav1.NewTime(at) }
}

// Annotated adds the annotations; an empty value is still set.
func Annotated(annotations map[string]string) ReplicaSetOption {
	return func(rs *appsv1.ReplicaSet) {
		if rs.Annotations == nil {
			rs.Annotations = map[string]string{}
		}
		maps.Copy(rs.Annotations, annotations)
	}
}

// ImageDeployment is the Deployment of upstream's util tests
// (generateDeployment): one replica, named after its image, in namespace
// test, whose pod template is fully defaulted and labelled name=<image>,
// RollingUpdate 1/1.
func ImageDeployment(image string) *appsv1.Deployment {
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

// TemplateReplicaSet is the ReplicaSet of upstream's util tests
// (generateRS): zero-sized, controlled by d, with a copy of d's template;
// hash, when not empty, is put in its pod-template-hash label and in its
// template's (upstream's fixture shares one map between the two).
func TemplateReplicaSet(d *appsv1.Deployment, name, hash string, created metav1.Time) *appsv1.ReplicaSet {
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
