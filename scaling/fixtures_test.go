package scaling_test

import (
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
)

// Creation times of upstream's TestScale: older, old and new ReplicaSets.
var (
	olderTime = metav1.NewTime(time.Date(2016, 5, 20, 0, 0, 0, 0, time.UTC))
	oldTime   = metav1.NewTime(time.Date(2016, 5, 20, 1, 0, 0, 0, time.UTC))
	newTime   = metav1.NewTime(time.Date(2016, 5, 20, 2, 0, 0, 0, time.UTC))
)

// deployment is the shape of upstream's newDeployment helper: "foo",
// RollingUpdate with the given integer fenceposts (upstream's default is
// 0/0, which resolves to surge 0, unavailable 1), one container foo/bar.
func deployment(replicas, surge, unavailable int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "foo", Namespace: metav1.NamespaceDefault, UID: "foo-uid"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"foo": "bar"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"foo": "bar"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Image: "foo/bar"}}},
			},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxSurge: ptr.To(intstr.FromInt32(surge)), MaxUnavailable: ptr.To(intstr.FromInt32(unavailable))}},
		},
	}
}

// replicaSet is the shape of upstream's rs helper: a name, a size and a
// creation time, with the replica annotations a Deployment of desired
// replicas and the given surge would have written (as upstream's TestScale
// sets them from its oldDeployment before each case).
func replicaSet(name string, size int32, created metav1.Time, desired, surge int32) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceDefault, UID: types.UID("uid-" + name), CreationTimestamp: created,
			Annotations: map[string]string{
				deployutil.DesiredReplicasAnnotation: itoa(desired),
				deployutil.MaxReplicasAnnotation:     itoa(desired + surge),
			}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(size)},
	}
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }
