package simulate

import (
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
)

func TestDeleteFirst(t *testing.T) {
	const now = 100 * time.Second
	pending := pod{id: 1, created: 99 * time.Second, started: 101 * time.Second, ready: 104 * time.Second}
	notReady := pod{id: 2, created: 90 * time.Second, started: 92 * time.Second, ready: never}
	readyRecently := pod{id: 3, created: 80 * time.Second, started: 82 * time.Second, ready: 95 * time.Second}
	readyLong := pod{id: 4, created: 10 * time.Second, started: 12 * time.Second, ready: 15 * time.Second}
	older := pod{id: 5, created: 5 * time.Second, started: 12 * time.Second, ready: 15 * time.Second}
	for _, tt := range []struct {
		name   string
		a, b   pod
		want   int
		reason string
	}{
		{"pending before running", pending, notReady, -1, "a pod that does not run yet costs nothing to delete"},
		{"not ready before ready", notReady, readyRecently, -1, "upstream deletes pods that are not ready first"},
		{"recently ready first", readyRecently, readyLong, -1, "upstream keeps the pods that have been ready longest"},
		{"same ready time: newer first", readyLong, older, -1, "upstream then deletes the newest pod"},
		{"antisymmetric", readyLong, readyRecently, 1, "the order is total"},
		{"same pod", readyLong, readyLong, 0, "a pod ties with itself"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			if got := deleteFirst(&tt.a, &tt.b, now); got != tt.want {
				t.Errorf("deleteFirst = %d, want %d (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

func testRS(name string, replicas int32, minReady int32) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), Generation: 1},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(replicas), MinReadySeconds: minReady,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "bad"}}}}},
	}
}

func TestWorldStep(t *testing.T) {
	cfg := defaults()
	for _, tt := range []struct {
		name     string
		replicas int32
		minReady int32
		cfg      func(*config)
		at       []time.Duration // step times; the spec is constant
		want     counts          // after the last step
		reason   string
	}{
		{"creates pending pods", 3, 0, nil, []time.Duration{0}, counts{pods: 3},
			"the ReplicaSet controller creates the missing pods at once"},
		{"ready after start and readiness", 3, 0, nil, []time.Duration{0, 5 * time.Second}, counts{pods: 3, ready: 3, available: 3},
			"2s start + 3s readiness: ready and, with minReadySeconds 0, available at 5s"},
		{"not ready just before", 3, 0, nil, []time.Duration{0, 4 * time.Second}, counts{pods: 3},
			"at 4s the readiness probe has not passed"},
		{"minReadySeconds is strict", 2, 5, nil, []time.Duration{0, 10 * time.Second}, counts{pods: 2, ready: 2},
			"ready at 5s, minReadySeconds 5: available only strictly after 10s, as upstream"},
		{"available after minReadySeconds", 2, 5, nil, []time.Duration{0, 11 * time.Second}, counts{pods: 2, ready: 2, available: 2},
			"at 11s the pods have been ready for more than 5s"},
		{"burst limits creation", 7, 0, func(c *config) { c.burst = 3 }, []time.Duration{0}, counts{pods: 3},
			"burstReplicas caps the pods created per ReplicaSet and step"},
		{"failing image never ready", 2, 0, func(c *config) { c.failingImages = map[string]bool{"bad": true} }, []time.Duration{0, time.Minute}, counts{pods: 2},
			"pods of a failing image run but never pass readiness"},
		{"certain failure", 2, 0, func(c *config) { c.failureRate = 1 }, []time.Duration{0, time.Minute}, counts{pods: 2},
			"a failure rate of 1 breaks every pod"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			c := cfg
			if tt.cfg != nil {
				tt.cfg(&c)
			}
			w := newWorld(&c, time.Time{})
			rs := testRS("a", tt.replicas, tt.minReady)
			rss := []*appsv1.ReplicaSet{rs}
			for _, at := range tt.at {
				rss = w.step(rss, at)
			}
			got := w.measure(rss[0], tt.at[len(tt.at)-1])
			if got != tt.want {
				t.Errorf("counts %+v, want %+v (%s)", got, tt.want, tt.reason)
			}
			if st := rss[0].Status; st.Replicas != got.pods || st.ReadyReplicas != got.ready || st.AvailableReplicas != got.available || st.ObservedGeneration != 1 {
				t.Errorf("status %+v does not match the counts %+v", st, got)
			}
		})
	}
}

