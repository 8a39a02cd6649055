package simulate

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/kversion"
	"github.com/deploysync/deploysync/replicaset"
)

// TestScaleDownIsUpstreamRanking draws random worlds (several ReplicaSets
// of one Deployment, pods on several nodes in every state) and scales one
// ReplicaSet down: the pods the world deletes must be the first of
// replicaset.DeletionOrder over pods built here from the same facts, with
// the related pods per node counted here over all the ReplicaSets.
func TestScaleDownIsUpstreamRanking(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const now = 1000 * time.Second
	rng := rand.New(rand.NewPCG(1, 2))
	owner := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "d", Controller: ptr.To(true)}
	for iter := range 2000 {
		cfg := defaults()
		cfg.nodes = 1 + rng.IntN(4)
		cfg.burst = int32(1 + rng.IntN(20))
		w := newWorld(&cfg, start)
		var rss []*appsv1.ReplicaSet
		for k := range 1 + rng.IntN(3) {
			rs := testRS(string(rune('a'+k)), 0, 0)
			rs.OwnerReferences = []metav1.OwnerReference{owner}
			rp := &rsPods{}
			for range rng.IntN(12) {
				w.nextID++
				p := pod{id: w.nextID, gone: never, node: int32(rng.IntN(cfg.nodes))}
				p.created = halves(rng, 2000)
				p.started = p.created + halves(rng, 400)
				p.ready = never
				if rng.IntN(4) > 0 {
					p.ready = p.started + halves(rng, 400)
				}
				w.perNode[p.node]++
				rp.active = append(rp.active, p)
			}
			w.byUID[rs.UID] = rp
			rs.Spec.Replicas = ptr.To(int32(len(rp.active)))
			rss = append(rss, rs)
		}
		// Another controller's ReplicaSet on the same nodes is not related.
		stranger := testRS("z", 3, 0)
		w.byUID[stranger.UID] = &rsPods{active: []pod{{id: 900, gone: never, created: 1, started: 1, ready: never}, {id: 901, gone: never, created: 1, started: 1, ready: never}, {id: 902, gone: never, created: 1, started: 1, ready: never}}}
		rss = append(rss, stranger)

		target := rss[rng.IntN(len(rss)-1)]
		have := len(w.byUID[target.UID].active)
		if have == 0 {
			continue
		}
		want := rng.IntN(have)
		n := min(have-want, int(cfg.burst))

		onNode := map[string]int{}
		for _, rs := range rss[:len(rss)-1] {
			for _, p := range w.byUID[rs.UID].active {
				onNode["node-"+strconv.Itoa(int(p.node)+1)]++
			}
		}
		var objs []*corev1.Pod
		for _, p := range w.byUID[target.UID].active {
			o := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: target.Name + "-" + strconv.FormatUint(p.id, 10), UID: types.UID("pod-" + strconv.FormatUint(p.id, 10)),
				CreationTimestamp: metav1.NewTime(start.Add(p.created).Truncate(time.Second))},
				Spec: corev1.PodSpec{NodeName: "node-" + strconv.Itoa(int(p.node)+1)}, Status: corev1.PodStatus{Phase: corev1.PodPending}}
			if p.started <= now {
				o.Status.Phase = corev1.PodRunning
				c := corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse}
				if p.ready <= now {
					c.Status, c.LastTransitionTime = corev1.ConditionTrue, metav1.NewTime(start.Add(p.ready).Truncate(time.Second))
				}
				o.Status.Conditions = []corev1.PodCondition{c}
			}
			objs = append(objs, o)
		}
		order, _ := replicaset.DeletionOrder(objs, onNode, start.Add(now))
		var wantNames []string
		for _, o := range order[:n] {
			wantNames = append(wantNames, o.Name)
		}

		scaled := target.DeepCopy()
		scaled.Spec.Replicas = ptr.To(int32(want))
		for i := range rss {
			if rss[i] == target {
				rss[i] = scaled
			}
		}
		w.step(rss, now)
		var got []string
		for i, d := range w.deleted {
			got = append(got, d.Pod)
			if d.Position != i+1 || d.ReplicaSet != target.Name {
				t.Errorf("world %d: deletion %d is %+v, want position %d of %s", iter, i, d, i+1, target.Name)
			}
		}
		if !slices.Equal(got, wantNames) {
			t.Fatalf("world %d (%d nodes, %d→%d, burst %d): deleted %v, upstream's ranking deletes %v", iter, cfg.nodes, have, want, cfg.burst, got, wantNames)
		}
		if left := len(w.byUID[target.UID].active); left != have-n {
			t.Errorf("world %d: %d pods left, want %d", iter, left, have-n)
		}
	}
}

