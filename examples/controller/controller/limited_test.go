package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/examples/controller/limits"
)

// limitedWorld is a Deployment of 10 replicas, RollingUpdate 25%/25%
// (maxSurge 3, maxUnavailable 2), whose one ReplicaSet (web:1) has all 10
// available, with the image changed to web:2 unless image says otherwise.
func limitedWorld(t *testing.T, image string, annotations map[string]string) (*appsv1.Deployment, *appsv1.ReplicaSet) {
	t.Helper()
	tpl := func(img string) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: img}}}}
	}
	d := deployutil.SetDefaults(&appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "d-uid", Generation: 2, ResourceVersion: "5",
			Annotations: map[string]string{"deployment.kubernetes.io/revision": "1"}},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](10),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: tpl(image),
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromString("25%")), MaxUnavailable: ptr.To(intstr.FromString("25%"))}}},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 10, UpdatedReplicas: 10, ReadyReplicas: 10, AvailableReplicas: 10},
	})
	for k, v := range annotations {
		d.Annotations[k] = v
	}
	oldTpl := *deployutil.SetPodTemplateDefaults(ptr.To(tpl("web:1")))
	hash := deployutil.ComputeHash(&oldTpl, nil)
	oldTpl.Labels = map[string]string{"app": "web", appsv1.DefaultDeploymentUniqueLabelKey: hash}
	old := deployutil.SetReplicaSetDefaults(&appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: deployutil.ReplicaSetName("web", hash), Namespace: "ns", UID: "rs1-uid", ResourceVersion: "3",
			Labels:          oldTpl.Labels,
			Annotations:     map[string]string{"deployment.kubernetes.io/revision": "1", "deployment.kubernetes.io/desired-replicas": "10", "deployment.kubernetes.io/max-replicas": "13"},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](10), Template: oldTpl,
			Selector: &metav1.LabelSelector{MatchLabels: oldTpl.Labels}},
		Status: appsv1.ReplicaSetStatus{Replicas: 10, ReadyReplicas: 10, AvailableReplicas: 10, ObservedGeneration: 1},
	})
	return d, old
}

