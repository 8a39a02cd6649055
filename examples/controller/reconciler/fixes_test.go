package reconciler

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	ctrlfake "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/examples/controller/applier"
)

// TestReconcileFixes checks that Reconciler.Fixes reach Sync: on the state
// of kubernetes/kubernetes#102551 (one ReplicaSet at the Deployment's 4
// replicas with a stale desired-replicas of 5, maxSurge 0, a new image)
// upstream's sync, and so the reconciler without Fixes, writes no
// ReplicaSet; with FixStaleDesiredReplicas it rewrites the annotation.
func TestReconcileFixes(t *testing.T) {
	old := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web:1"}}},
	}
	d := deployutil.SetDefaults(&appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "d-uid", Generation: 2},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](4),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: *old.DeepCopy(),
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(0)), MaxUnavailable: ptr.To(intstr.FromInt32(1))}},
		},
	})
	old = d.Spec.Template
	d.Spec.Template.Spec.Containers[0].Image = "web:2"
	hash := deployutil.ComputeHash(&old, nil)
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web-" + hash, Namespace: "ns", UID: "rs-uid",
			Labels: map[string]string{"app": "web", deployutil.PodTemplateHashLabel: hash},
			Annotations: map[string]string{deployutil.RevisionAnnotation: "1", deployutil.DesiredReplicasAnnotation: "5",
				deployutil.MaxReplicasAnnotation: "4"},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](4),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", deployutil.PodTemplateHashLabel: hash}},
			Template: old},
		Status: appsv1.ReplicaSetStatus{Replicas: 4, ReadyReplicas: 4, AvailableReplicas: 4, FullyLabeledReplicas: 4, ObservedGeneration: 1},
	}
	rs.Spec.Template.Labels = map[string]string{"app": "web", deployutil.PodTemplateHashLabel: hash}
	for _, tt := range []struct {
		name   string
		fixes  []deploysync.Fix
		want   string // the desired-replicas annotation written, "" for no ReplicaSet write
		reason string
	}{
		{name: "upstream", want: "",
			reason: "without Fixes Sync is upstream's: a scaling event whose one ReplicaSet is already at 4, so nothing is written"},
		{name: "fixed", fixes: []deploysync.Fix{deploysync.FixStaleDesiredReplicas}, want: "4",
			reason: "FixStaleDesiredReplicas rewrites the stale annotation, which only happens if Fixes reach Sync"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cs := fake.NewClientset(d.DeepCopy(), rs.DeepCopy())
			cache := ctrlfake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(d.DeepCopy(), rs.DeepCopy()).Build()
			r := &Reconciler{Client: cache, Applier: &applier.Applier{Client: cs, Recorder: record.NewFakeRecorder(10)}, Fixes: tt.fixes}
			if _, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "web"}}); err != nil {
				t.Fatalf("Reconcile: %v (%s)", err, tt.reason)
			}
			var got []string
			for _, a := range cs.Actions() {
				if a.GetResource().Resource != "replicasets" || (a.GetVerb() != "update" && a.GetVerb() != "patch" && a.GetVerb() != "create") {
					continue
				}
				w, err := cs.AppsV1().ReplicaSets("ns").Get(context.Background(), rs.Name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, a.GetVerb()+" "+w.Annotations[deployutil.DesiredReplicasAnnotation])
			}
			switch {
			case tt.want == "" && len(got) != 0:
				t.Errorf("replicaset writes %v, want none (%s)", got, tt.reason)
			case tt.want != "" && (len(got) != 1 || got[0] != "update "+tt.want):
				t.Errorf("replicaset writes %v, want one update leaving desired-replicas %s (%s)", got, tt.want, tt.reason)
			}
		})
	}
}
