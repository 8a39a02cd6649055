package simulate

import (
	"encoding/binary"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/kversion"
	"github.com/deploysync/deploysync/internal/ratelimit"
	"github.com/deploysync/deploysync/replicaset"
)

// never is the time of an event that does not happen.
const never = time.Duration(math.MaxInt64)

// pod is one simulated pod, kept compact: times are offsets from the start
// of the run. A pod is Pending until started, Running after; ready from
// ready on (never, for a failing pod); a terminating pod is gone at gone.
type pod struct {
	id      uint64
	created time.Duration
	started time.Duration
	ready   time.Duration
	gone    time.Duration
	// node is the index of the pod's node (see world.nodeNames); -1 for a
	// terminating input pod that was never scheduled.
	node int32
	// src is the input pod this one was made from (see [Run]), nil for a pod
	// the world made: its object keeps src's name, UID and annotations, and
	// the spec and container statuses the deletion ranking reads.
	src *corev1.Pod
	// obj is the materialised object (for Recreate and for the ranking of a
	// scale-down) and the state it shows.
	obj      *corev1.Pod
	objState uint8
}

// podState folds what a materialised pod shows into a small number, so a
// cached object is rebuilt only when it changed.
func (p *pod) state(now time.Duration, terminating bool) uint8 {
	var s uint8
	if p.started <= now {
		s |= 1
	}
	if p.ready <= now {
		s |= 2
	}
	if terminating {
		s |= 4
	}
	return s + 8 // 0 means "no object yet"
}

// rsPods are the pods of one ReplicaSet: active (not terminating) and
// terminating.
type rsPods struct {
	active      []pod
	terminating []pod
}

// counts are a ReplicaSet's pods as its status reports them.
type counts struct {
	pods, ready, available, terminating int32
}

// world is the cluster around the Deployment controller: the ReplicaSet
// controller and the kubelets. It keeps pods compactly, by the UID of their
// ReplicaSet; pods of deleted ReplicaSets linger as orphans until gone.
type world struct {
	cfg   *config
	start time.Time
	rng   *rand.Rand
	// cacheRng shuffles the pods ranked at a scale-down (WithCacheOrder);
	// nil lists them in creation order.
	cacheRng *rand.Rand
	nextID   uint64
	byUID    map[types.UID]*rsPods
	orphans  []pod
	// nodeNames are the names of the nodes; perNode counts the active pods
	// (of every ReplicaSet the world holds) on each, for the spreading.
	nodeNames []string
	perNode   []int
	// deleted are the deletions of the last step, in order; refused the
	// ReplicaSets first refused pods in it (see [WithRefusedImage]).
	deleted  []Deletion
	refused  []Refusal
	admitted []Admission
	// lastSlot is the ready time of the last pod given a slot (see
	// [WithReadyStagger]); slotted reports whether one was.
	lastSlot time.Duration
	slotted  bool
	// retries are the ReplicaSet controller's workqueue for the
	// ReplicaSets whose pods are refused until a time, by UID (see
	// [WithRefusedImageUntil]).
	retries map[types.UID]*rsRetry
	// last is the time of the world's last step.
	last time.Duration
	// done is step's buffer of the ReplicaSets' outcomes, kept between
	// steps.
	done []outcome
}

// rsRetry is the ReplicaSet controller's workqueue for one ReplicaSet
// whose pods are refused for a time (see [WithRefusedImageUntil],
// [WithPodQuota]): its rate limiter, the pending rate-limited add, and
// the worker's sync of it. A sync takes time (see
// [WithReplicaSetSyncTime]); what comes meanwhile — an event, an add due
// — makes the key dirty, and one sync follows at the end for all of it.
type rsRetry struct {
	lim ratelimit.Limiter
	// timer is when the pending rate-limited add comes, never for none.
	timer time.Duration
	// queued is when a worker next takes the key (an event came, or an add
	// fell due), never for none; free is when its last sync ended.
	queued, free time.Duration
	// write: the next sync writes the ReplicaSet's status (a change came
	// that it shows), and that write is an event again.
	write bool
	// seen is the object the world left at its last step: another is the
	// Deployment controller's write (or, for a new ReplicaSet, create) of
	// the step before, an informer event.
	seen *appsv1.ReplicaSet
	// room is when the quota of [WithPodQuota] last came to have room for
	// a pod, as the world foresaw it (never: not yet).
	room time.Duration
}

// syncTime is how long the ReplicaSet controller's sync of a refused
// ReplicaSet takes (see [WithReplicaSetSyncTime]).
type syncTime struct{ create, status time.Duration }

// arrive is an event of the ReplicaSet at at (write: one its status will
// show): the key is queued then, or at the end of a sync still running.
func (rt *rsRetry) arrive(at time.Duration, write bool) {
	rt.write = rt.write || write
	rt.queued = min(rt.queued, max(at, rt.free))
}

// fail is a sync from at whose creates the apiserver refused: it ends
// after the refused create (and its status write, if it has one to make,
// which is an event at its end); then the key is added rate-limited, the
// queue keeping the earlier of two pending adds.
func (rt *rsRetry) fail(at time.Duration, d syncTime) {
	end := at + d.create
	if rt.write {
		end += d.status
	}
	rt.free = end
	rt.timer = min(rt.timer, end+rt.lim.When(end))
	if rt.write {
		rt.write = false
		rt.arrive(end, false)
	}
}

// run runs the syncs that start by t: each pending add due is an event; a
// sync before until fails. It reports the first sync at or after until,
// the one that creates the pods (taken off the queue), if one came.
func (rt *rsRetry) run(t, until time.Duration, d syncTime) (time.Duration, bool) {
	for {
		if rt.timer <= t && rt.timer < rt.queued {
			at := rt.timer
			rt.timer = never
			rt.arrive(at, false)
			continue
		}
		if rt.queued > t {
			return 0, false
		}
		at := rt.queued
		rt.queued = never
		if at >= until {
			return at, true
		}
		rt.fail(at, d)
	}
}

