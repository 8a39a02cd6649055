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

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/replicaset"
	"github.com/deploysync/deploysync/simulate"
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
// peak exceed the simulator's), and the peak with such creates put after
// the deletions they overtook (what the comparison then asserts) is the
// course without them. The resourceVersions are the commit order, as one
// etcd gives them.
func TestSimRecorderOvertaken(t *testing.T) {
	for _, tt := range []struct {
		name string
		// steps: "rs NAME SIZE" writes a ReplicaSet's size, "pod NAME RS"
		// creates a pod, "del NAME RS" deletes one.
		steps     []string
		overtaken int   // pods that overtook web-1's scale-down
		peak      int32 // pods not terminating at the most
		inOrder   int32 // the peak with the overtaking creates after the deletions they overtook
		reason    string
	}{
		{"delete first", []string{"rs web-1 1", "rs web-2 1", "del b web-1", "pod c web-2"}, 0, 2, 2,
			"one ReplicaSet worker's usual order: the old ReplicaSet's delete, then the new one's create, as the simulator's world does; nothing moved, the peak as recorded"},
		{"create first", []string{"rs web-1 1", "rs web-2 1", "pod c web-2", "del b web-1"}, 1, 3, 2,
			"the new ReplicaSet's create, for a write after the scale-down, reached the apiserver before the old one's delete: one pod more than the simulator's world has, and none more once the create is put after the delete"},
		{"earlier write's create", []string{"rs web-2 1", "rs web-1 1", "pod c web-2", "del b web-1"}, 0, 3, 3,
			"the create answers the scale-up written before the scale-down (a slow-start batch still going): the writes are done in their order, nothing moved"},
		{"earlier write's create, a later scale-up meanwhile", []string{"rs web-2 1", "rs web-1 1", "rs web-2 2", "pod c web-2", "pod d web-2", "del b web-1"}, 1, 4, 3,
			"1000 replicas' start: the first pod answers the scale-up before the scale-down, the second one past it, which the scale-down's delete should have preceded; in order the second comes after the delete: 3, not 4"},
		{"overtaken deletion never comes", []string{"rs web-1 1", "rs web-2 1", "pod c web-2"}, 1, 3, 3,
			"the scale-down's delete is not in the record: the create that passed it goes to the record's end, where it still makes 3"},
		{"two deletions, one create between", []string{"rs web-1 0", "rs web-2 2", "del a web-1", "pod c web-2", "del b web-1", "pod d web-2"}, 1, 2, 2,
			"−2 then +2: c comes after a's delete but before b's, which it overtakes; at 2 either way (a's delete made room), so moving it changes nothing"},
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
			if got, _ := r.overtaking(r.downs[0]); len(got) != tt.overtaken {
				t.Errorf("%d pods overtook the scale-down, want %d (%s)", len(got), tt.overtaken, tt.reason)
			}
			res, _, _ := r.result(r.origin)
			if want := min(tt.overtaken, 1); len(res.Overtaken) != want {
				t.Errorf("overtaken scale-downs %q, want %d (%s)", res.Overtaken, want, tt.reason)
			}
			if res.PeakPods != tt.peak || res.PeakInOrder != tt.inOrder {
				t.Errorf("peak %d, in order %d; want %d and %d (%s)", res.PeakPods, res.PeakInOrder, tt.peak, tt.inOrder, tt.reason)
			}
		})
	}
}

// witnessT is the clock of the witness tests' scale-downs.
var witnessT = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)

// witnessPod is a running pod on the e2e cluster's node, created
// createdAgo before witnessT and, for readyAgo > 0, Ready since readyAgo
// before it; its UID is its name.
func witnessPod(name string, readyAgo, createdAgo time.Duration) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name), CreationTimestamp: metav1.NewTime(witnessT.Add(-createdAgo))},
		Spec:       corev1.PodSpec{NodeName: "no-kubelet"},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
	if readyAgo > 0 {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(witnessT.Add(-readyAgo))}}
	}
	return p
}

