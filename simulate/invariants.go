package simulate

import (
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
)

// Invariant names a property every run is checked for. Only the
// Deployment's own ReplicaSets (controller reference to it) are counted. The
// pod counts are taken at each step after the world moved and before the
// scripted changes and the sync, against the Deployment's spec as the
// previous sync saw it — the spec the pods were sized for.
//
// The invariants hold the controller to what it does from the input onward.
// A state given to [Run] that already breaks SurgeBound, AvailabilityBound
// or RecreateNoOverlap at step 0 is recorded once in
// [Timeline.InputBroken], and that check is suspended until the state
// satisfies it again: what follows from the input is not the controller's
// violation.
type Invariant string

const (
	// SurgeBound: at every step after step 0, the pods that are not
	// terminating number at most spec.replicas + maxSurge (maxSurge is 0
	// for Recreate). Terminating pods are not counted: upstream (v1.37, no
	// podReplacementPolicy) does not wait for them, so the pods including
	// terminating ones can exceed the bound (see [Timeline.PeakPods]).
	// The bound holds for the ReplicaSets' spec.replicas, which the
	// ReplicaSet controller turns into pods. A scripted change that lowers
	// maxSurge (or moves to Recreate) without changing spec.replicas
	// suspends the check until the pods are within the new bound again:
	// upstream removes the surplus only as old pods may go. (A change of
	// spec.replicas does not suspend it: the scaling event resizes every
	// ReplicaSet within the new bound at once.)
	SurgeBound Invariant = "pods <= replicas + maxSurge"
	// AvailabilityBound: for a RollingUpdate, once a step finds every
	// replica available (available >= spec.replicas), every later step has
	// available >= spec.replicas - maxUnavailable, counting pods that are
	// not terminating and have been ready for more than their ReplicaSet's
	// minReadySeconds (what status.availableReplicas counts). Upstream
	// scales old ReplicaSets down only by the available pods above that
	// minimum, and the ReplicaSet controller deletes unavailable pods first.
	// A scripted change of spec.replicas or of the strategy disarms the
	// check until every replica is available again: the bound moves, and
	// proportional scaling does not look at availability. Recreate is never
	// checked (it has downtime by design; see RecreateNoOverlap).
	AvailabilityBound Invariant = "available >= replicas - maxUnavailable"
	// RecreateNoOverlap: for Recreate, at every step after step 0, the new
	// ReplicaSet (the one with the Deployment's template) has no pod while
	// another ReplicaSet of the Deployment has any, terminating ones
	// included. Pods of deleted ReplicaSets are not counted: upstream's pod
	// map does not see them either.
	RecreateNoOverlap Invariant = "recreate: old and new pods never together"
	// OneNewReplicaSet: after every sync at most one ReplicaSet has the
	// Deployment's pod template (ignoring the hash label), and after a
	// RollingUpdate or Rollback sync without error exactly one does.
	OneNewReplicaSet Invariant = "one new ReplicaSet"
	// RevisionsIncrease: after every sync, the Deployment's revision
	// annotation is not lower than before, no ReplicaSet's revision is
	// lower than before, and a ReplicaSet created by the sync has a
	// revision above every other ReplicaSet's.
	RevisionsIncrease Invariant = "revisions increase"
)

// checker holds what the invariants need between steps.
type checker struct {
	violations []Violation
	// inputBroken are the invariants the input already broke at step 0.
	inputBroken []Violation
	// overlapSuspended is set by an input whose old and new pods overlap.
	overlapSuspended bool
	// isNew reports whether a ReplicaSet has a Deployment's template.
	isNew func(rs *appsv1.ReplicaSet, d *appsv1.Deployment) bool
	// spec is the Deployment as the last sync saw it.
	spec  *appsv1.Deployment
	armed bool
	// noArm keeps the availability check disarmed at step 0 when the input
	// already commits to fewer available pods than its bound.
	noArm bool
	// surgeSuspended is set by a lower maxSurge, until the pods fit.
	surgeSuspended bool
	// revisions by ReplicaSet name, and the Deployment's, after the last sync.
	revisions map[string]int64
	dRevision int64
}

func (c *checker) fail(step int, inv Invariant, format string, args ...any) {
	c.violations = append(c.violations, Violation{Step: step, Invariant: inv, Detail: fmt.Sprintf(format, args...)})
}

// owned returns the Deployment's ReplicaSets in the state.
func owned(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range rss {
		if ref := metav1.GetControllerOfNoCopy(rs); ref != nil && ref.UID == d.UID {
			out = append(out, rs)
		}
	}
	return out
}

// measured checks the pod counts of a step, before its changes and sync.
// perRS are the counts of the owned ReplicaSets, in order.
func (c *checker) measured(step int, rss []*appsv1.ReplicaSet, perRS []counts, total Counts) {
	d := c.spec
	replicas := *d.Spec.Replicas
	surge, unavailable := facts.MaxSurge(d), facts.MaxUnavailable(d)
	rolling := facts.IsRollingUpdate(d)
	if step == 0 {
		c.input(rss, perRS, total)
	}
	if c.surgeSuspended && total.Pods <= replicas+surge {
		c.surgeSuspended = false
	}
	if step > 0 && !c.surgeSuspended && total.Pods > replicas+surge {
		c.fail(step, SurgeBound, "%d pods are not terminating; replicas %d + maxSurge %d = %d", total.Pods, replicas, surge, replicas+surge)
	}
	if rolling && c.armed && step > 0 && total.Available < replicas-unavailable {
		c.fail(step, AvailabilityBound, "%d pods are available; replicas %d - maxUnavailable %d = %d", total.Available, replicas, unavailable, replicas-unavailable)
	}
	if rolling && total.Available >= replicas && !c.noArm {
		c.armed = true
	}
	c.noArm = false
	if step > 0 && d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		newPods, oldPods := c.recreatePods(rss, perRS)
		switch {
		case newPods == 0 || oldPods == 0:
			c.overlapSuspended = false
		case !c.overlapSuspended:
			c.fail(step, RecreateNoOverlap, "the new ReplicaSet has %d pods while old ReplicaSets have %d", newPods, oldPods)
		}
	}
}