// syncs runs the ReplicaSet controller's syncs of rs from the world's
// last step, at last, to now, and reports whether one of them comes at or
// after until and creates the pods. The Deployment controller's write at
// last is an event, whose status write (a new ReplicaFailure condition or
// observedGeneration) is an event again; the events of rs's pods too (see
// podEvents), and each pending add due.
func (rt *rsRetry) syncs(rs *appsv1.ReplicaSet, last, now, until time.Duration, events []podEvent, d syncTime) (at time.Duration, admitted bool) {
	if rt.seen != rs {
		if at, ok := rt.run(last, until, d); ok {
			return at, true
		}
		rt.arrive(last, facts.ReplicaFailure(rs.Status.Conditions) == nil || rs.Status.ObservedGeneration != rs.Generation)
	}
	for _, e := range events {
		if at, ok := rt.run(e.at, until, d); ok {
			return at, true
		}
		rt.arrive(e.at, e.write)
	}
	return rt.run(now, until, d)
}

// podEvent is a change of a ReplicaSet's pod the ReplicaSet controller
// syncs on: at, and whether the ReplicaSet's status shows it.
type podEvent struct {
	at    time.Duration
	write bool
}

// podEvents are the changes of rp's pods after last up to now, in time
// order: a pod running (no status change), ready or gone (a status
// write).
func podEvents(rp *rsPods, last, now time.Duration) []podEvent {
	var es []podEvent
	in := func(t time.Duration) bool { return t > last && t <= now }
	for i := range rp.active {
		p := &rp.active[i]
		if in(p.started) {
			es = append(es, podEvent{p.started, false})
		}
		if in(p.ready) {
			es = append(es, podEvent{p.ready, true})
		}
	}
	for i := range rp.terminating {
		if in(rp.terminating[i].gone) {
			es = append(es, podEvent{rp.terminating[i].gone, true})
		}
	}
	slices.SortStableFunc(es, func(a, b podEvent) int { return compareDur(a.at, b.at) })
	return es
}

// admittedAt is when the first sync at or after until comes if no event
// comes first: the syncs queued, the pending adds, each failed sync
// before until adding the next (until is not never).
func (rt *rsRetry) admittedAt(until time.Duration, d syncTime) time.Duration {
	c := *rt
	var hop time.Duration
	for {
		if c.queued == never && max(c.timer, c.free) < until {
			// Only the pending add: a failed sync when it comes (or when
			// the sync running ends), and the next add after its wait. At
			// the limiter's ceiling every hop from here is the same: jump.
			at := max(c.timer, c.free)
			h := d.create + c.lim.When(at+d.create)
			if h == hop {
				return at + (until-at+h-1)/h*h
			}
			hop, c.free, c.timer = h, at+d.create, at+h
			continue
		}
		if at, ok := c.run(until, until, d); ok {
			return at
		}
		// Nothing starts by until any more: the next sync admits.
		return min(c.queued, max(c.timer, c.free))
	}
}

func newWorld(cfg *config, start time.Time) *world {
	n := max(cfg.nodes, 1)
	names := make([]string, n)
	for i := range names {
		names[i] = "node-" + strconv.Itoa(i+1)
	}
	w := &world{cfg: cfg, start: start, rng: rand.New(rand.NewPCG(cfg.seed, 0x5eed)), byUID: map[types.UID]*rsPods{},
		nodeNames: names, perNode: make([]int, n), retries: map[types.UID]*rsRetry{}}
	if cfg.cacheOrder != nil {
		// ChaCha8 rather than PCG: seeds 1, 2, 3 ... give orders as unlike
		// as any (PCG's first shuffles of small, close seeds agree often).
		var key [32]byte
		binary.LittleEndian.PutUint64(key[:], *cfg.cacheOrder)
		w.cacheRng = rand.New(rand.NewChaCha8(key))
	}
	return w
}