// witnessRank is p's replicaset.Rank.
func witnessRank(p *corev1.Pod) replicaset.Rank {
	_, r := replicaset.DeletionOrder([]*corev1.Pod{p}, nil, witnessT)
	return r[0]
}

// TestUpstreamAllows gives upstreamAllows real scale-downs and a
// simulator's choice that differs in rank class, and checks the witness it
// finds (or that it finds none) against what upstream's ranking does with
// those pods: the ranking's clock moves a ready age across a bucket edge,
// or the cache's order decides among three pods upstream's comparison
// orders in a cycle.
func TestUpstreamAllows(t *testing.T) {
	T := witnessT
	pod, rank := witnessPod, witnessRank
	// Ready 8.6 s ago: bucket 33 at T (2^33 ns is 8.59 s), 32 until 10 ms
	// before it. At T upstream deletes b (ready 5 s ago, bucket 32); 10 ms
	// or more earlier a and b tie in bucket 32 and the lower UID, a, goes.
	a, b := pod("a", 8600*time.Millisecond, 10*time.Second), pod("b", 5*time.Second, 10*time.Second)
	// 8.7 s ago: the edge is 110 ms before T.
	a2 := pod("a", 8700*time.Millisecond, 10*time.Second)
	// A cycle: x before z (same ready bucket, lower UID), z before y (the
	// same), y before x (the same Ready time, so creation decides: y's
	// bucket 36 against x's 37). Sorting [x, y, z] deletes y first,
	// [x, z, y] deletes x.
	x, y, z := pod("1-x", 100*time.Second, 140*time.Second), pod("3-y", 100*time.Second, 100500*time.Millisecond),
		pod("2-z", 110*time.Second, 120*time.Second)
	for _, tt := range []struct {
		name   string
		d      *scaleDown
		want   []replicaset.Rank
		ok     bool
		says   string
		reason string
	}{
		{"clock", &scaleDown{at: T.Add(-30 * time.Millisecond), ranked: T, before: []*corev1.Pod{a, b}, deleted: []string{"b"}},
			[]replicaset.Rank{rank(a)}, true, "from 80ms to 10.065408ms before",
			"from 80 ms before T (30 ms, less the 50 ms slack) a's ready age is in bucket 32, where its UID puts it first"},
		{"clock outside the window", &scaleDown{at: T, ranked: T, before: []*corev1.Pod{a2, b}, deleted: []string{"b"}},
			[]replicaset.Rank{rank(a2)}, false, "no clock from 50ms",
			"a2's ready age leaves bucket 33 only 110 ms before T, outside the 50 ms window"},
		{"the same pods, a wider window", &scaleDown{at: T.Add(-200 * time.Millisecond), ranked: T, before: []*corev1.Pod{a2, b}, deleted: []string{"b"}},
			[]replicaset.Rank{rank(a2)}, true, "from 250ms to 110.065408ms before",
			"with the scale-down seen 200 ms before T the window reaches 250 ms back, past a2's edge"},
		{"cache order", &scaleDown{at: T, ranked: T, before: []*corev1.Pod{x, y, z}, deleted: []string{"3-y"}},
			[]replicaset.Rank{rank(x)}, true, "cache order",
			"in the recorder's order upstream deletes y; in an order with z before y it deletes x, whose creation bucket is 37"},
		{"no order makes it", &scaleDown{at: T, ranked: T, before: []*corev1.Pod{x, y, z}, deleted: []string{"3-y"}},
			[]replicaset.Rank{rank(pod("w", 0, 5*time.Second))}, false, "no clock",
			"every pod on the cluster is ready: no order deletes a pod not ready"},
		{"a different count", &scaleDown{at: T, ranked: T, before: []*corev1.Pod{a, b}, deleted: []string{"b"}},
			[]replicaset.Rank{rank(a), rank(b)}, false, "deleted 2 pods, the cluster 1",
			"two deletions against one: no ranking explains a different number"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			why, ok := upstreamAllows(tt.d, tt.want)
			if ok != tt.ok || !strings.Contains(why, tt.says) {
				t.Errorf("upstreamAllows = %v, %q; want %v and %q (%s)", ok, why, tt.ok, tt.says, tt.reason)
			}
		})
	}
	// upstreamPicks asks the same of the very pods, not their classes.
	w := pod("w", 0, 5*time.Second)
	for _, tt := range []struct {
		name   string
		d      *scaleDown
		want   []string
		ok     bool
		says   string
		reason string
	}{
		{"picks: the cluster's own", &scaleDown{at: T, ranked: T, before: []*corev1.Pod{x, y, z}, deleted: []string{"3-y"}},
			[]string{"3-y"}, true, "the recorder's order", "in the recorder's order upstream deletes y"},
		{"picks: the cycle's other pod", &scaleDown{at: T, ranked: T, before: []*corev1.Pod{x, y, z}, deleted: []string{"3-y"}},
			[]string{"1-x"}, true, "cache order", "an order with z before y deletes x"},
		{"picks: never first", &scaleDown{at: T, ranked: T, before: []*corev1.Pod{x, w}, deleted: []string{"w"}},
			[]string{"1-x"}, false, "no clock", "w is not ready: upstream deletes it before x in every order"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			why, ok := upstreamPicks(tt.d, tt.want)
			if ok != tt.ok || !strings.Contains(why, tt.says) {
				t.Errorf("upstreamPicks = %v, %q; want %v and %q (%s)", ok, why, tt.ok, tt.says, tt.reason)
			}
		})
	}
}