// halves draws a time of up to n half seconds: the world's times are ticks
// plus delays, often within one second of each other.
func halves(rng *rand.Rand, n int64) time.Duration {
	return time.Duration(rng.Int64N(n)) * 500 * time.Millisecond
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
		{"minReadySeconds reached", 2, 5, nil, []time.Duration{0, 10 * time.Second}, counts{pods: 2, ready: 2, available: 2},
			"ready at 5s, minReadySeconds 5: available at 10s, as v1.37.2's ReplicaSet controller (conformance/testdata/replicaset, 1.34+: at or before now)"},
		{"minReadySeconds is strict on 1.33", 2, 5, func(c *config) { c.minor = kversion.V1_33 }, []time.Duration{0, 10 * time.Second}, counts{pods: 2, ready: 2},
			"on 1.33 available only strictly after 10s, as v1.33.5's recorded ReplicaSet controller (replicaset.TestMinorAvailableBoundary)"},
		{"available after minReadySeconds", 2, 5, nil, []time.Duration{0, 11 * time.Second}, counts{pods: 2, ready: 2, available: 2},
			"at 11s the pods have been ready for more than 5s"},
		{"burst limits creation", 7, 0, func(c *config) { c.burst = 3 }, []time.Duration{0}, counts{pods: 3},
			"burstReplicas caps the pods created per ReplicaSet and step"},
		{"failing image never ready", 2, 0, func(c *config) { c.failingImages = map[string]bool{"bad": true} }, []time.Duration{0, time.Minute}, counts{pods: 2},
			"pods of a failing image run but never pass readiness"},
		{"stagger: one ready per slot", 3, 0, func(c *config) { c.readyStagger = 400 * time.Millisecond },
			[]time.Duration{0, 5200 * time.Millisecond}, counts{pods: 3, ready: 1, available: 1},
			"due at 5s, a 400ms stagger: slots at multiples of 400ms, so ready at 5.2s, 5.6s and 6s; one at 5.2s"},
		{"stagger: all ready after their slots", 3, 0, func(c *config) { c.readyStagger = 400 * time.Millisecond },
			[]time.Duration{0, 6 * time.Second}, counts{pods: 3, ready: 3, available: 3},
			"the third slot is 6s"},
		{"stagger: failing pods hold no slot", 2, 0, func(c *config) { c.readyStagger = time.Second; c.failingImages = map[string]bool{"bad": true} },
			[]time.Duration{0, time.Minute}, counts{pods: 2},
			"a failing pod is never ready, stagger or not"},
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
		tick     time.Duration
		now      time.Duration
		plan     deploysync.Plan
		changeAt time.Duration // -1: none
		want     time.Duration
		wantOK   bool
		reason   string
		// draws rate-limited adds at now come before, then a Forget if
		// forget: the workqueue's state the step meets.
		draws  int
		forget bool
	}{
		{"idle", time.Second, 5 * time.Second, deploysync.Plan{}, -1, 0, false, "nothing written, nothing due: the run is over", 0, false},
		{"requeue after rounds up", time.Second, 5 * time.Second, deploysync.Plan{RequeueAfter: 1500 * time.Millisecond}, -1, 7 * time.Second, true,
			"the requeue comes at 6.5s; the next tick at or after it is 7s", 0, false},
		{"requeue after, 10ms tick", 10 * time.Millisecond, 5 * time.Second, deploysync.Plan{RequeueAfter: 1505 * time.Millisecond}, -1, 6510 * time.Millisecond, true,
			"the requeue comes at 6.505s; the next 10 ms tick at or after it is 6.51s", 0, false},
		{"requeue now", time.Second, 5 * time.Second, deploysync.Plan{Requeue: true}, -1, 6 * time.Second, true, "a rate-limited requeue is the next tick", 0, false},
		{"requeue now, default tick", defaults().tick, 5 * time.Second, deploysync.Plan{Requeue: true}, -1, 5010 * time.Millisecond, true, "at the default tick of 10 ms the next tick is 5.01s", 0, false},
		{"requeue now, bucket spent", defaults().tick, 5 * time.Second, deploysync.Plan{Requeue: true}, -1, 5100 * time.Millisecond, true,
			"100 adds at this instant took the bucket's 100 tokens: the next waits 100ms for one, at 10 a second", 100, true},
		{"failed sync backs off", defaults().tick, 5 * time.Second, deploysync.Plan{Err: errTest}, -1, 5040 * time.Millisecond, true,
			"the fourth failure in a row waits 5ms * 2^3 = 40ms", 3, false},
		{"failed sync dropped", defaults().tick, 5 * time.Second, deploysync.Plan{Err: errTest}, -1, 0, false,
			"after 15 retries the controller drops the key, and nothing else is due", 15, false},
		{"change due", time.Second, 5 * time.Second, deploysync.Plan{}, 30 * time.Second, 30 * time.Second, true, "a scripted change wakes the run", 0, false},
		{"busy", time.Second, 5 * time.Second, deploysync.Plan{Actions: nil, Err: errTest}, -1, 6 * time.Second, true, "an error is retried at the next tick", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			cfg := defaults()
			cfg.tick = tt.tick
			r := &runner{cfg: &cfg, now: tt.now, world: newWorld(&cfg, time.Time{}), lastPlan: tt.plan,
				state: deploysync.State{Deployment: &appsv1.Deployment{}}}
			if tt.changeAt >= 0 {
				r.changes = []Change{{At: tt.changeAt}}
			}
			for range tt.draws {
				r.queue.When(tt.now)
			}
			if tt.forget {
				r.queue.Forget()
			}
			got, ok := r.nextTime()
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("nextTime = %v, %v; want %v, %v (%s)", got, ok, tt.want, tt.wantOK, tt.reason)
			}
		})
	}
}