// seed creates the initial pods of each ReplicaSet: the input's (see
// seedGiven) for a ReplicaSet with a non-empty entry in given; for the
// others those its status counts describe: available pods ready long ago,
// ready pods that became ready now (available after minReadySeconds), the
// rest just created, and the terminating ones. Under [WithReadyStagger] the
// pods not yet ready queue for their slots at the end, by due time then
// creation, so the slots stay a queue.
func (w *world) seed(rss []*appsv1.ReplicaSet, given map[types.UID][]*corev1.Pod) {
	if !w.cfg.nodesSet {
		// The input's nodes, if its pods name any, are the world's: the
		// pods it creates spread over the cluster's nodes, not a made-up
		// node-1 beside them.
		var names []string
		for _, rs := range rss {
			for _, o := range givenPods(rs, given[rs.UID]) {
				if n := o.Spec.NodeName; n != "" && !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
		if len(names) > 0 {
			slices.Sort(names)
			w.nodeNames, w.perNode = names, make([]int, len(names))
		}
	}
	for _, rs := range rss {
		if ps := given[rs.UID]; len(ps) > 0 {
			w.byUID[rs.UID] = w.seedGiven(rs, ps)
			continue
		}
		st := rs.Status
		rp := &rsPods{active: make([]pod, 0, st.Replicas)}
		w.byUID[rs.UID] = rp
		old := -24 * time.Hour
		for i := int32(0); i < st.Replicas; i++ {
			switch {
			case i < st.AvailableReplicas:
				rp.active = append(rp.active, w.newPod(old, old, old))
			case i < st.ReadyReplicas:
				rp.active = append(rp.active, w.newPod(old, old, 0))
			default:
				rp.active = append(rp.active, w.unslotted(&rs.Spec.Template, 0, w.cfg.startDelay))
			}
		}
		if st.TerminatingReplicas != nil {
			for i := int32(0); i < *st.TerminatingReplicas; i++ {
				p := w.newPod(old, old, old)
				w.leave(&p)
				p.gone = w.cfg.terminateDelay
				rp.terminating = append(rp.terminating, p)
			}
		}
	}
	if w.cfg.readyStagger == 0 {
		return
	}
	var queued []*pod
	for _, rs := range rss {
		rp := w.byUID[rs.UID]
		for i := range rp.active {
			if p := &rp.active[i]; p.ready != never && p.ready > 0 {
				queued = append(queued, p)
			}
		}
	}
	slices.SortStableFunc(queued, func(a, b *pod) int {
		if c := compareDur(a.ready, b.ready); c != 0 {
			return c
		}
		return compareUint(a.id, b.id)
	})
	for _, p := range queued {
		p.ready = w.slot(p.ready)
	}
}

// seedGiven makes the pods of rs from the input's pods listed under its UID
// (see [Run] for the rules; givenPods says which it takes).
func (w *world) seedGiven(rs *appsv1.ReplicaSet, ps []*corev1.Pod) *rsPods {
	mine := givenPods(rs, ps)
	rp := &rsPods{}
	for _, o := range mine {
		created := o.CreationTimestamp.Time.Sub(w.start)
		var p pod
		running := o.Status.Phase == corev1.PodRunning
		readySince, isReady := podReadySince(o)
		switch {
		case o.DeletionTimestamp != nil:
			started, ready := created, never
			if running {
				started = min(created, 0)
				if isReady {
					ready = min(readySince.Sub(w.start), 0)
				}
			} else {
				started = never
			}
			w.nextID++
			p = pod{id: w.nextID, created: created, started: started, ready: ready, node: w.nodeIndex(o.Spec.NodeName)}
			p.gone = o.DeletionTimestamp.Time.Sub(w.start) + w.cfg.terminateDelay
			p.src = o
			rp.terminating = append(rp.terminating, p)
			continue
		case running && isReady:
			ready := min(readySince.Sub(w.start), 0)
			p = w.newPod(created, min(created, ready), ready)
			w.place(&p, o)
		case running:
			p = w.unslotted(&corev1.PodTemplateSpec{Spec: o.Spec}, created, 0)
			w.place(&p, o)
		default:
			p = w.unslotted(&corev1.PodTemplateSpec{Spec: o.Spec}, created, w.cfg.startDelay)
			w.place(&p, o)
		}
		p.src = o
		rp.active = append(rp.active, p)
	}
	return rp
}

// givenPods are the input's pods of rs that the world takes (see [Run]):
// those rs controls, not finished, in creation order (ties by name, then
// UID), the order the world keeps active pods in.
func givenPods(rs *appsv1.ReplicaSet, ps []*corev1.Pod) []*corev1.Pod {
	mine := make([]*corev1.Pod, 0, len(ps))
	for _, o := range ps {
		if o == nil || o.Status.Phase == corev1.PodSucceeded || o.Status.Phase == corev1.PodFailed {
			continue
		}
		if c := metav1.GetControllerOfNoCopy(o); c == nil || c.UID != rs.UID {
			continue
		}
		mine = append(mine, o)
	}
	// Creation order (ties by name, then UID), the order the world keeps
	// active pods in.
	slices.SortStableFunc(mine, func(a, b *corev1.Pod) int {
		if c := a.CreationTimestamp.Time.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		if a.Name != b.Name {
			return strings.Compare(a.Name, b.Name)
		}
		return strings.Compare(string(a.UID), string(b.UID))
	})
	return mine
}

// podReadySince returns when o's Ready condition became True (its creation
// if the condition has no time), and whether it is True.
func podReadySince(o *corev1.Pod) (time.Time, bool) {
	for _, c := range o.Status.Conditions {
		if c.Type == corev1.PodReady {
			if c.Status != corev1.ConditionTrue {
				return time.Time{}, false
			}
			if c.LastTransitionTime.IsZero() {
				return o.CreationTimestamp.Time, true
			}
			return c.LastTransitionTime.Time, true
		}
	}
	return time.Time{}, false
}

// nodeIndex returns the index of the node named name, adding it to the
// world's nodes if new; for "" it returns -1.
func (w *world) nodeIndex(name string) int32 {
	if name == "" {
		return -1
	}
	for i, n := range w.nodeNames {
		if n == name {
			return int32(i)
		}
	}
	w.nodeNames = append(w.nodeNames, name)
	w.perNode = append(w.perNode, 0)
	return int32(len(w.nodeNames) - 1)
}

// place moves p, just made by newPod, to the input pod o's node if it has
// one (else p stays where the world placed it).
func (w *world) place(p *pod, o *corev1.Pod) {
	i := w.nodeIndex(o.Spec.NodeName)
	if i < 0 {
		return
	}
	w.perNode[p.node]--
	w.perNode[i]++
	p.node = i
}

// newPod creates a pod on the node with the fewest active pods, ties to
// the lowest-numbered node (see [WithNodes]).
func (w *world) newPod(created, started, ready time.Duration) pod {
	w.nextID++
	node := 0
	for i, c := range w.perNode {
		if c < w.perNode[node] {
			node = i
		}
	}
	w.perNode[node]++
	return pod{id: w.nextID, created: created, started: started, ready: ready, gone: never, node: int32(node)}
}

// leave takes an active pod off its node's count: it was deleted.
func (w *world) leave(p *pod) { w.perNode[p.node]-- }

// startPod creates a pod of rs at now: it runs after the start delay and is
// ready after the readiness delay, unless it fails.
func (w *world) startPod(rs *appsv1.ReplicaSet, now time.Duration) pod {
	p := w.unslotted(&rs.Spec.Template, now, now+w.cfg.startDelay)
	if w.cfg.readyStagger > 0 && p.ready != never {
		p.ready = w.slot(p.ready)
	}
	return p
}

// unslotted creates a pod created at created with template t that runs at
// started and is due to be ready the readiness delay later, unless it
// fails (t holds a failing image, or the failure rate's draw); the ready
// time is not yet given a slot of [WithReadyStagger].
func (w *world) unslotted(t *corev1.PodTemplateSpec, created, started time.Duration) pod {
	ready := started + w.cfg.readyDelay
	failing := w.cfg.fails(t)
	if w.cfg.failureRate > 0 && w.rng.Float64() < w.cfg.failureRate {
		failing = true
	}
	if failing {
		ready = never
	}
	return w.newPod(created, started, ready)
}

// slot returns the ready time of a pod due to become ready at due under
// [WithReadyStagger]: the first multiple of the stagger at or after due
// that comes after the last slot given. Pods are created in time order
// and all have the same delays, and seed queues the initial pods by due
// time, so due times never decrease and the slots are a queue.
func (w *world) slot(due time.Duration) time.Duration {
	t := w.gridAt(due)
	if w.slotted && t <= w.lastSlot {
		t = w.lastSlot + w.cfg.readyStagger
	}
	w.lastSlot, w.slotted = t, true
	return t
}

// gridAt is the first multiple of the stagger at or after t.
func (w *world) gridAt(t time.Duration) time.Duration {
	s := w.cfg.readyStagger
	return (t + s - 1) / s * s
}

// release gives back the slot of a pod deleted before it became ready (see
// [WithReadyStagger]): the pods queued behind it move up, each to the
// first slot at or after its due time that follows the one before it, as
// if the deleted pod had never been queued. Which of a batch's pods a
// scale-down deletes is then of no consequence to when the others become
// ready (upstream breaks ties between such pods by UID, which is random on
// a real cluster).
func (w *world) release(freed time.Duration) {
	var queued []*pod
	for _, rp := range w.byUID {
		for i := range rp.active {
			if p := &rp.active[i]; p.ready != never && p.ready > freed {
				queued = append(queued, p)
			}
		}
	}
	slices.SortFunc(queued, func(a, b *pod) int { return compareDur(a.ready, b.ready) })
	next := freed
	for _, p := range queued {
		t := max(w.gridAt(p.started+w.cfg.readyDelay), next)
		if t == p.ready {
			// The queue behind is as it was.
			return
		}
		p.ready, p.obj = t, nil
		next = t + w.cfg.readyStagger
	}
	// The end of the queue moved up (or the freed slot was its end).
	w.lastSlot = next - w.cfg.readyStagger
}

// step runs the ReplicaSet controller and the kubelets at now over the
// state's ReplicaSets, and returns them with their status brought up to
// date (a ReplicaSet whose status changed is a new object; the others are
// shared). The rules, for each ReplicaSet in order:
//
//  1. Missing pods are created, surplus pods deleted, at most
//     burstReplicas of either per ReplicaSet and step.
//  2. The pods deleted are those upstream deletes: the first of
//     [replicaset.DeletionOrder] over the ReplicaSet's active pods, listed
//     in the order they were created (or [WithCacheOrder]'s), with the related pods per node
//     counted over the active pods of every ReplicaSet with the same
//     controller; a deleted pod terminates for the termination delay. Each
//     deletion is recorded (see [Step.Deleted]).
//  3. Terminating pods whose delay has passed are gone.
//  4. The status counts the pods: replicas (not terminating), readyReplicas,
//     availableReplicas (ready for at least the ReplicaSet's
//     minReadySeconds; on 1.33 for more, as that minor's strict
//     comparison), terminatingReplicas;
//     observedGeneration is the generation. A ReplicaSet short of pods
//     whose template [WithRefusedImage] refuses creates none and gets the
//     ReplicaFailure condition; any other loses it. A refusal that ends
//     ([WithRefusedImageUntil]) ends for a ReplicaSet at the ReplicaSet
//     controller's first sync after it: a retry of its workqueue, or an
//     event (see rsRetry).
//
// Pods of ReplicaSets no longer in the state are deleted by the garbage
// collector: they terminate and linger as orphans.
func (w *world) step(rss []*appsv1.ReplicaSet, now time.Duration) []*appsv1.ReplicaSet {
	w.deleted, w.refused, w.admitted = nil, nil, nil
	out := make([]*appsv1.ReplicaSet, len(rss))
	seen := make(map[types.UID]bool, len(rss))
	// Every ReplicaSet is reconciled before any gone pod is dropped: the
	// quota's room since the last step (see [WithPodQuota]) counts the
	// pods gone in between.
	done := slices.Grow(w.done[:0], len(rss))[:len(rss)]
	w.done = done
	for i, rs := range rss {
		seen[rs.UID] = true
		rp := w.byUID[rs.UID]
		if rp == nil {
			rp = &rsPods{}
			w.byUID[rs.UID] = rp
		}
		done[i] = w.reconcile(rs, rss, rp, now)
	}
	for i, rs := range rss {
		rp := w.byUID[rs.UID]
		refusal, refused := done[i].message, done[i].refused
		rp.terminating = dropGone(rp.terminating, now)
		conds, set := failureConditions(rs.Status.Conditions, refused, refusal, w.start.Add(now))
		if set {
			w.refused = append(w.refused, Refusal{ReplicaSet: rs.Name, Missing: max(*rs.Spec.Replicas, 0) - int32(len(rp.active)),
				Created: done[i].made, Message: refusal})
		}
		out[i] = withStatus(rs, w.count(rs, rp, now), conds)
		if rt := w.retries[rs.UID]; rt != nil {
			rt.seen = out[i]
		}
	}
	for uid := range w.retries {
		if !seen[uid] {
			delete(w.retries, uid)
		}
	}
	if len(w.byUID) > len(rss) {
		var freed []time.Duration
		for uid, rp := range w.byUID {
			if seen[uid] {
				continue
			}
			for _, p := range rp.active {
				w.leave(&p)
				p.gone = now + w.cfg.terminateDelay
				w.orphans = append(w.orphans, p)
				if w.holdsSlot(&p, now) {
					freed = append(freed, p.ready)
				}
			}
			w.orphans = append(w.orphans, rp.terminating...)
			delete(w.byUID, uid)
		}
		w.releaseAll(freed)
		// Map order is random; orphans are kept by id so runs repeat.
		slices.SortFunc(w.orphans, func(a, b pod) int { return compareUint(a.id, b.id) })
	}
	w.orphans = dropGone(w.orphans, now)
	w.last = now
	return out
}

// outcome is what one ReplicaSet's sync met: the apiserver's error and
// whether it refused creates (see [WithRefusedImage], [WithPodQuota]),
// and the pods the sync made before its refusal.
type outcome struct {
	message string
	refused bool
	made    int32
}

// reconcile creates or deletes rs's pods as its size says.
func (w *world) reconcile(rs *appsv1.ReplicaSet, rss []*appsv1.ReplicaSet, rp *rsPods, now time.Duration) outcome {
	// Upstream's int32 wrap-around can write a negative size (a real
	// apiserver would refuse that write); the world runs no pods for it.
	want := max(int64(*rs.Spec.Replicas), 0)
	have := int64(len(rp.active))
	burst := int64(w.cfg.burst)
	switch {
	case have < want:
		n := min(want-have, burst)
		var admission *Admission
		if msg, until, refused := w.cfg.refuses(&rs.Spec.Template); refused {
			if until == 0 {
				// The first slow-start batch, of one pod, is refused;
				// the rest of the creates are skipped. (A ReplicaSet not
				// synced keeps its condition as refused does.)
				return outcome{message: msg, refused: true}
			}
			var admitted bool
			if admission, admitted = w.admits(rs, rp, now, until); !admitted {
				return outcome{message: msg, refused: true}
			}
		}
		if q := w.cfg.podQuota; q != nil {
			if admission == nil {
				// (Past a lifted image refusal, the sync that admits its
				// pods is the one the quota judges.)
				var admitted bool
				if admission, admitted = w.admits(rs, rp, now, w.quotaRoom(rs, q)); !admitted {
					return outcome{message: q.message(rs.Name, w.counted(w.last)), refused: true}
				}
			}
			if room := q.pods - w.counted(now); room < n {
				// Slow start stops at the first refused batch: the pods
				// made are the room. The sync fails, and so do those its
				// pods' add events and its status write bring.
				made := max(room, 0)
				w.create(rs, rp, admission, made, n-made, now)
				rt := w.retry(rs)
				rt.write = rt.write || facts.ReplicaFailure(rs.Status.Conditions) == nil || rs.Status.ObservedGeneration != rs.Generation
				rt.fail(now, w.cfg.rsSync)
				rt.arrive(now, true) // the pods' add events, during that sync
				return outcome{message: q.message(rs.Name, w.counted(now)), refused: true, made: int32(made)}
			}
		}
		w.create(rs, rp, admission, n, 0, now)
	case have > want:
		w.scaleDown(rs, rss, rp, int(min(have-want, burst)), now)
	}
	// Nothing is refused: the ReplicaSet controller forgets the key.
	delete(w.retries, rs.UID)
	return outcome{}
}

// create makes n pods of rs at now, the apiserver refusing refused more;
// admission, if not nil, is the retry that makes them, recorded with
// their numbers.
func (w *world) create(rs *appsv1.ReplicaSet, rp *rsPods, admission *Admission, n, refused int64, now time.Duration) {
	if admission != nil {
		admission.Created, admission.Refused = int32(n), int32(refused)
		w.admitted = append(w.admitted, *admission)
	}
	for ; n > 0; n-- {
		rp.active = append(rp.active, w.startPod(rs, now))
	}
}

// retry returns the ReplicaSet controller's workqueue state for rs,
// started empty if it has none.
func (w *world) retry(rs *appsv1.ReplicaSet) *rsRetry {
	rt := w.retries[rs.UID]
	if rt == nil {
		rt = &rsRetry{timer: never, queued: never, room: never}
		w.retries[rs.UID] = rt
	}
	return rt
}

// admits runs the ReplicaSet controller's syncs of rs, whose pods are
// refused until until (never: to the end), up to now, and reports whether
// one of them creates the pods: the first sync at or after until (see
// [WithRefusedImageUntil]), described by the Admission (nil when the
// refusal had ended before the ReplicaSet's first sync).
func (w *world) admits(rs *appsv1.ReplicaSet, rp *rsPods, now, until time.Duration) (*Admission, bool) {
	rt := w.retries[rs.UID]
	if rt == nil && w.last >= until {
		return nil, true // the refusal ended before this ReplicaSet's sync
	}
	rt = w.retry(rs)
	at, ok := rt.syncs(rs, w.last, now, until, podEvents(rp, w.last, now), w.cfg.rsSync)
	if !ok {
		return nil, false
	}
	return &Admission{ReplicaSet: rs.Name, At: at, Until: until, Failures: rt.lim.NumRequeues()}, true
}

// quotaRoom is when, from the world's last step on, q has room for a pod
// of rs: the time a pod's end made the room, which a step after it still
// knows from the ReplicaSet's retry state (the pod gone, the world no
// longer holds its time).
func (w *world) quotaRoom(rs *appsv1.ReplicaSet, q *podQuota) time.Duration {
	room := w.roomAt(q.pods, w.last)
	rt := w.retries[rs.UID]
	if rt == nil {
		return room
	}
	if room == w.last && rt.room <= w.last {
		return rt.room
	}
	rt.room = room
	return room
}

// counted is the number of pods the quota of [WithPodQuota] counts at t:
// every active pod and each terminating one not gone by t.
func (w *world) counted(t time.Duration) int64 {
	var n int64
	for _, rp := range w.byUID {
		n += int64(len(rp.active))
		for i := range rp.terminating {
			if rp.terminating[i].gone > t {
				n++
			}
		}
	}
	for i := range w.orphans {
		if w.orphans[i].gone > t {
			n++
		}
	}
	return n
}

// roomAt is the first time from t on at which fewer than limit pods are
// counted (see counted), if no pod is made: t itself, the end of a
// terminating pod, or never.
func (w *world) roomAt(limit int64, t time.Duration) time.Duration {
	var n int64
	var gone []time.Duration
	add := func(ps []pod) {
		for i := range ps {
			if ps[i].gone > t {
				gone = append(gone, ps[i].gone)
			}
		}
	}
	for _, rp := range w.byUID {
		n += int64(len(rp.active))
		add(rp.terminating)
	}
	add(w.orphans)
	n += int64(len(gone))
	if n < limit {
		return t
	}
	k := n - limit + 1 // pods to be gone
	if k > int64(len(gone)) {
		return never
	}
	slices.Sort(gone)
	return gone[k-1]
}

// failureConditions returns a ReplicaSet's conditions after a sync of the
// ReplicaSet controller whose creates the apiserver refused with msg
// (refused) or that wrote its pods: as upstream's calculateStatus, a
// refusal sets ReplicaFailure (FailedCreate, msg, stamped at in whole
// seconds as the apiserver stores it) unless the ReplicaSet has that
// condition already, and a sync without one removes it. set reports a
// condition newly set; cs itself is returned when nothing changes.
func failureConditions(cs []appsv1.ReplicaSetCondition, refused bool, msg string, at time.Time) (out []appsv1.ReplicaSetCondition, set bool) {
	cur := facts.ReplicaFailure(cs)
	switch {
	case refused && cur == nil:
		out = append(slices.Clone(cs), appsv1.ReplicaSetCondition{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(at.Truncate(time.Second)), Reason: replicaset.ReasonFailedCreate, Message: msg})
		return out, true
	case !refused && cur != nil:
		return facts.WithoutReplicaFailure(cs), false
	}
	return cs, false
}

// scaleDown deletes the n pods of rs upstream's ReplicaSet controller
// deletes, and records them.
func (w *world) scaleDown(rs *appsv1.ReplicaSet, rss []*appsv1.ReplicaSet, rp *rsPods, n int, now time.Duration) {
	objs := make([]*corev1.Pod, len(rp.active))
	for i := range rp.active {
		objs[i] = w.object(rs, &rp.active[i], now, false)
	}
	// The list the controller ranks: creation order, or the cache's
	// (objs keeps the order of rp.active for the index below).
	listed := objs
	if w.cacheRng != nil {
		listed = slices.Clone(objs)
		w.cacheRng.Shuffle(len(listed), func(i, j int) { listed[i], listed[j] = listed[j], listed[i] })
	}
	onNode := w.relatedOnNode(rs, rss)
	order, ranks := replicaset.DeletionOrder(listed, onNode, w.start.Add(now))
	if w.cfg.scaleDownSeen != nil {
		w.cfg.scaleDownSeen(listed, order[:n], onNode, w.start.Add(now))
	}
	index := make(map[*corev1.Pod]int, len(objs))
	for j, o := range objs {
		index[o] = j
	}
	tied, unsettled := tiedWithKept(ranks, n), replicaset.Unsettled(ranks, n, w.start.Add(now))
	gone := make([]bool, len(rp.active))
	var freed []time.Duration
	for i, o := range order[:n] {
		j := index[o]
		gone[j] = true
		p := rp.active[j]
		w.leave(&p)
		p.gone = now + w.cfg.terminateDelay
		rp.terminating = append(rp.terminating, p)
		if w.holdsSlot(&p, now) {
			freed = append(freed, p.ready)
		}
		w.deleted = append(w.deleted, Deletion{ReplicaSet: rs.Name, Pod: o.Name, Node: o.Spec.NodeName, Position: i + 1,
			Rank: ranks[i], Why: rankText(&ranks[i], w.start.Add(now)), Tied: tied[i], Unsettled: unsettled[i]})
	}
	kept := rp.active[:0]
	for j, p := range rp.active {
		if !gone[j] {
			kept = append(kept, p)
		}
	}
	clear(rp.active[len(kept):])
	rp.active = kept
	w.releaseAll(freed)
}

// holdsSlot reports whether p, not ready at now, waits for a slot of
// [WithReadyStagger].
func (w *world) holdsSlot(p *pod, now time.Duration) bool {
	return w.cfg.readyStagger > 0 && p.ready != never && p.ready > now
}

// releaseAll releases the slots of deleted pods (see release), the latest
// first: a release moves up only the pods behind its slot, so the earlier
// freed slots are still free when their turn comes.
func (w *world) releaseAll(freed []time.Duration) {
	slices.Sort(freed)
	for i := len(freed) - 1; i >= 0; i-- {
		w.release(freed[i])
	}
}

// relatedOnNode counts, per node name, the active pods of the ReplicaSets
// related to rs as upstream relates them: those with the same controller
// (rs alone if it has none). Every pod of a ReplicaSet in the world matches
// its selector.
func (w *world) relatedOnNode(rs *appsv1.ReplicaSet, rss []*appsv1.ReplicaSet) map[string]int {
	perNode := make([]int, len(w.nodeNames))
	ctrl := metav1.GetControllerOfNoCopy(rs)
	for _, o := range rss {
		if o != rs {
			oc := metav1.GetControllerOfNoCopy(o)
			if ctrl == nil || oc == nil || oc.UID != ctrl.UID {
				continue
			}
		}
		if rp := w.byUID[o.UID]; rp != nil {
			for i := range rp.active {
				perNode[rp.active[i].node]++
			}
		}
	}
	out := make(map[string]int, len(perNode))
	for i, c := range perNode {
		if c > 0 {
			out[w.nodeNames[i]] = c
		}
	}
	return out
}

func compareDur(a, b time.Duration) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func compareUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// storedReady is when p became ready as its Ready condition's
// lastTransitionTime says it, in whole seconds as an apiserver stores a
// time (metav1.Time keeps no fraction): the time availability counts from.
func (w *world) storedReady(p *pod) time.Duration {
	return w.start.Add(p.ready).Truncate(time.Second).Sub(w.start)
}

func dropGone(ps []pod, now time.Duration) []pod {
	return slices.DeleteFunc(ps, func(p pod) bool { return p.gone <= now })
}

// availableBy reports whether a ready pod that reaches minReadySeconds at
// at counts as available at now: at or after it, or on 1.33 only after it
// (replicaset.WithKubernetesVersion).
func (w *world) availableBy(at, now time.Duration) bool {
	if !w.cfg.minor.AtLeast(kversion.V1_34) {
		return at < now
	}
	return at <= now
}

// firstAvailable is the first time availableBy(at, ·) holds.
func (w *world) firstAvailable(at time.Duration) time.Duration {
	if !w.cfg.minor.AtLeast(kversion.V1_34) {
		return at + 1
	}
	return at
}

func (w *world) count(rs *appsv1.ReplicaSet, rp *rsPods, now time.Duration) counts {
	minReady := time.Duration(rs.Spec.MinReadySeconds) * time.Second
	c := counts{pods: int32(len(rp.active)), terminating: int32(len(rp.terminating))}
	for i := range rp.active {
		p := &rp.active[i]
		if p.ready > now {
			continue
		}
		c.ready++
		// Upstream: available when minReadySeconds is 0 or the ready
		// transition plus minReadySeconds is at or before now (1.33:
		// strictly before). The transition is the Ready condition's
		// lastTransitionTime, which an apiserver stores in whole seconds.
		if minReady == 0 || w.availableBy(w.storedReady(p)+minReady, now) {
			c.available++
		}
	}
	return c
}

// withStatus returns rs with the status the ReplicaSet controller writes for
// these counts and conditions (rs's own slice when they do not change, as
// failureConditions returns it); rs itself if nothing changes.
func withStatus(rs *appsv1.ReplicaSet, c counts, conds []appsv1.ReplicaSetCondition) *appsv1.ReplicaSet {
	st := rs.Status
	sameConds := len(conds) == len(st.Conditions) && (len(conds) == 0 || &conds[0] == &st.Conditions[0])
	if st.Replicas == c.pods && st.FullyLabeledReplicas == c.pods && st.ReadyReplicas == c.ready &&
		st.AvailableReplicas == c.available && st.ObservedGeneration == rs.Generation &&
		st.TerminatingReplicas != nil && *st.TerminatingReplicas == c.terminating && sameConds {
		return rs
	}
	out := *rs
	term := c.terminating
	out.Status = appsv1.ReplicaSetStatus{
		Replicas: c.pods, FullyLabeledReplicas: c.pods, ReadyReplicas: c.ready, AvailableReplicas: c.available,
		ObservedGeneration: rs.Generation, TerminatingReplicas: &term, Conditions: conds,
	}
	return &out
}

// measure returns the counts of a ReplicaSet's pods now, and of the orphans.
func (w *world) measure(rs *appsv1.ReplicaSet, now time.Duration) counts {
	rp := w.byUID[rs.UID]
	if rp == nil {
		return counts{}
	}
	return w.count(rs, rp, now)
}

func (w *world) orphanCount() int32 { return int32(len(w.orphans)) }

// total is the number of pods the world holds, terminating ones included.
func (w *world) total() int64 {
	n := int64(len(w.orphans))
	for _, rp := range w.byUID {
		n += int64(len(rp.active) + len(rp.terminating))
	}
	return n
}

// hasOrphans reports whether pods of deleted ReplicaSets still terminate.
func (w *world) hasOrphans() bool { return len(w.orphans) > 0 }

// next returns the earliest time after now at which the world changes on
// its own — a pod becomes ready or available, a terminating pod is gone —
// or now itself if the ReplicaSet controller still has pods to create or
// delete; never if nothing will change. Pods starting to run are not
// counted: they change no ReplicaSet status.
func (w *world) next(rss []*appsv1.ReplicaSet, now time.Duration) time.Duration {
	t := never
	for _, rs := range rss {
		rp := w.byUID[rs.UID]
		if rp == nil || int64(len(rp.active)) != int64(*rs.Spec.Replicas) {
			if rp != nil && int64(len(rp.active)) > int64(*rs.Spec.Replicas) {
				return now
			}
			until, blocked := w.blockedUntil(rs, now)
			if !blocked {
				return now
			}
			// Refused pods: the retries change nothing until the refusal
			// ends; then the first retry creates them, or an event
			// brings a sync (see [WithRefusedImageUntil]). (A
			// ReplicaSet the last sync created is first refused at the
			// step its write brings.)
			if rt := w.retries[rs.UID]; until != never && rt != nil {
				t = min(t, rt.admittedAt(until, w.cfg.rsSync))
				if rp != nil {
					for i := range rp.active {
						if s := rp.active[i].started; s > now && s >= until {
							t = min(t, s) // a pod running is a sync
						}
					}
				}
			}
			if rp == nil {
				continue
			}
		}
		minReady := time.Duration(rs.Spec.MinReadySeconds) * time.Second
		for i := range rp.active {
			p := &rp.active[i]
			switch {
			case p.ready == never:
			case p.ready > now:
				t = min(t, p.ready)
			case minReady > 0 && !w.availableBy(w.storedReady(p)+minReady, now):
				t = min(t, w.firstAvailable(w.storedReady(p)+minReady))
			}
		}
		for i := range rp.terminating {
			t = min(t, rp.terminating[i].gone)
		}
	}
	for i := range w.orphans {
		t = min(t, w.orphans[i].gone)
	}
	return t
}

// blockedUntil reports whether rs's pod creates are refused at now (by
// [WithRefusedImage] or the quota of [WithPodQuota]) and until when
// (never: for good, as far as the world knows). A ReplicaSet with room in
// the quota but retries pending is blocked until its next sync.
func (w *world) blockedUntil(rs *appsv1.ReplicaSet, now time.Duration) (time.Duration, bool) {
	if _, until, refused := w.cfg.refuses(&rs.Spec.Template); refused {
		if until == 0 {
			return never, true
		}
		return until, true
	}
	if q := w.cfg.podQuota; q != nil {
		until := w.roomAt(q.pods, now)
		return until, until > now || w.retries[rs.UID] != nil
	}
	return 0, false
}

// pods materialises the pods of the ReplicaSets as objects, keyed by the UID
// of their controlling ReplicaSet, as the Recreate strategy reads them.
// Objects are cached per pod and rebuilt only when what they show changes.
func (w *world) pods(rss []*appsv1.ReplicaSet, now time.Duration) map[types.UID][]*corev1.Pod {
	out := make(map[types.UID][]*corev1.Pod, len(rss))
	for _, rs := range rss {
		rp := w.byUID[rs.UID]
		list := make([]*corev1.Pod, 0)
		if rp != nil {
			list = make([]*corev1.Pod, 0, len(rp.active)+len(rp.terminating))
			for i := range rp.active {
				list = append(list, w.object(rs, &rp.active[i], now, false))
			}
			for i := range rp.terminating {
				list = append(list, w.object(rs, &rp.terminating[i], now, true))
			}
		}
		out[rs.UID] = list
	}
	return out
}

func (w *world) object(rs *appsv1.ReplicaSet, p *pod, now time.Duration, terminating bool) *corev1.Pod {
	s := p.state(now, terminating)
	if p.obj != nil && p.objState == s {
		return p.obj
	}
	id := strconv.FormatUint(p.id, 10)
	o := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: rs.Name + "-" + id, Namespace: rs.Namespace, UID: types.UID("pod-" + id),
			Labels:            rs.Spec.Template.Labels,
			CreationTimestamp: metav1.NewTime(w.start.Add(p.created).Truncate(time.Second)),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID,
				Controller: ptrTrue(), BlockOwnerDeletion: ptrTrue()}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
	if p.src != nil {
		// An input pod keeps what names it and what the ranking reads
		// besides its state: deletion cost, restarts, sidecars.
		o.Name, o.UID, o.Annotations = p.src.Name, p.src.UID, maps.Clone(p.src.Annotations)
		o.Spec = *p.src.Spec.DeepCopy()
		for _, c := range p.src.Status.ContainerStatuses {
			o.Status.ContainerStatuses = append(o.Status.ContainerStatuses, *c.DeepCopy())
		}
	}
	o.Spec.NodeName = ""
	if p.node >= 0 {
		o.Spec.NodeName = w.nodeNames[p.node]
	}
	if p.started <= now {
		o.Status.Phase = corev1.PodRunning
		ready := corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse}
		if p.ready <= now {
			ready.Status = corev1.ConditionTrue
			// Whole seconds, as the apiserver stores a condition's time and
			// the controller reads it back.
			ready.LastTransitionTime = metav1.NewTime(w.start.Add(p.ready).Truncate(time.Second))
		}
		o.Status.Conditions = []corev1.PodCondition{ready}
	}
	if terminating {
		o.DeletionTimestamp = ptrTime(metav1.NewTime(w.start.Add(p.gone - w.cfg.terminateDelay).Truncate(time.Second)))
	}
	p.obj, p.objState = o, s
	return o
}