// TestOrderCensus counts the classes upstream's own ranking
// (pkg/controller's ActivePodsWithRanks, through upstreamOrder, which
// also holds replicaset.DeletionOrder to it) deletes over cache orders of
// the same pods at one clock.
func TestOrderCensus(t *testing.T) {
	T, pod, rank := witnessT, witnessPod, witnessRank
	// TestUpstreamAllows' cycle: x before z, z before y, y before x; y
	// and z are of one class (ready and created in bucket 36), x of
	// another (created in bucket 37).
	x, y, z := pod("1-x", 100*time.Second, 140*time.Second), pod("3-y", 100*time.Second, 100500*time.Millisecond),
		pod("2-z", 110*time.Second, 120*time.Second)
	a, b := pod("a", 8600*time.Millisecond, 10*time.Second), pod("b", 5*time.Second, 10*time.Second)
	for _, tt := range []struct {
		name         string
		d            *scaleDown
		sim          []replicaset.Rank
		simPods      []string
		sets         int
		podSets      int
		real, simToo bool // some orders give the cluster's, the simulator's classes
		reason       string
	}{
		{"the cycle decides", &scaleDown{at: T, ranked: T, before: []*corev1.Pod{x, y, z}, deleted: []string{"3-y"}},
			[]replicaset.Rank{rank(x)}, []string{"1-x"}, 2, 3, true, true,
			"in [x, y, z] y goes first, in [x, z, y] x, in [y, z, x] z: two classes, by the order alone"},
		{"buckets decide", &scaleDown{at: T, ranked: T, before: []*corev1.Pod{a, b}, deleted: []string{"b"}},
			[]replicaset.Rank{rank(a)}, []string{"a"}, 1, 1, true, false,
			"at T a is ready in bucket 33, b in 32: b goes first in every order"},
		{"the same pods, two deleted", &scaleDown{at: T, ranked: T, before: []*corev1.Pod{x, y, z}, deleted: []string{"3-y", "2-z"}},
			[]replicaset.Rank{rank(x), rank(z)}, []string{"1-x", "2-z"}, 2, 3, true, true,
			"two of the cycle go: y and z in some orders ([y, z, x] sorts to [z, y, x]), x with one of them in others ([x, y, z] to [y, x, z])"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := orderCensus(tt.d, tt.sim, tt.simPods)
			if err != nil {
				t.Fatalf("orderCensus: %v", err)
			}
			if c.sets != tt.sets || (c.real > 0) != tt.real || (c.sim > 0) != tt.simToo || c.orders != simRankCensus || c.pods != len(tt.d.before) ||
				c.podSets != tt.podSets || (c.simPods > 0) != tt.simToo || c.realPods == 0 {
				t.Errorf("census %+v (%v): want %d sets of classes and %d of pods, the cluster's in some orders %v, the simulator's %v (%s)",
					c, c, tt.sets, tt.podSets, tt.real, tt.simToo, tt.reason)
			}
			// Two sets, the cluster's and the simulator's: every order
			// gives one of them.
			if tt.sets == 2 && tt.real && tt.simToo && c.real+c.sim != c.orders {
				t.Errorf("census %+v: the two sets should fill the %d orders (%s)", c, c.orders, tt.reason)
			}
		})
	}
}