func TestScaleDownDeletesUnavailableFirst(t *testing.T) {
	cfg := defaults()
	w := newWorld(&cfg, time.Time{})
	rs := testRS("a", 4, 0)
	rss := w.step([]*appsv1.ReplicaSet{rs}, 0) // 4 pods, ready at 5s
	rs = rss[0].DeepCopy()
	rs.Spec.Replicas = ptr.To[int32](6)
	rss = w.step([]*appsv1.ReplicaSet{rs}, 5*time.Second) // 4 ready, 2 new pending
	rs = rss[0].DeepCopy()
	rs.Spec.Replicas = ptr.To[int32](4)
	rss = w.step([]*appsv1.ReplicaSet{rs}, 6*time.Second)
	got := w.measure(rss[0], 6*time.Second)
	if want := (counts{pods: 4, ready: 4, available: 4, terminating: 2}); got != want {
		t.Errorf("after scaling 6→4: %+v, want %+v: the two pending pods go first", got, want)
	}
	if next := w.next(rss, 6*time.Second); next != 11*time.Second {
		t.Errorf("next change at %v, want 11s (the terminating pods are gone)", next)
	}
	rss = w.step(rss, 11*time.Second)
	if got := w.measure(rss[0], 11*time.Second); got.terminating != 0 {
		t.Errorf("terminating pods linger past their delay: %+v", got)
	}
	if next := w.next(rss, 11*time.Second); next != never {
		t.Errorf("next change at %v, want never: the world is at rest", next)
	}
}

func TestDeletedReplicaSetPodsLinger(t *testing.T) {
	cfg := defaults()
	w := newWorld(&cfg, time.Time{})
	rss := w.step([]*appsv1.ReplicaSet{testRS("a", 2, 0)}, 0)
	_ = rss
	w.step(nil, time.Second)
	if w.orphanCount() != 2 {
		t.Fatalf("%d orphans, want 2: the garbage collector deletes the pods of a deleted ReplicaSet", w.orphanCount())
	}
	w.step(nil, 6*time.Second)
	if w.hasOrphans() {
		t.Errorf("orphans linger past the termination delay")
	}
}

func TestNextTime(t *testing.T) {
	for _, tt := range []struct {
		name     string
		now      time.Duration
		plan     deploysync.Plan
		changeAt time.Duration // -1: none
		want     time.Duration
		wantOK   bool
		reason   string
	}{
		{"idle", 5 * time.Second, deploysync.Plan{}, -1, 0, false, "nothing written, nothing due: the run is over"},
		{"requeue after rounds up", 5 * time.Second, deploysync.Plan{RequeueAfter: 1500 * time.Millisecond}, -1, 7 * time.Second, true,
			"the requeue comes at 6.5s; the next tick at or after it is 7s"},
		{"requeue now", 5 * time.Second, deploysync.Plan{Requeue: true}, -1, 6 * time.Second, true, "a rate-limited requeue is the next tick"},
		{"change due", 5 * time.Second, deploysync.Plan{}, 30 * time.Second, 30 * time.Second, true, "a scripted change wakes the run"},
		{"busy", 5 * time.Second, deploysync.Plan{Actions: nil, Err: errTest}, -1, 6 * time.Second, true, "an error is retried at the next tick"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			cfg := defaults()
			r := &runner{cfg: &cfg, now: tt.now, world: newWorld(&cfg, time.Time{}), lastPlan: tt.plan}
			if tt.changeAt >= 0 {
				r.changes = []Change{{At: tt.changeAt}}
			}
			got, ok := r.nextTime()
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("nextTime = %v, %v; want %v, %v (%s)", got, ok, tt.want, tt.wantOK, tt.reason)
			}
		})
	}
}

// TestCheckerReportsViolations feeds the checker counts that break each
// measured invariant: violations are reported, not hidden.
func TestCheckerReportsViolations(t *testing.T) {
	d := deployutil.SetDefaults(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", UID: "d"}, Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](10)}})
	for _, tt := range []struct {
		name   string
		steps  []Counts // measured at steps 0, 1, ...
		want   []Invariant
		reason string
	}{
		{"within bounds", []Counts{{Pods: 10, Available: 10}, {Pods: 13, Available: 8}}, nil,
			"13 pods and 8 available are exactly the bounds for 10 replicas at 25%/25%"},
		{"too many pods", []Counts{{Pods: 10, Available: 10}, {Pods: 14, Available: 10}}, []Invariant{SurgeBound},
			"14 pods exceed replicas 10 + maxSurge 3"},
		{"terminating pods do not count", []Counts{{Pods: 10, Available: 10}, {Pods: 13, Available: 10, Terminating: 5}}, nil,
			"upstream does not wait for terminating pods"},
		{"too few available", []Counts{{Pods: 10, Available: 10}, {Pods: 10, Available: 7}}, []Invariant{AvailabilityBound},
			"7 available is below replicas 10 - maxUnavailable 2"},
		{"not armed before full availability", []Counts{{Pods: 10, Available: 5}, {Pods: 10, Available: 5}}, nil,
			"a rollout that did not start fully available promises nothing about availability"},
		{"step 0 is the input", []Counts{{Pods: 20, Available: 20}}, nil,
			"step 0 counts the input, which the controller has not sized yet"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			c := &checker{spec: d}
			for i, total := range tt.steps {
				c.measured(i, nil, nil, total)
			}
			var got []Invariant
			for _, v := range c.violations {
				got = append(got, v.Invariant)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("violations %v, want %v (%s)", c.violations, tt.want, tt.reason)
			}
		})
	}
}

var errTest = errorString("test")

type errorString string

func (e errorString) Error() string { return string(e) }
