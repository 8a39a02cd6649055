package podindex_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/internal/podindex"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// TestBySelector checks the grouping of Kubernetes 1.35 and earlier
// (pkg/controller/deployment/deployment_controller.go getPodMapForDeployment,
// v1.35.4): the pods the lister returns for the Deployment's namespace and
// selector, appended to the entry of their controller reference's UID when
// that UID is a claimed ReplicaSet's.
func TestBySelector(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "default", UID: "rs-uid"}}
	ref := func(kind, name string, uid types.UID, controller bool) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: name, UID: uid, Controller: ptr.To(controller)}}
	}
	pod := func(ns string, labels map[string]string, refs []metav1.OwnerReference) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: ns, Labels: labels, OwnerReferences: refs}}
	}
	web, other := map[string]string{"app": "web"}, map[string]string{"app": "other"}
	tests := []struct {
		name   string
		key    types.UID
		pod    *corev1.Pod
		want   bool
		reason string
	}{
		{"selected, controlled", "rs-uid", pod("default", web, ref("ReplicaSet", "web-1", "rs-uid", true)), true, "matches the selector, controller UID claimed"},
		{"listed elsewhere", "x", pod("default", web, ref("ReplicaSet", "web-1", "rs-uid", true)), true, "the caller's grouping is not consulted"},
		{"not selected", "rs-uid", pod("default", other, ref("ReplicaSet", "web-1", "rs-uid", true)), false, "the lister lists by the Deployment's selector"},
		{"another name", "rs-uid", pod("default", web, ref("ReplicaSet", "web-2", "rs-uid", true)), true, "only the controller's UID is compared"},
		{"another kind", "rs-uid", pod("default", web, ref("Deployment", "web", "rs-uid", true)), true, "only the controller's UID is compared"},
		{"owner, not controller", "rs-uid", pod("default", web, ref("ReplicaSet", "web-1", "rs-uid", false)), false, "GetControllerOf: only a controller reference"},
		{"orphan", "rs-uid", pod("default", web, nil), false, "no controller"},
		{"another UID", "rs-uid", pod("default", web, ref("ReplicaSet", "web-1", "zzz", true)), false, "a UID no claimed ReplicaSet has"},
		{"another namespace", "rs-uid", pod("other", web, ref("ReplicaSet", "web-1", "rs-uid", true)), false, "the lister lists the Deployment's namespace"},
		{"nil pod", "rs-uid", nil, false, "skipped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pods := map[types.UID][]*corev1.Pod{tt.key: {tt.pod}}
			frozen := testutil.Freeze(t, d, rs, pods)
			got := podindex.BySelector(d, []*appsv1.ReplicaSet{rs}, pods)
			frozen.Check(t)
			if len(got) != 1 {
				t.Fatalf("%d entries, want the claimed ReplicaSet's only", len(got))
			}
			if has := len(got["rs-uid"]) == 1; has != tt.want {
				t.Errorf("pod counted for web-1: %v, want %v (%s)", has, tt.want, tt.reason)
			}
		})
	}
}