// limitedController is a controller in the limits mode whose client and
// informers hold d and rss.
func limitedController(t *testing.T, d *appsv1.Deployment, rss ...*appsv1.ReplicaSet) (*Controller, *fake.Clientset, *record.FakeRecorder) {
	t.Helper()
	objs := []runtime.Object{d}
	for _, rs := range rss {
		objs = append(objs, rs)
	}
	cs := fake.NewClientset(objs...)
	f := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	rec := record.NewFakeRecorder(10)
	c, err := New(cs, f.Apps().V1().Deployments(), f.Apps().V1().ReplicaSets(), f.Core().V1().Pods(), rec)
	if err != nil {
		t.Fatal(err)
	}
	c.EnableLimits()
	if err := f.Apps().V1().Deployments().Informer().GetIndexer().Add(d); err != nil {
		t.Fatal(err)
	}
	for _, rs := range rss {
		if err := f.Apps().V1().ReplicaSets().Informer().GetIndexer().Add(rs); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(c.queue.ShutDown)
	cs.ClearActions()
	return c, cs, rec
}

func mustDisguise(t *testing.T, d *appsv1.Deployment) *appsv1.Deployment {
	t.Helper()
	out, err := limits.Disguise(d)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writes lists the clientset's writes as "verb resource[/subresource] detail".
func writes(cs *fake.Clientset) []string {
	var out []string
	for _, a := range cs.Actions() {
		// Creates and updates (status included) carry the object.
		withObject, ok := a.(interface{ GetObject() runtime.Object })
		if !ok || (a.GetVerb() != "create" && a.GetVerb() != "update") {
			continue
		}
		obj := withObject.GetObject()
		w := a.GetVerb() + " " + a.GetResource().Resource
		if a.GetSubresource() != "" {
			w += "/" + a.GetSubresource()
		}
		switch o := obj.(type) {
		case *appsv1.ReplicaSet:
			w += fmt.Sprintf(" %s replicas=%d", o.Spec.Template.Spec.Containers[0].Image, *o.Spec.Replicas)
		case *appsv1.Deployment:
			_, stashed := o.Annotations[limits.StashAnnotation]
			w += " " + string(o.Spec.Strategy.Type)
			if o.Spec.Paused {
				w += " paused"
			}
			if stashed {
				w += " stashed"
			}
		}
		out = append(out, w)
	}
	return out
}

// TestSyncLimited checks each step of the limits mode on one sync.
func TestSyncLimited(t *testing.T) {
	type world func(t *testing.T) (*appsv1.Deployment, []*appsv1.ReplicaSet)
	plain := func(image string, ann map[string]string) world {
		return func(t *testing.T) (*appsv1.Deployment, []*appsv1.ReplicaSet) {
			d, old := limitedWorld(t, image, ann)
			return d, []*appsv1.ReplicaSet{old}
		}
	}
	disguised := func(image string, ann map[string]string) world {
		return func(t *testing.T) (*appsv1.Deployment, []*appsv1.ReplicaSet) {
			d, old := limitedWorld(t, image, ann)
			return mustDisguise(t, d), []*appsv1.ReplicaSet{old}
		}
	}
	tests := []struct {
		name   string
		world  world
		want   []string
		event  string // a Warning event's reason, if one is expected
		reason string
	}{
		{name: "no annotation", world: plain("web:2", nil),
			reason: "a Deployment without the annotation is kube-controller-manager's: nothing is written"},
		{name: "first sight", world: plain("web:2", map[string]string{limits.Annotation: "30%"}),
			want:   []string{"update deployments Recreate paused stashed"},
			reason: "the first sync of an annotated Deployment only disguises it; nothing is rolled out until the disguise is on"},
		{name: "limited", world: disguised("web:2", map[string]string{limits.Annotation: "30%"}),
			want: []string{"create replicasets web:2 replicas=3", "update replicasets web:1 replicas=8",
				"update deployments/status Recreate paused stashed"},
			reason: "30% of 10 is 3: the new ReplicaSet is created with 3 (maxSurge's 3 too); the old one shrinks within maxUnavailable 2 to 8 " +
				"(the limit would let it go to 7); the status is written with the disguise on"},
		{name: "limited to 1", world: disguised("web:2", map[string]string{limits.Annotation: "1"}),
			want: []string{"create replicasets web:2 replicas=1", "update replicasets web:1 replicas=9",
				"update deployments/status Recreate paused stashed"},
			reason: "a limit of 1 holds the new ReplicaSet at 1 where maxSurge would allow 3, and the old one at replicas − limit = 9 where maxUnavailable would allow 8"},
		{name: "bad limit", world: disguised("web:2", map[string]string{limits.Annotation: "x%"}), event: "InvalidLimit",
			reason: "Sync refuses a limit it cannot read; nothing is written and a Warning event says why"},
		{name: "hand back", world: func(t *testing.T) (*appsv1.Deployment, []*appsv1.ReplicaSet) {
			d, old := limitedWorld(t, "web:1", map[string]string{limits.Annotation: "30%"})
			d = mustDisguise(t, d)
			delete(d.Annotations, limits.Annotation)
			return d, []*appsv1.ReplicaSet{old}
		},
			want: []string{"update replicasets web:1 replicas=10", "update deployments/status Recreate paused stashed", "update deployments RollingUpdate"},
			reason: "annotation removed: one sync with no limit (here the Deployment's annotations copied to its current ReplicaSet, as kube-controller-manager copies them, and the status), " +
				"then the user's strategy and paused back, the stash gone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, rss := tt.world(t)
			c, cs, rec := limitedController(t, d, rss...)
			if _, err := c.Sync(context.Background(), "ns/web"); err != nil {
				t.Fatalf("Sync: %v (%s)", err, tt.reason)
			}
			if got := writes(cs); !equalStrings(got, tt.want) {
				t.Errorf("writes = %q, want %q (%s)", got, tt.want, tt.reason)
			}
			var events []string
			for len(rec.Events) > 0 {
				events = append(events, <-rec.Events)
			}
			found := false
			for _, e := range events {
				found = found || (tt.event != "" && strings.HasPrefix(e, corev1.EventTypeWarning+" "+tt.event+" "))
			}
			if tt.event != "" && !found {
				t.Errorf("events %q, want a Warning %s (%s)", events, tt.event, tt.reason)
			}
		})
	}
}

func TestNextStep(t *testing.T) {
	d, _ := limitedWorld(t, "web:2", map[string]string{limits.Annotation: "30%"})
	disguised := mustDisguise(t, d)
	resumed := disguised.DeepCopy()
	resumed.Spec.Paused = false
	gone := disguised.DeepCopy()
	delete(gone.Annotations, limits.Annotation)
	deleting := d.DeepCopy()
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	plainD, _ := limitedWorld(t, "web:2", nil)
	tests := []struct {
		name   string
		in     *appsv1.Deployment
		want   step
		reason string
	}{
		{name: "plain", in: plainD, want: leave, reason: "no annotation, no stash: kube-controller-manager's"},
		{name: "annotated", in: d, want: disguise, reason: "annotated and not disguised: disguise first"},
		{name: "disguised", in: disguised, want: limit, reason: "annotated and disguised: roll out to the limit"},
		{name: "resumed", in: resumed, want: disguise, reason: "disguise taken off in part (kubectl rollout resume): put it back on, the resume taken as the user's"},
		{name: "limit removed", in: gone, want: handBack, reason: "stash without annotation: hand back to kube-controller-manager"},
		{name: "deleting", in: deleting, want: leave, reason: "no point disguising a Deployment being deleted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nextStep(tt.in); got != tt.want {
				t.Errorf("nextStep = %v, want %v (%s)", got, tt.want, tt.reason)
			}
		})
	}
}