func ptrTrue() *bool { b := true; return &b }

func ptrTime(t metav1.Time) *metav1.Time { return &t }

// rankText says in a few words what ranked a pod for deletion at now: its
// node, phase, readiness and for how long, and the related pods on its node.
func rankText(r *replicaset.Rank, now time.Time) string {
	node := r.Node
	if node == "" {
		node = "unscheduled"
	}
	s := string(r.Phase)
	if r.Ready {
		s += ", ready " + shortDuration(now.Sub(r.ReadySince))
	} else if r.Phase == corev1.PodRunning {
		s += ", not ready"
	}
	if r.Cost != 0 {
		s += ", cost " + strconv.Itoa(int(r.Cost))
	}
	return s + ", " + strconv.Itoa(r.OnNode) + " on " + node
}

// tieKey is what upstream's deletion order compares of a pod but its UID:
// two pods with distinct UIDs that it orders neither way have the same
// key. The UID decides only between times of one logarithmic bucket, and
// only when the times differ; equal times (to the instant) and equal
// everything else leave the pods' order to the list they came in.
type tieKey struct {
	unscheduled               bool
	phase                     corev1.PodPhase
	ready                     bool
	readySec                  int64
	readyNsec                 int
	cost                      int32
	onNode                    int
	restarts, sidecarRestarts int
	createdSec                int64
	createdNsec               int
}

