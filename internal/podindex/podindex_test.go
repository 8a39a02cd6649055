package podindex_test

import (
	"sort"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/internal/podindex"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// TestByController checks that pods are grouped as upstream's pod index groups
// them: by the key namespace/kind/name/UID of the pod's controller
// reference (controller.PodControllerIndexKey), looked up for each
// ReplicaSet (controller.FilterPodsByOwner), whatever the caller's grouping.
func TestByController(t *testing.T) {
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "default", UID: "rs-uid"}}
	ref := func(kind, name string, uid types.UID, controller bool) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: name, UID: uid, Controller: ptr.To(controller)}}
	}
	pod := func(name, ns string, refs []metav1.OwnerReference) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, OwnerReferences: refs}}
	}
	tests := []struct {
		name   string
		key    types.UID
		pod    *corev1.Pod
		want   bool
		reason string
	}{
		{"controlled", "rs-uid", pod("a", "default", ref("ReplicaSet", "web-1", "rs-uid", true)), true, "kind, name, UID and namespace match"},
		{"listed elsewhere", "other", pod("a", "default", ref("ReplicaSet", "web-1", "rs-uid", true)), true, "the index looks at the controller reference, not the listing"},
		{"no controller", "rs-uid", pod("a", "default", nil), false, "an orphan is indexed under its namespace alone"},
		{"owner but not controller", "rs-uid", pod("a", "default", ref("ReplicaSet", "web-1", "rs-uid", false)), false, "only a controller reference counts"},
		{"another kind", "rs-uid", pod("a", "default", ref("Deployment", "web-1", "rs-uid", true)), false, "the key holds the kind"},
		{"another name", "rs-uid", pod("a", "default", ref("ReplicaSet", "web-2", "rs-uid", true)), false, "the key holds the name"},
		{"another UID", "rs-uid", pod("a", "default", ref("ReplicaSet", "web-1", "uid-2", true)), false, "the key holds the UID"},
		{"another namespace", "rs-uid", pod("a", "other", ref("ReplicaSet", "web-1", "rs-uid", true)), false, "the key starts with the pod's namespace"},
		{"nil pod", "rs-uid", nil, false, "skipped (Validate refuses it before Sync reads pods)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pods := map[types.UID][]*corev1.Pod{tt.key: {tt.pod}}
			frozen := testutil.Freeze(t, rs, pods)
			got := podindex.ByController([]*appsv1.ReplicaSet{rs}, pods)
			frozen.Check(t)
			keys := make([]string, 0, len(got))
			for k := range got {
				keys = append(keys, string(k))
			}
			sort.Strings(keys)
			if len(keys) != 1 || keys[0] != "rs-uid" {
				t.Fatalf("keys %v, want the claimed ReplicaSet's UID only", keys)
			}
			if has := len(got["rs-uid"]) == 1; has != tt.want {
				t.Errorf("pod counted for web-1: %v, want %v (%s)", has, tt.want, tt.reason)
			}
		})
	}
}