// TestNextTimeEndlessRequeue: a rate-limited requeue with nothing else due
// ends the run when the Progressing condition is NewReplicaSetAvailable,
// which upstream never times out (every later sync would decide the same),
// and not for another reason, whose deadline may still time it out.
func TestNextTimeEndlessRequeue(t *testing.T) {
	for _, tt := range []struct {
		reason  string
		plan    deploysync.Plan
		changes bool
		wantOK  bool
		why     string
	}{
		{deployutil.ReasonNewReplicaSetAvailable, deploysync.Plan{Requeue: true}, false, false, "never times out: the loop changes nothing"},
		{deployutil.ReasonReplicaSetUpdated, deploysync.Plan{Requeue: true}, false, true, "the deadline is less than a second away: the next syncs time it out"},
		{deployutil.ReasonNewReplicaSetAvailable, deploysync.Plan{Requeue: true, Actions: []action.Action{&action.Event{}}}, false, true, "the sync wrote: its informer events come back"},
		{deployutil.ReasonNewReplicaSetAvailable, deploysync.Plan{Requeue: true}, true, true, "a scripted change is due"},
	} {
		cfg := defaults()
		d := &appsv1.Deployment{}
		d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: tt.reason}}
		r := &runner{cfg: &cfg, now: time.Second, world: newWorld(&cfg, time.Time{}), lastPlan: tt.plan, state: deploysync.State{Deployment: d}}
		if tt.changes {
			r.changes = []Change{{At: time.Minute}}
		}
		if _, ok := r.nextTime(); ok != tt.wantOK {
			t.Errorf("%s, %d actions, changes %v: next step %v, want %v (%s)", tt.reason, len(tt.plan.Actions), tt.changes, ok, tt.wantOK, tt.why)
		}
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

func TestNodeSpreading(t *testing.T) {
	for _, tt := range []struct {
		name    string
		nodes   int
		pods    int
		deleted []int // indexes of pods deleted after all were created
		want    []int // pods per node after one more pod
		reason  string
	}{
		{"one node", 1, 4, nil, []int{5}, "the default puts every pod on node-1"},
		{"round robin", 3, 7, nil, []int{3, 3, 2}, "each pod goes to the node with the fewest, ties to the lowest number"},
		{"fills the gap", 3, 6, []int{4}, []int{2, 2, 2}, "after node-2 lost a pod, the next pod goes there"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			cfg := defaults()
			cfg.nodes = tt.nodes
			w := newWorld(&cfg, time.Time{})
			var ps []pod
			for range tt.pods {
				ps = append(ps, w.newPod(0, 0, 0))
			}
			for _, i := range tt.deleted {
				w.leave(&ps[i])
			}
			w.newPod(0, 0, 0)
			if !slices.Equal(w.perNode, tt.want) {
				t.Errorf("pods per node %v, want %v (%s)", w.perNode, tt.want, tt.reason)
			}
		})
	}
}

