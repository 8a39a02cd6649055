package e2e

import (
	"slices"
	"strconv"
	"strings"
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

// TestSimRecorderOvertaken feeds the recorder a scale-down of the old
// ReplicaSet and creates of the new one's pods in the orders the
// ReplicaSet controller can commit them: only a create past the size the
// new ReplicaSet had before the scale-down, committed before the
// scale-down's delete, is recorded as overtaking (it is what lets the real
// peak exceed the simulator's, and then the peak is only reported). The
// resourceVersions are the commit order, as one etcd gives them.
func TestSimRecorderOvertaken(t *testing.T) {
	for _, tt := range []struct {
		name string
		// steps: "rs NAME SIZE" writes a ReplicaSet's size, "pod NAME RS"
		// creates a pod, "del NAME RS" deletes one.
		steps     []string
		overtaken int // pods that overtook web-1's scale-down
		peak      int32
		reason    string
	}{
		{"delete first", []string{"rs web-1 1", "rs web-2 1", "del b web-1", "pod c web-2"}, 0, 2,
			"one ReplicaSet worker's usual order: the old ReplicaSet's delete, then the new one's create, as the simulator's world does"},
		{"create first", []string{"rs web-1 1", "rs web-2 1", "pod c web-2", "del b web-1"}, 1, 3,
			"the new ReplicaSet's create, for a write after the scale-down, reached the apiserver before the old one's delete: one pod more than the simulator's world has"},
		{"earlier write's create", []string{"rs web-2 1", "rs web-1 1", "pod c web-2", "del b web-1"}, 0, 3,
			"the create answers the scale-up written before the scale-down (a slow-start batch still going): the writes are done in their order"},
		{"earlier write's create, a later scale-up meanwhile", []string{"rs web-2 1", "rs web-1 1", "rs web-2 2", "pod c web-2", "pod d web-2", "del b web-1"}, 1, 4,
			"1000 replicas' start: the first pod answers the scale-up before the scale-down, the second one past it, which the scale-down's delete should have preceded"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var rv uint64
			next := func() string { rv++; return strconv.FormatUint(rv, 10) }
			rs := func(name string, n int32) *appsv1.ReplicaSet {
				return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name + "-uid"), ResourceVersion: next()},
					Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(n)}}
			}
			pod := func(name, owner string, deleting bool) *corev1.Pod {
				p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name), ResourceVersion: next(),
					OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: owner, UID: types.UID(owner + "-uid"), Controller: ptr.To(true)}}}}
				if deleting {
					p.DeletionTimestamp = ptr.To(metav1.Now())
				}
				return p
			}
			r := &simRecorder{sizes: map[string]int32{}, pods: map[types.UID]*corev1.Pod{}, order: map[string]int{}}
			r.rs(rs("web-1", 2))
			r.pod(pod("a", "web-1", false), false)
			r.pod(pod("b", "web-1", false), false)
			r.rs(rs("web-2", 0))
			r.reset()
			time.Sleep(time.Millisecond)
			for _, step := range tt.steps {
				f := strings.Fields(step)
				switch f[0] {
				case "rs":
					n, err := strconv.Atoi(f[2])
					if err != nil {
						t.Fatal(err)
					}
					r.rs(rs(f[1], int32(n)))
				case "pod", "del":
					r.pod(pod(f[1], f[2], f[0] == "del"), false)
				}
			}
			if len(r.downs) != 1 {
				t.Fatalf("%d scale-downs recorded, want 1", len(r.downs))
			}
			if got := r.overtaking(r.downs[0]); got != tt.overtaken {
				t.Errorf("%d pods overtook the scale-down, want %d (%s)", got, tt.overtaken, tt.reason)
			}
			res, _, _ := r.result(r.origin)
			if want := min(tt.overtaken, 1); len(res.Overtaken) != want {
				t.Errorf("overtaken scale-downs %q, want %d (%s)", res.Overtaken, want, tt.reason)
			}
			if res.PeakPods != tt.peak {
				t.Errorf("peak %d, want %d (%s)", res.PeakPods, tt.peak, tt.reason)
			}
		})
	}
}
