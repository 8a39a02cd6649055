package simulate

import (
	"errors"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/execute"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/ratelimit"
)

// Run simulates the rollout of a state: it alternates steps of the world and
// syncs of the Deployment controller until nothing is left to happen or the
// step limit is reached, and returns the timeline. The state is not
// modified.
//
// Step 0 syncs the state as given (after the scripted changes due at 0).
// Every later step, in order:
//
//  1. The clock moves to the next tick at which something can change (every
//     tick with [WithEveryTick]; see it for the rule).
//  2. The world moves: the ReplicaSet controller creates and deletes pods
//     and writes each ReplicaSet's status; pods start, become ready and
//     available, terminate (see [WithPodStartDelay] and the other options).
//  3. The pods are counted and the invariants checked (see [Invariant]).
//  4. The scripted changes due are made (see [Change]).
//  5. [deploysync.Sync] decides and [deploysync.Apply] performs the plan;
//     the apiserver's share follows: a created ReplicaSet gets a UID
//     ("<name>-uid"), a creationTimestamp (the step's time, whole seconds)
//     and generation 1; a spec change of a ReplicaSet, or of the
//     Deployment's spec or annotations by an update, raises its generation;
//     a status write keeps its conditions' times in whole seconds.
//
// The initial pods of a ReplicaSet whose UID has a non-empty entry in
// State.Pods are the pods listed there (read, never modified); those of
// every other ReplicaSet are made from its status counts: available pods
// ready long ago, ready pods just ready, the others just created, and the
// terminating ones. A listed pod is taken as its ReplicaSet's when its
// controller reference names that ReplicaSet's UID; other pods, nil
// entries, pods listed under a UID no ReplicaSet of the state has, and
// Succeeded or Failed pods (the ReplicaSet controller does not count them)
// are ignored. Each pod taken keeps its name, UID, creationTimestamp,
// annotations (a deletion cost), spec and container statuses (restarts), so
// the scale-downs rank it as upstream does and [Step.Deleted] names it; its
// state at the start of the run (time 0, State.Now) is:
//
//   - A pod with a deletionTimestamp is terminating and gone the
//     termination delay ([WithTerminationDelay]) after that timestamp (the
//     grace period fields are not read): the world writes the
//     deletionTimestamp of its own pods as the time of their deletion, so
//     Timeline.Final.Pods run again resume where they stood (to the
//     second).
//   - A Running pod whose Ready condition is True was ready since the
//     condition's lastTransitionTime (its creationTimestamp if the
//     condition has none; State.Now if later): available once that plus
//     minReadySeconds has passed.
//   - A Running pod not ready is taken as started at time 0: ready after
//     the readiness delay ([WithReadinessDelay]), as a pod the world starts.
//   - Any other pod (Pending, or no phase) is taken as created at time 0
//     for its delays: it runs after the start delay ([WithPodStartDelay])
//     and is ready after the readiness delay, as a pod the world creates.
//   - A pod not yet ready never becomes ready if its own spec holds an
//     image of [WithFailingImage], or if the failure rate's draw
//     ([WithFailureRate]) says it fails, as a pod the world creates; its
//     readiness waits for a slot of [WithReadyStagger], queued with the
//     world's own by due time.
//   - A pod runs on the node its spec.nodeName names. Without
//     [WithNodes], the nodes the taken pods name are the world's nodes
//     (sorted by name; node-1 only when they name none), so the pods the
//     world creates spread over them; with it, a name the world does not
//     have is added to its nodes, and counts in the spreading of later
//     pods and in the ranking. A pod without one is placed as the
//     world places a pod it creates (see [WithNodes]), a terminating one
//     stays unscheduled.
//
// Sync is given pods only while the Deployment uses the Recreate strategy,
// the only one that reads them: the world's, as objects (the input's among
// them), from step 0 on.
//
// The run ends when the last sync wrote nothing and asked for no requeue, no
// pod will change state by itself, and no scripted change is left; the
// outcome then says where the rollout stands. It ends so too after a
// rate-limited requeue that can change nothing: the deadline of a
// Progressing condition NewReplicaSetAvailable has passed, a condition
// upstream never times out, so a real controller would sync 10 times a
// second to the same decision until something else changes. A plan's Requeue
// or Err makes the next step come when the controller's workqueue would
// bring it back (5ms, doubled by each failed sync in a row; 100ms apart once
// 100 came within ten seconds; as kube-controller-manager paces them in
// e2e's TestE2E/requeue), on the first tick at or after that;
// RequeueAfter, at the first tick after that delay. Run returns an error for
// a state Sync refuses, a plan Apply refuses, a failing scripted change or a
// bad option; a broken invariant is not an error but a [Violation] in the
// timeline.
func Run(s deploysync.State, opts ...Option) (*Timeline, error) {
	cfg := defaults()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if err := facts.Validate(s.Deployment, s.ReplicaSets, nil); err != nil {
		return nil, err
	}
	r := newRunner(s, &cfg)
	return r.run(s.Pods)
}

type runner struct {
	cfg        *config
	start      time.Time
	now        time.Duration
	state      deploysync.State
	world      *world
	deleted    []Deletion // by the world's last move, for the step's record
	refused    []Refusal  // likewise
	admitted   []Admission
	changes    []Change
	nextChange int
	check      checker
	tl         *Timeline
	uids       map[string]int
	lastPlan   deploysync.Plan
	// unchanged: the last plan's writes changed nothing (a refused
	// ReplicaSet create retried), so no event brings the next sync.
	unchanged bool
	// queue is the controller's workqueue rate limiter: when a
	// rate-limited requeue (or the retry of a failed sync) comes.
	queue ratelimit.Limiter
	// newCache memoises isNew: templates of ReplicaSets never change in a
	// run, and the Deployment's changes only with its generation.
	newCache map[newKey]bool
}

type newKey struct {
	rs         string
	generation int64
}

// isNew reports whether rs has d's pod template (ignoring the hash label),
// as deployutil.EqualIgnoreHash decides, memoised: that comparison is the
// most expensive thing a step does.
func (r *runner) isNew(rs *appsv1.ReplicaSet, d *appsv1.Deployment) bool {
	k := newKey{rs: string(rs.UID), generation: d.Generation}
	v, ok := r.newCache[k]
	if !ok {
		v = deployutil.EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template)
		r.newCache[k] = v
	}
	return v
}

func newRunner(s deploysync.State, cfg *config) *runner {
	st := deploysync.State{Deployment: s.Deployment.DeepCopy(), Now: s.Now}
	for _, rs := range s.ReplicaSets {
		st.ReplicaSets = append(st.ReplicaSets, rs.DeepCopy())
	}
	changes := slices.Clone(cfg.changes)
	slices.SortStableFunc(changes, func(a, b Change) int { return compareDur(a.At, b.At) })
	d := st.Deployment
	initial := make(map[string]int32, len(st.ReplicaSets))
	for _, rs := range st.ReplicaSets {
		initial[rs.Name] = *rs.Spec.Replicas
	}
	r := &runner{
		cfg: cfg, start: s.Now, state: st, world: newWorld(cfg, s.Now), changes: changes,
		check: checker{spec: d},
		tl:    &Timeline{Deployment: d.Namespace + "/" + d.Name, Strategy: describeStrategy(d), Start: s.Now, initial: initial},
		uids:  map[string]int{}, newCache: map[newKey]bool{},
	}
	r.check.isNew = r.isNew
	return r
}

func describeStrategy(d *appsv1.Deployment) string {
	if !facts.IsRollingUpdate(d) {
		return string(d.Spec.Strategy.Type)
	}
	ru := d.Spec.Strategy.RollingUpdate
	return fmt.Sprintf("RollingUpdate maxSurge %s (%d) maxUnavailable %s (%d)", ru.MaxSurge.String(), facts.MaxSurge(d),
		ru.MaxUnavailable.String(), facts.MaxUnavailable(d))
}