// TestSimPool rebuilds the simulator's pods at a real scale-down from the
// cluster's after the two worlds deleted different steady pods before it.
func TestSimPool(t *testing.T) {
	p := func(name string) *corev1.Pod { return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}} }
	a, b, c, d := p("a"), p("b"), p("c"), p("d")
	seen := map[string]*corev1.Pod{"a": a, "b": b, "c": c, "d": d}
	for _, tt := range []struct {
		name              string
		simGone, realGone []string
		want              []string
		note              string
		reason            string
	}{
		{"same deletions", []string{"d"}, []string{"d"}, []string{"a", "b", "c"}, "",
			"both worlds deleted d: the simulator has the cluster's pods"},
		{"different deletions", []string{"a"}, []string{"d"}, []string{"b", "c", "d"}, "less 1 it deleted before, with 1",
			"the simulator deleted a (still on the cluster) and kept d (deleted on the cluster)"},
		{"a pod of the simulator's own", []string{"x"}, []string{"e"}, []string{"a", "b", "c"}, "",
			"x is no pod of the cluster's and e was never seen: nothing to move"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			set := func(ns []string) map[string]bool {
				m := map[string]bool{}
				for _, n := range ns {
					m[n] = true
				}
				return m
			}
			pool, note := simPool(&scaleDown{before: []*corev1.Pod{a, b, c}}, set(tt.simGone), set(tt.realGone), seen)
			var got []string
			for _, q := range pool {
				got = append(got, q.Name)
			}
			if !slices.Equal(got, tt.want) || !strings.Contains(note, tt.note) || (tt.note == "") != (note == "") {
				t.Errorf("simPool = %v, %q; want %v, %q (%s)", got, note, tt.want, tt.note, tt.reason)
			}
		})
	}
}

// TestSimFailDraws checks what the driver relies on to fail the cluster's
// pods as the simulator fails its own: the draws read from a run are one
// per created pod, the same at either tick simreal runs, and they are the
// seed's (another seed draws otherwise).
func TestSimFailDraws(t *testing.T) {
	sc, state := simRealSteadyOf(t, "has a failure rate", func(s simRealScenario) bool { return s.failureRate > 0 })
	draws := func(sc simRealScenario, tick time.Duration) []bool {
		tl, err := simulate.Run(state, append(simRealOptions(sc), simulate.WithTick(tick))...)
		if err != nil {
			t.Fatal(err)
		}
		if tl.Outcome != sc.want {
			t.Fatalf("tick %v: outcome %s, want %s", tick, tl.Outcome, sc.want)
		}
		return simFailDraws(t, tl)
	}
	slow, fast := draws(sc, time.Second), draws(sc, simRealTick)
	if !slices.Equal(slow, fast) {
		t.Errorf("draws at 1 s %v, at %v %v: the driver's would depend on the tick", slow, simRealTick, fast)
	}
	failed := 0
	for _, f := range slow {
		if f {
			failed++
		}
	}
	if failed == 0 || failed == len(slow) {
		t.Errorf("%d of %d created pods fail: the scenario tests no draw", failed, len(slow))
	}
	other := sc
	other.seed++
	if o := draws(other, time.Second); slices.Equal(o, slow) {
		t.Errorf("seed %d draws as seed %d does (%v): the draws are not read from the run", other.seed, sc.seed, o)
	}
	t.Logf("seed %d: %d pods created, failing %v", sc.seed, len(slow), slow)
}