// input records the invariants the state given to Run already breaks at
// step 0, and suspends their checks (see [Invariant]).
func (c *checker) input(rss []*appsv1.ReplicaSet, perRS []counts, total Counts) {
	d := c.spec
	replicas := *d.Spec.Replicas
	surge, unavailable := facts.MaxSurge(d), facts.MaxUnavailable(d)
	broken := func(inv Invariant, format string, args ...any) {
		c.inputBroken = append(c.inputBroken, Violation{Step: 0, Invariant: inv, Detail: fmt.Sprintf(format, args...)})
	}
	if total.Pods > replicas+surge {
		broken(SurgeBound, "the input already has %d pods that are not terminating, more than replicas %d + maxSurge %d = %d",
			total.Pods, replicas, surge, replicas+surge)
		c.surgeSuspended = true
	}
	if facts.IsRollingUpdate(d) && total.Available >= replicas && len(rss) > 0 {
		// Pods above a ReplicaSet's spec.replicas go, available or not,
		// whatever the controller does next.
		var kept int32
		for i, rs := range rss {
			kept += min(perRS[i].available, max(*rs.Spec.Replicas, 0))
		}
		if kept < replicas-unavailable {
			broken(AvailabilityBound, "the input already has fewer available pods than replicas %d - maxUnavailable %d = %d will keep: "+
				"its ReplicaSets' spec.replicas keep %d of its %d available pods, the others go whatever the controller does",
				replicas, unavailable, replicas-unavailable, kept, total.Available)
			c.noArm = true
		}
	}
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		if newPods, oldPods := c.recreatePods(rss, perRS); newPods > 0 && oldPods > 0 {
			broken(RecreateNoOverlap, "the input already has %d pods of the new ReplicaSet while old ReplicaSets have %d", newPods, oldPods)
			c.overlapSuspended = true
		}
	}
}

// recreatePods counts the pods, terminating ones included, of the new
// ReplicaSet and of the others.
func (c *checker) recreatePods(rss []*appsv1.ReplicaSet, perRS []counts) (newPods, oldPods int32) {
	for i, rs := range rss {
		n := perRS[i].pods + perRS[i].terminating
		if c.isNew(rs, c.spec) {
			newPods += n
		} else {
			oldPods += n
		}
	}
	return newPods, oldPods
}

// changed is told the Deployment before and after the scripted changes of a
// step: a new size or strategy disarms the availability check.
func (c *checker) changed(before, after *appsv1.Deployment) {
	if *before.Spec.Replicas != *after.Spec.Replicas ||
		facts.MaxSurge(before) != facts.MaxSurge(after) ||
		facts.MaxUnavailable(before) != facts.MaxUnavailable(after) ||
		before.Spec.Strategy.Type != after.Spec.Strategy.Type {
		c.armed = false
	}
	if *before.Spec.Replicas == *after.Spec.Replicas && facts.MaxSurge(after) < facts.MaxSurge(before) {
		c.surgeSuspended = true
	}
}

// synced checks a step after its plan was applied.
func (c *checker) synced(step int, plan deploysync.Plan, after deploysync.State) {
	d := after.Deployment
	rss := owned(d, after.ReplicaSets)
	matching := 0
	for _, rs := range rss {
		if c.isNew(rs, d) {
			matching++
		}
	}
	switch {
	case matching > 1:
		c.fail(step, OneNewReplicaSet, "%d ReplicaSets have the Deployment's template", matching)
	case matching == 0 && plan.Err == nil && (plan.Branch == deploysync.RollingUpdate || plan.Branch == deploysync.Rollback):
		c.fail(step, OneNewReplicaSet, "no ReplicaSet has the Deployment's template after a %s sync", plan.Branch)
	}
	c.revisionsAfter(step, d, rss)
	c.spec = d
}

func (c *checker) revisionsAfter(step int, d *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
	rev := func(m metav1.Object) int64 {
		v, err := strconv.ParseInt(m.GetAnnotations()[deployutil.RevisionAnnotation], 10, 64)
		if err != nil {
			return 0
		}
		return v
	}
	if r := rev(d); r < c.dRevision {
		c.fail(step, RevisionsIncrease, "the Deployment's revision went from %d to %d", c.dRevision, r)
	} else {
		c.dRevision = r
	}
	next := make(map[string]int64, len(rss))
	for _, rs := range rss {
		r := rev(rs)
		next[rs.Name] = r
		prev, existed := c.revisions[rs.Name]
		switch {
		case existed && r < prev:
			c.fail(step, RevisionsIncrease, "ReplicaSet %s went from revision %d to %d", rs.Name, prev, r)
		case !existed && c.revisions != nil:
			for _, other := range rss {
				if other.Name != rs.Name && rev(other) >= r {
					c.fail(step, RevisionsIncrease, "new ReplicaSet %s has revision %d, not above %s's %d", rs.Name, r, other.Name, rev(other))
				}
			}
		}
	}
	c.revisions = next
}
