package verdict_test

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/verdict"
)

// A Deployment paused after its rollout finished: kubectl and both Helms
// are done, kstatus keeps waiting, Argo CD calls it Suspended.
func ExampleAll() {
	now := time.Date(2026, 5, 20, 12, 0, 0, 0, time.UTC)
	template := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1"}}},
	}
	condition := func(t appsv1.DeploymentConditionType, s corev1.ConditionStatus, reason, message string) appsv1.DeploymentCondition {
		at := metav1.NewTime(now.Add(-time.Minute))
		return appsv1.DeploymentCondition{Type: t, Status: s, Reason: reason, Message: message, LastUpdateTime: at, LastTransitionTime: at}
	}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "d-uid", Generation: 1},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: template,
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxSurge: ptr.To(intstr.FromString("25%")), MaxUnavailable: ptr.To(intstr.FromString("25%"))}},
			ProgressDeadlineSeconds: ptr.To[int32](600),
			Paused:                  true,
		},
		Status: appsv1.DeploymentStatus{
			ObservedGeneration: 1, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3,
			TerminatingReplicas: ptr.To[int32](0),
			Conditions: []appsv1.DeploymentCondition{
				condition(appsv1.DeploymentAvailable, corev1.ConditionTrue, "MinimumReplicasAvailable", ""),
				condition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, "DeploymentPaused", "Deployment is paused"),
			},
		},
	}
	// The Deployment's one ReplicaSet, its template labelled with its hash.
	rsTemplate := *template.DeepCopy()
	rsTemplate.Labels[deployutil.PodTemplateHashLabel] = "5d4f8b7c9"
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: "web-5d4f8b7c9", Namespace: "default", UID: "rs-uid", Generation: 1,
			Labels:          rsTemplate.Labels,
			Annotations:     map[string]string{deployutil.RevisionAnnotation: "2"},
			OwnerReferences: []metav1.OwnerReference{deployutil.ControllerRef(d)},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: rsTemplate.Labels},
			Template: rsTemplate,
		},
		Status: appsv1.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3,
			ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0)},
	}
	rss := []*appsv1.ReplicaSet{rs}

	for _, v := range verdict.All(d, rss, nil) {
		fmt.Printf("%-8s done=%-5v %s %q\n", v.Tool, v.Done, v.Status, v.Message)
	}
	// Output:
	// kubectl  done=true   "deployment \"web\" successfully rolled out\n"
	// kstatus  done=false InProgress "ReplicaSet not Available"
	// helm3    done=true   ""
	// helm4    done=true   ""
	// argocd   done=false Suspended "Deployment is paused"
	// strict   done=true   "deployment \"web\" rolled out: generation 1 observed, 3 replicas updated and available, no old or terminating pods"
}