// TestReadyStaggerSlots checks the slots of WithReadyStagger: a grid of the
// stagger from the start, one pod per slot, in creation order, never
// before a pod's due time.
func TestReadyStaggerSlots(t *testing.T) {
	cfg := defaults()
	cfg.readyStagger = 500 * time.Millisecond
	w := newWorld(&cfg, time.Time{})
	rs := testRS("a", 2, 0)
	rs.Spec.Template.Spec.Containers[0].Image = "good"
	var ready []time.Duration
	for _, now := range []time.Duration{10 * time.Millisecond, 10 * time.Millisecond, 5300 * time.Millisecond, 9 * time.Second} {
		ready = append(ready, w.startPod(rs, now).ready)
	}
	want := []time.Duration{
		5500 * time.Millisecond,  // due 5.01s: the next grid point
		6000 * time.Millisecond,  // due 5.01s too: the slot after
		10500 * time.Millisecond, // due 10.3s: the next grid point, free
		14000 * time.Millisecond, // due 14s, on the grid
	}
	if !slices.Equal(ready, want) {
		t.Errorf("ready times %v, want %v", ready, want)
	}
}

// TestReadyStaggerRelease checks that a pod deleted before its ready slot
// gives the slot back: the pods queued behind it move up, never before
// their due time, and the end of the queue (where the next pod created
// queues) moves up with them.
func TestReadyStaggerRelease(t *testing.T) {
	ms := time.Millisecond
	for _, tt := range []struct {
		name   string
		sizes  []int32         // ReplicaSets created at 0, in order
		late   int32           // pods of a last ReplicaSet created at 3s
		down   map[int]int32   // at 4s: ReplicaSet index → new size
		want   []time.Duration // ready times of the active pods after 4s, by ReplicaSet and creation
		end    time.Duration   // the last slot given after 4s
		reason string
	}{
		{"the first pods of a batch", []int32{4}, 0, map[int]int32{0: 2}, []time.Duration{5200 * ms, 5600 * ms}, 5600 * ms,
			"slots 5.2 to 6.4s; the two deleted (lowest UIDs, a tie of not-ready pods) held 5.2 and 5.6s, the two left take them"},
		{"a pod in the middle of the queue", []int32{2, 2}, 0, map[int]int32{0: 1}, []time.Duration{5200 * ms, 5600 * ms, 6000 * ms}, 6000 * ms,
			"a's first pod held 5.2s: a's second and b's two move up one slot each"},
		{"no slot before the due time", []int32{2}, 2, map[int]int32{0: 0}, []time.Duration{8000 * ms, 8400 * ms}, 8400 * ms,
			"a's pods (5.2 and 5.6s) go; the late pods are due at 8s and keep 8s and 8.4s"},
		{"the last slot released", []int32{2, 1}, 0, map[int]int32{1: 0}, []time.Duration{5200 * ms, 5600 * ms}, 5600 * ms,
			"b's pod held the last slot, 6s: the queue ends at 5.6s again, so the next pod created can take 6s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := defaults()
			cfg.readyStagger = 400 * ms
			w := newWorld(&cfg, time.Time{})
			rs := func(name string, n int32) *appsv1.ReplicaSet {
				r := testRS(name, n, 0)
				r.Spec.Template.Spec.Containers[0].Image = "good"
				return r
			}
			var rss []*appsv1.ReplicaSet
			for i, n := range tt.sizes {
				rss = append(rss, rs(string(rune('a'+i)), n))
			}
			rss = w.step(rss, 0)
			if tt.late > 0 {
				rss = w.step(append(rss, rs("late", tt.late)), 3*time.Second)
			}
			for i, n := range tt.down {
				r := rss[i].DeepCopy()
				r.Spec.Replicas = ptr.To(n)
				rss[i] = r
			}
			rss = w.step(rss, 4*time.Second)
			var got []time.Duration
			for _, r := range rss {
				for _, p := range w.byUID[r.UID].active {
					got = append(got, p.ready)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("ready times %v, want %v (%s)", got, tt.want, tt.reason)
			}
			if w.lastSlot != tt.end {
				t.Errorf("last slot %v, want %v (%s)", w.lastSlot, tt.end, tt.reason)
			}
		})
	}
}