func (r *runner) run(given map[types.UID][]*corev1.Pod) (*Timeline, error) {
	if err := r.checkPods(given); err != nil {
		return nil, err
	}
	r.world.seed(r.state.ReplicaSets, given)
	for i := 0; ; i++ {
		if i > 0 {
			next, ok := r.nextTime()
			if !ok {
				r.tl.Outcome = r.outcome()
				break
			}
			if i >= r.cfg.maxSteps {
				r.tl.Outcome = StepLimit
				break
			}
			r.now = next
			r.state.ReplicaSets = r.world.step(r.state.ReplicaSets, r.now)
			r.deleted, r.refused, r.admitted = r.world.deleted, r.world.refused, r.world.admitted
			if err := r.checkPods(nil); err != nil {
				return nil, err
			}
		}
		if err := r.step(i); err != nil {
			return nil, fmt.Errorf("simulate: step %d (+%v): %w", i, r.now, err)
		}
	}
	r.tl.Violations = r.check.violations
	r.tl.InputBroken = r.check.inputBroken
	r.tl.Final = r.state
	// The pods as the world holds them when the run ends, so that Final can
	// be synced or diagnosed as it stands.
	r.tl.Final.Pods = r.world.pods(r.state.ReplicaSets, r.now)
	return r.tl, nil
}

// step counts, changes, syncs and records step i at r.now.
func (r *runner) step(i int) error {
	d := r.state.Deployment
	rss := owned(d, r.state.ReplicaSets)
	perRS := make([]counts, len(rss))
	var total Counts
	for j, rs := range rss {
		c := r.world.measure(rs, r.now)
		perRS[j] = c
		total.Pods += c.pods
		total.Ready += c.ready
		total.Available += c.available
		total.Terminating += c.terminating
	}
	total.Terminating += r.world.orphanCount()
	r.check.measured(i, rss, perRS, total)

	descs, err := r.makeChanges()
	if err != nil {
		return err
	}
	r.state.Now = r.start.Add(r.now)
	if r.state.Deployment.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		r.state.Pods = r.world.pods(r.state.ReplicaSets, r.now)
	}
	sync := r.cfg.syncFunc
	if sync == nil {
		sync = func(s deploysync.State) (deploysync.Plan, error) { return deploysync.Sync(s, r.cfg.syncOpts...) }
	}
	plan, err := sync(r.state)
	if err != nil {
		return err
	}
	refused := false
	if r.cfg.refusedRS.refusing(r.now) {
		if plan, refused, err = refuseCreate(r.state, plan, r.cfg.refusedRS.message); err != nil {
			return err
		}
	}
	after, err := deploysync.Apply(r.state, plan)
	if err != nil {
		return err
	}
	// A refused create's status write changes the Deployment only the
	// first time (the condition is then set); an unchanged write (and an
	// event object) brings no informer event, and the retry waits its
	// backoff. Any other write of the plan (an adoption before the
	// create) is an event.
	r.unchanged = refused && onlyStatusAndEvents(plan) && equality.Semantic.DeepEqual(after.Deployment.Status, r.state.Deployment.Status)
	r.admit(r.state, after, plan)
	after.Pods = nil
	r.state = after
	r.check.synced(i, plan, after)
	r.record(i, descs, plan, rss, perRS, total)
	r.lastPlan = plan
	return nil
}

func (r *runner) makeChanges() ([]string, error) {
	var descs []string
	for r.nextChange < len(r.changes) && r.changes[r.nextChange].At <= r.now {
		ch := r.changes[r.nextChange]
		r.nextChange++
		before := r.state.Deployment
		d := before.DeepCopy()
		if err := ch.Edit(d); err != nil {
			return nil, fmt.Errorf("change %q: %w", ch.Description, err)
		}
		// The apiserver bumps a Deployment's generation for a change of its
		// spec or its annotations.
		if !equality.Semantic.DeepEqual(d.Spec, before.Spec) || !equality.Semantic.DeepEqual(d.Annotations, before.Annotations) {
			d.Generation = before.Generation + 1
		}
		r.check.changed(before, d)
		r.state.Deployment = d
		descs = append(descs, ch.Description)
	}
	return descs, nil
}