// TestSimDeletedClasses reads the simulator's deleted pods at the
// cluster's clock of the same scale-down: the same pod, ranked by the two
// worlds 10 ms apart across a bucket edge, is one class, and a pod the
// cluster does not hold is still read at that clock.
func TestSimDeletedClasses(t *testing.T) {
	t0 := witnessT
	// Ready 8.585 s before the simulator's step: bucket 32 there (2^33 ns
	// is 8.59 s), bucket 33 at the cluster's clock 10 ms later.
	step := t0.Add(10 * time.Second)
	a := witnessPod("a", 0, 20*time.Second)
	a.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue,
		LastTransitionTime: metav1.NewTime(step.Add(-8585 * time.Millisecond))}}
	b := witnessPod("b", 0, 20*time.Second)
	b.Status.Conditions = a.Status.Conditions
	tl := &simulate.Timeline{Start: t0, Steps: []simulate.Step{
		{Time: step, Deleted: []simulate.Deletion{{ReplicaSet: "web-1", Pod: "a", Rank: witnessRank(a)}}},
		{Time: step.Add(time.Second), Deleted: []simulate.Deletion{{ReplicaSet: "web-1", Pod: "b", Rank: witnessRank(b)}}},
	}}
	real := map[string][]*scaleDown{"web-1": {{rs: "web-1", at: step, ranked: step.Add(10 * time.Millisecond), before: []*corev1.Pod{a}, deleted: []string{"a"}}}}
	got := simDeletedClasses(tl, t0, real)["web-1"]
	if want := classesAt(rankedDeleted(real["web-1"][0]), real["web-1"][0].ranked); len(got) != 2 || got[0] != want {
		t.Fatalf("simDeletedClasses = %q; want first %q: the pod the cluster deleted too, read at its clock", got, want)
	}
	if own := classesAt([]replicaset.Rank{witnessRank(a)}, step); own == got[0] {
		t.Fatalf("at the simulator's own step the class is %q, the same: the row does not cross the edge", own)
	}
	// The second has no real counterpart: the simulator's own step.
	if want := classesAt([]replicaset.Rank{witnessRank(b)}, step.Add(time.Second)); got[1] != want {
		t.Errorf("unpaired scale-down: %q, want %q at the simulator's step", got[1], want)
	}
}

// TestSimFirstPods reads when the simulated refused ReplicaSet first has
// pods: at the retry after the lift (10.252 s, the first 10 ms tick after
// it: 10.26 s), and never while the refusal lasts.
func TestSimFirstPods(t *testing.T) {
	sc, state := simRealSteadyOf(t, "ends a refusal", func(s simRealScenario) bool { return s.refusedUntil > 0 })
	for _, tt := range []struct {
		until, want time.Duration
		reason      string
	}{
		{sc.refusedUntil, 10260 * time.Millisecond, "the retry at 10.252s makes the pods, seen at the next tick"},
		{0, -1, "refused to the end: the new ReplicaSet never has a pod"},
	} {
		tl, err := simulate.Run(state, append(simRealOptions(sc), simulate.WithTick(simRealTick),
			simulate.WithRefusedImageUntil(sc.refused, "refused", tt.until))...)
		if err != nil {
			t.Fatal(err)
		}
		if got := simFirstPods(tl); got != tt.want {
			t.Errorf("until %v: first pods at %v, want %v (%s)", tt.until, got, tt.want, tt.reason)
		}
	}
}

// simRealSteadyOf returns the last simreal scenario for which pick holds
// (what says what it has) and the simulator's steady state of its
// Deployment, as the cluster's would be read.
func simRealSteadyOf(t *testing.T, what string, pick func(simRealScenario) bool) (simRealScenario, deploysync.State) {
	t.Helper()
	var sc simRealScenario
	for _, s := range simRealScenarios {
		if pick(s) {
			sc = s
		}
	}
	if sc.name == "" {
		t.Fatalf("no simreal scenario %s", what)
	}
	d := deployutil.SetDefaults(simRealDeployment(sc))
	d.Namespace, d.UID, d.Generation = "simreal", "web-uid", 1
	state, err := simulate.Steady(d, simStart)
	if err != nil {
		t.Fatal(err)
	}
	return sc, state
}
