// Package limits is the root package's seam for rollout limits
// (deploysync.WithLimits): what a limit changes in a sync, apart from the
// mirror of upstream's controller that consults it.
//
// A [Rollout] is one sync's limits. Each decision a limit can change is one
// method, consulted at one point of the mirror: the rolling step
// ([Rollout.Step], in sync.go), the size of a new ReplicaSet
// ([Rollout.Create], in newrs.go), the Progressing condition
// ([Rollout.Progressing]) and the progress requeue ([Rollout.Holds]), both
// in status.go. Each returns a decision and writes nothing; the mirror
// carries it out. The zero Rollout is a sync without WithLimits, where
// every method leaves the decision to upstream's code.
//
// The rules are those WithLimits documents; the step itself is
// [rolling.LimitStep].
package limits

import (
	"fmt"
	"regexp"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/rolling"
)

var percent = regexp.MustCompile(`^[0-9]+%$`)

// Check says what is wrong with a limit that Rollout cannot read, or ""
// when it reads: a non-negative integer or a percentage.
func Check(v intstr.IntOrString) string {
	switch {
	case v.Type == intstr.Int && v.IntVal < 0:
		return "must not be negative"
	case v.Type == intstr.String && !percent.MatchString(v.StrVal):
		return `must be an integer or a percentage of spec.replicas ("30%")`
	case v.Type != intstr.Int && v.Type != intstr.String:
		return "neither an integer nor a string"
	}
	return ""
}

// Rollout is the rollout limits of one sync: whether WithLimits was given,
// its limit on the new ReplicaSet, and, once [Rollout.Step] has found that
// it binds, the limit resolved against the Deployment. The zero value is a
// sync without WithLimits.
type Rollout struct {
	// given says that WithLimits was passed, even with no limit: a hold
	// left by an earlier sync then ends (rule 5 of WithLimits).
	given bool
	// maxUpdated is the limit as given (it passed Check); nil for none.
	maxUpdated *intstr.IntOrString
	// bound is the limit that binds this sync's rolling step, if binds.
	bound rolling.Limit
	binds bool
}

// New is the limits of a sync given WithLimits with maxUpdated (nil for no
// limit), which must have passed [Check].
func New(maxUpdated *intstr.IntOrString) Rollout {
	return Rollout{given: true, maxUpdated: maxUpdated}
}

// resolve returns the limit that binds d now, if any: a RollingUpdate with
// an old ReplicaSet and a limit below spec.replicas.
func (r *Rollout) resolve(d *appsv1.Deployment, old []*appsv1.ReplicaSet) (rolling.Limit, bool) {
	if r.maxUpdated == nil || !facts.IsRollingUpdate(d) || len(old) == 0 {
		return rolling.Limit{}, false
	}
	v := *r.maxUpdated
	replicas := int64(*d.Spec.Replicas)
	var n int64
	if v.Type == intstr.Int {
		n = int64(v.IntVal)
	} else {
		p, err := strconv.ParseInt(v.StrVal[:len(v.StrVal)-1], 10, 64)
		if err != nil || p >= 100 { // digits too long for int64: far above 100%
			return rolling.Limit{}, false
		}
		n = (p*replicas + 99) / 100
	}
	if n >= replicas {
		return rolling.Limit{}, false
	}
	return rolling.Limit{Max: int32(n), Name: fmt.Sprintf("maxUpdated %s (%d of %d replicas)", v.String(), n, replicas)}, true
}

// Step is a rolling step decided by a binding limit, for the mirror to
// carry out in order: the scales, then history cleanup if Cleanup, then
// the rollout status.
type Step struct {
	// Scales are [rolling.LimitStep]'s writes, in order.
	Scales []deployutil.Resize
	// Cleanup says that the rollout is held (no scale, the status as read
	// shows the hold): old history is cleaned up, as upstream's is once a
	// rollout is complete (rule 6 of WithLimits).
	Cleanup bool
}