// nextTime returns when the next step happens, or false if nothing is left
// to happen. A step that wrote something is followed one tick later (the
// informers' events; a refused create's status write that changed nothing
// brings none); otherwise the next step is the first tick at or after
// the earliest of a pod's change, a scripted change, a timed requeue and a
// rate-limited one, which waits as the controller's workqueue makes it wait
// (see internal/ratelimit). It is called once per step: the limiter counts.
func (r *runner) nextTime() (time.Duration, bool) {
	p := r.lastPlan
	tick := r.cfg.tick
	t := r.world.next(r.state.ReplicaSets, r.now)
	if r.nextChange < len(r.changes) {
		t = min(t, r.changes[r.nextChange].At)
	}
	if p.RequeueAfter > 0 {
		t = min(t, r.now+p.RequeueAfter)
	}
	switch {
	case p.Err != nil && r.queue.NumRequeues() < ratelimit.MaxRetries:
		wait := r.queue.When(r.now)
		t = min(t, r.now+wait)
		if last := r.lastStep(); last != nil {
			last.RetryAfter, last.Failures = wait, r.queue.NumRequeues()
		}
	case p.Err != nil: // dropped until an event brings it back
		if last := r.lastStep(); last != nil {
			last.Dropped, last.Failures = true, r.queue.NumRequeues()+1
		}
		r.queue.Forget()
	case p.Requeue && len(p.Actions) == 0 && t == never && r.neverTimesOut():
		// Each sync would be this one: the controller loops to no end.
		return 0, false
	case p.Requeue: // the sync succeeded: the key is forgotten after the add
		t = min(t, r.now+r.queue.When(r.now))
		r.queue.Forget()
	default:
		r.queue.Forget()
	}
	wrote := len(p.Actions) > 0 && !r.unchanged
	switch {
	case !wrote && t == never:
		return 0, false
	case wrote || r.cfg.everyTick:
		return r.now + tick, true
	}
	next := (t + tick - 1) / tick * tick
	if next <= r.now {
		next = r.now + tick
	}
	return next, true
}

// lastStep is the step recorded last, nil before the first.
func (r *runner) lastStep() *Step {
	if r.tl == nil || len(r.tl.Steps) == 0 {
		return nil
	}
	return &r.tl.Steps[len(r.tl.Steps)-1]
}

// neverTimesOut reports whether the Deployment's Progressing condition is
// NewReplicaSetAvailable, which upstream never times out: a rate-limited
// requeue past its deadline then comes back to the same decision for as
// long as nothing else changes.
func (r *runner) neverTimesOut() bool {
	c := deployutil.GetCondition(r.state.Deployment.Status, appsv1.DeploymentProgressing)
	return c != nil && c.Reason == deployutil.ReasonNewReplicaSetAvailable
}

// refuseCreate answers the plan's ReplicaSet create, refused by the
// apiserver with message, as upstream answers it
// ([execute.ResolveCreateFailed]): the actions before the create stay, the
// rest give way to the failure's status write and event, and the plan
// fails. A plan that creates no ReplicaSet is returned as it is, with
// false.
func refuseCreate(s deploysync.State, plan deploysync.Plan, message string) (deploysync.Plan, bool, error) {
	d := s.Deployment
	for i, a := range plan.Actions {
		switch w := a.(type) {
		case *action.UpdateDeployment:
			d = w.Deployment
		case *action.UpdateDeploymentStatus:
			d = w.Deployment
		case *action.CreateReplicaSet:
			answer, err := execute.ResolveCreateFailed(d, w.ReplicaSet.Name, errors.New(message), s.Now)
			if err != nil {
				return plan, false, err
			}
			out := deploysync.Plan{Branch: plan.Branch, Err: answer.Err}
			out.Actions = append(slices.Clone(plan.Actions[:i]), answer.Actions...)
			return out, true, nil
		}
	}
	return plan, false, nil
}