func keyOf(r *replicaset.Rank) tieKey {
	k := tieKey{unscheduled: r.Node == "", phase: phaseClass(r.Phase), ready: r.Ready, cost: r.Cost, onNode: r.OnNode,
		restarts: r.Restarts, sidecarRestarts: r.SidecarRestarts, createdSec: r.Created.Unix(), createdNsec: r.Created.Nanosecond()}
	if r.Ready {
		k.readySec, k.readyNsec = r.ReadySince.Unix(), r.ReadySince.Nanosecond()
	}
	return k
}

// phaseClass maps a phase to the class upstream's order ranks it in:
// Unknown and Running their own, every other phase with Pending.
func phaseClass(p corev1.PodPhase) corev1.PodPhase {
	if p == corev1.PodUnknown || p == corev1.PodRunning {
		return p
	}
	return corev1.PodPending
}

// tiedWithKept returns, for each of the first n of ranks (a deletion
// order), how many of the rest (the pods kept) tie with it. It keys the
// few deleted pods, not the many kept ones: a scale-down usually deletes
// a pod or two of many.
func tiedWithKept(ranks []replicaset.Rank, n int) []int {
	out := make([]int, n)
	if n == 0 || n == len(ranks) {
		return out
	}
	keys := make([]tieKey, n)
	index := make(map[tieKey]int, n) // the first deleted pod with the key
	for i := range n {
		keys[i] = keyOf(&ranks[i])
		if _, ok := index[keys[i]]; !ok {
			index[keys[i]] = i
		}
	}
	counts := make([]int, n)
	for i := n; i < len(ranks); i++ {
		k := keyOf(&ranks[i])
		if n == 1 {
			if k == keys[0] {
				counts[0]++
			}
			continue
		}
		if j, ok := index[k]; ok {
			counts[j]++
		}
	}
	for i := range n {
		out[i] = counts[index[keys[i]]]
	}
	return out
}
