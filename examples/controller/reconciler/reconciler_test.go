package reconciler

import (
	"context"
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	ctrlfake "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/examples/controller/applier"
)

func TestReconcile(t *testing.T) {
	web := deployutil.SetDefaults(&appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "d-uid", Generation: 1},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	})
	mismatched := web.DeepCopy()
	mismatched.Spec.Template.Labels = map[string]string{"app": "other"}
	tests := []struct {
		name     string
		stored   *appsv1.Deployment
		creates  int
		terminal bool
		reason   string
	}{
		{name: "new Deployment", stored: web, creates: 1,
			reason: "no ReplicaSet yet: the plan creates one, the applier sends it"},
		{name: "gone", reason: "a Deployment deleted since the event is not an error"},
		{name: "invalid", stored: mismatched, terminal: true,
			reason: "a selector that does not match the template: Sync refuses, retrying cannot help"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			cache := ctrlfake.NewClientBuilder().WithScheme(scheme.Scheme)
			cs := fake.NewClientset()
			if tt.stored != nil {
				cache = cache.WithObjects(tt.stored.DeepCopy())
				cs = fake.NewClientset(tt.stored.DeepCopy())
			}
			r := &Reconciler{Client: cache.Build(), Applier: &applier.Applier{Client: cs, Recorder: record.NewFakeRecorder(10)}}
			_, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "web"}})
			if got := errors.Is(err, reconcile.TerminalError(nil)); got != tt.terminal || (!tt.terminal && err != nil) {
				t.Fatalf("Reconcile error = %v, want terminal %v (%s)", err, tt.terminal, tt.reason)
			}
			creates := 0
			for _, a := range cs.Actions() {
				if a.GetVerb() == "create" && a.GetResource().Resource == "replicasets" {
					creates++
				}
			}
			if creates != tt.creates {
				t.Errorf("%d replicasets created, want %d (%s)", creates, tt.creates, tt.reason)
			}
		})
	}
}