// onlyStatusAndEvents reports whether the plan writes nothing but the
// Deployment's status and events.
func onlyStatusAndEvents(p deploysync.Plan) bool {
	for _, a := range p.Actions {
		switch a.(type) {
		case *action.UpdateDeploymentStatus, *action.Event:
		default:
			return false
		}
	}
	return true
}

func (r *runner) outcome() Outcome {
	d := r.state.Deployment
	c := deployutil.GetCondition(d.Status, appsv1.DeploymentProgressing)
	switch {
	case c != nil && c.Reason == deployutil.ReasonProgressDeadlineExceeded:
		return DeadlineExceeded
	case facts.Complete(d, &d.Status) && (!facts.HasProgressDeadline(d) || c != nil && c.Reason == deployutil.ReasonNewReplicaSetAvailable):
		return Complete
	case d.Spec.Paused:
		return StoppedPaused
	case c != nil && c.Reason == deployutil.ReasonRolloutLimited:
		return Held
	}
	return Stalled
}

func (r *runner) record(i int, descs []string, plan deploysync.Plan, before []*appsv1.ReplicaSet, perRS []counts, total Counts) {
	d := r.state.Deployment
	byUID := make(map[string]counts, len(before))
	for j, rs := range before {
		byUID[string(rs.UID)] = perRS[j]
	}
	var rows []ReplicaSetState
	for _, rs := range facts.SortedByCreation(owned(d, r.state.ReplicaSets)) {
		c := byUID[string(rs.UID)]
		rows = append(rows, ReplicaSetState{
			Name: rs.Name, Revision: rs.Annotations[deployutil.RevisionAnnotation],
			New:      r.isNew(rs, d),
			Replicas: *rs.Spec.Replicas,
			Pods:     Counts{Pods: c.pods, Ready: c.ready, Available: c.available, Terminating: c.terminating},
		})
	}
	r.tl.Steps = append(r.tl.Steps, Step{
		Index: i, Time: r.start.Add(r.now), Elapsed: r.now, Changes: descs,
		Branch: plan.Branch, Actions: plan.Actions, Requeue: plan.Requeue, RequeueAfter: plan.RequeueAfter, Err: plan.Err,
		Why: plan.Why, RequeueWhy: requeueWhy(d, plan, r.start, r.start.Add(r.now)),
		Replicas: *d.Spec.Replicas, MaxSurge: facts.MaxSurge(d), MaxUnavailable: facts.MaxUnavailable(d),
		ReplicaSets: rows, Totals: total, Conditions: slices.Clone(d.Status.Conditions), Deleted: r.deleted,
		Refused: r.refused, Admitted: r.admitted,
	})
	r.deleted, r.refused, r.admitted = nil, nil, nil
}

// checkPods refuses a world holding more pods than the limit: at the start
// the pods the ReplicaSets report (or the input lists for them, given), later
// the pods the world holds (the
// ReplicaSet controller creates at most the burst per ReplicaSet and step, so
// a huge spec.replicas grows the world gradually).
func (r *runner) checkPods(given map[types.UID][]*corev1.Pod) error {
	var n int64
	if r.now == 0 {
		for _, rs := range r.state.ReplicaSets {
			if ps := given[rs.UID]; len(ps) > 0 {
				n += int64(len(ps))
				continue
			}
			n += int64(rs.Status.Replicas)
			if rs.Status.TerminatingReplicas != nil {
				n += int64(*rs.Status.TerminatingReplicas)
			}
		}
	} else {
		n = r.world.total()
	}
	if n > r.cfg.maxPods {
		return fmt.Errorf("simulate: the world holds %d pods; the limit is %d (WithMaxPods)", n, r.cfg.maxPods)
	}
	return nil
}