// Step decides the rolling step of d when a limit binds it (rules 1–3 and 6
// of WithLimits) and reports whether one does; if not, upstream's step
// follows. A binding limit is remembered: [Rollout.Progressing] judges the
// hold by it. old are the old ReplicaSets; allRSs is old and newRS.
func (r *Rollout) Step(d *appsv1.Deployment, allRSs, old []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (Step, bool, error) {
	l, ok := r.resolve(d, old)
	if !ok {
		return Step{}, false, nil
	}
	r.bound, r.binds = l, true
	scales, err := rolling.LimitStep(d, allRSs, old, newRS, l)
	if err != nil {
		return Step{}, true, err
	}
	return Step{Scales: scales, Cleanup: len(scales) == 0 && r.held(d, &d.Status)}, true, nil
}

// Create bounds n, the size upstream gives a new ReplicaSet of d, by the
// limit that binds d, and says so with the values RuleCreateNewLimited
// adds to RuleCreateNew's (nil when the limit does not bound it).
func (r *Rollout) Create(d *appsv1.Deployment, old []*appsv1.ReplicaSet, n int32) (int32, []action.Value) {
	l, ok := r.resolve(d, old)
	if !ok || n <= l.Max {
		return n, nil
	}
	return l.Max, []action.Value{action.Num("maxSurgeAllows", n), action.Str("limit", l.String()), action.Num("max", l.Max)}
}

// held reports whether st shows the rollout held at its binding limit: the
// new ReplicaSet at the limit, every replica there and available, the
// generation observed. It is [facts.Complete] with the limit for
// spec.replicas as the updated count.
func (r *Rollout) held(d *appsv1.Deployment, st *appsv1.DeploymentStatus) bool {
	return r.binds &&
		st.UpdatedReplicas == r.bound.Max &&
		st.Replicas == *d.Spec.Replicas &&
		st.AvailableReplicas == *d.Spec.Replicas &&
		st.ObservedGeneration >= d.Generation
}

// Progressing judges the Progressing condition of st, the status computed
// for d, where a limit decides it (rules 4 and 5 of WithLimits), and
// reports whether it does; otherwise upstream's judgement follows. cur is
// d's condition as read, subject names the new ReplicaSet (or the
// Deployment) in messages. The mirror carries the decision out: it
// removes st's Progressing condition first if replace, so that c is
// stamped fresh, then sets c (facts.SetCondition).
func (r *Rollout) Progressing(d *appsv1.Deployment, st *appsv1.DeploymentStatus, cur *appsv1.DeploymentCondition, subject string, now time.Time) (c appsv1.DeploymentCondition, replace, ok bool) {
	if !r.given {
		return appsv1.DeploymentCondition{}, false, false
	}
	if r.held(d, st) {
		c = facts.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
			deployutil.ReasonRolloutLimited, fmt.Sprintf("%s is held at %s.", subject, r.bound), now)
		if cur != nil && cur.Reason == deployutil.ReasonRolloutLimited && cur.Message != c.Message {
			// Held elsewhere than the condition says (the state moved
			// between two syncs): a new hold, stamped now. SetCondition
			// alone would keep the old message.
			if cur.Status == corev1.ConditionTrue {
				c.LastTransitionTime = cur.LastTransitionTime
			}
			return c, true, true
		}
		// Otherwise the same status and reason: SetCondition keeps the
		// condition stamped when the hold began.
		return c, false, true
	}
	if cur == nil || cur.Reason != deployutil.ReasonRolloutLimited {
		return appsv1.DeploymentCondition{}, false, false
	}
	// The hold ended: progress again, stamped now, so the deadline counts
	// from here.
	c = facts.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
		deployutil.ReasonReplicaSetUpdated, subject+" is progressing.", now)
	if cur.Status == corev1.ConditionTrue {
		c.LastTransitionTime = cur.LastTransitionTime
	}
	return c, true, true
}

// Holds reports whether c, the Progressing condition as read, is a hold's,
// which no progress deadline judges (rule 4 of WithLimits): no requeue at
// the deadline.
func (r *Rollout) Holds(c *appsv1.DeploymentCondition) bool {
	return r.given && c.Reason == deployutil.ReasonRolloutLimited
}
