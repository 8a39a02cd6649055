package e2e

import (
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// TestSimRecorderDeletions feeds the simreal recorder the watch events of
// one scale-down in both orders its two watches can deliver them: the
// pod's deletion is attributed to the scale-down either way.
func TestSimRecorderDeletions(t *testing.T) {
	rs := func(n int32) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-1", UID: "rs-uid"}, Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(n)}}
	}
	pod := func(name string, deleting bool) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name),
			OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-1", UID: "rs-uid", Controller: ptr.To(true)}}}}
		if deleting {
			p.DeletionTimestamp = ptr.To(metav1.Now())
		}
		return p
	}
	for _, tt := range []struct {
		name        string
		podFirst    bool
		wantDeleted []string
		reason      string
	}{
		{"scale-down first", false, []string{"b"}, "the usual order: the ReplicaSet's new size, then the pod's deletion"},
		{"deletion first", true, []string{"b"}, "the pod watch ran ahead of the ReplicaSet watch: the deletion waits for its scale-down"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &simRecorder{sizes: map[string]int32{}, pods: map[types.UID]*corev1.Pod{}, order: map[string]int{}}
			r.rs(rs(2))
			r.pod(pod("a", false), false)
			r.pod(pod("b", false), false)
			r.reset()
			time.Sleep(time.Millisecond)
			if tt.podFirst {
				r.pod(pod("b", true), false)
				r.rs(rs(1))
			} else {
				r.rs(rs(1))
				r.pod(pod("b", true), false)
			}
			if len(r.downs) != 1 {
				t.Fatalf("%d scale-downs recorded, want 1 (%s)", len(r.downs), tt.reason)
			}
			d := r.downs[0]
			if !slices.Equal(d.deleted, tt.wantDeleted) || len(d.before) != 2 || d.ranked.IsZero() {
				t.Errorf("scale-down deleted %v from %d pods ranked at %v, want %v from 2 (%s)", d.deleted, len(d.before), d.ranked, tt.wantDeleted, tt.reason)
			}
			if len(r.early) != 0 {
				t.Errorf("%d deletions left unattributed (%s)", len(r.early), tt.reason)
			}
		})
	}
}
