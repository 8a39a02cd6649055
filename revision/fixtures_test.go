package revision_test

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
)

// epoch is the creation time the fixtures count from.
var epoch = time.Date(2017, 2, 15, 18, 49, 0, 0, time.UTC)

// deployment is the shape of upstream's newDeployment test helper: "foo",
// selector foo=bar, one container foo/bar, the given history limit. Its
// fenceposts are 0/1 (what upstream's 0/0 default resolves to).
func deployment(replicas int32, historyLimit *int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "foo", Namespace: metav1.NamespaceDefault, UID: "foo-uid", Annotations: map[string]string{}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"foo": "bar"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"foo": "bar"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Image: "foo/bar"}}},
			},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxSurge: ptr.To(intstr.FromInt32(0)), MaxUnavailable: ptr.To(intstr.FromInt32(1))}},
			RevisionHistoryLimit: historyLimit,
		},
	}
}

// replicaSet is the shape of upstream's newRSWithStatus and rs helpers:
// spec and status replicas, a creation time `age` minutes after epoch, and
// a revision annotation unless revision is "".
func replicaSet(name string, spec, status int32, age int, revision string) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceDefault, UID: types.UID("uid-" + name),
			CreationTimestamp: metav1.NewTime(epoch.Add(time.Duration(age) * time.Minute))},
		Spec:   appsv1.ReplicaSetSpec{Replicas: ptr.To(spec), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"foo": "bar"}}},
		Status: appsv1.ReplicaSetStatus{Replicas: status},
	}
	if revision != "" {
		rs.Annotations = map[string]string{deployutil.RevisionAnnotation: revision}
	}
	return rs
}
