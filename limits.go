package deploysync

import (
	"fmt"
	"regexp"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/rolling"
)

// Limits bound a RollingUpdate for controllers that stop a rollout part-way
// (a partition, a step of a canary). kube-controller-manager has no such
// input; with no limit, Sync is upstream's.
type Limits struct {
	// MaxUpdated is the most replicas the new ReplicaSet may have: an
	// integer, or a percentage of spec.replicas rounded up as maxSurge is
	// ("30%" of 10 is 3, of 5 is 2). nil, or a value of spec.replicas or
	// more, sets no limit. A negative integer or a string that is not a
	// percentage ("30", "-5%", "x%") is a [*LimitError].
	MaxUpdated *intstr.IntOrString
}

// ReasonRolloutLimited is the reason of the Progressing condition of a
// rollout held at its limit (see [WithLimits]).
const ReasonRolloutLimited = "RolloutLimited"

// WithLimits bounds RollingUpdate rollouts by l. Where the limit is below
// spec.replicas and the Deployment has an old ReplicaSet, the rolling step
// is [rolling.LimitStep] instead of upstream's:
//
//  1. The new ReplicaSet grows as upstream's does, within maxSurge, but to
//     at most the limit; a new ReplicaSet is created with at most the limit.
//  2. The old ReplicaSets shrink as upstream's do, within maxUnavailable,
//     but only to spec.replicas − limit: once the new ReplicaSet is held at
//     the limit the total is spec.replicas again.
//  3. A limit lowered below the new ReplicaSet's size is the same rollout
//     backwards: the old ReplicaSet of the highest revision (the active one
//     if there is one) grows back within maxSurge, then the new ReplicaSet
//     shrinks within maxUnavailable, until it is at the limit. Raising the
//     limit resumes the rollout.
//  4. Held — the new ReplicaSet has the limit, every replica exists and is
//     available, the generation is observed — the Progressing condition is
//     True with reason [ReasonRolloutLimited] and a message naming the
//     limit. While it holds, the progress deadline is not judged, as
//     upstream does not judge it once a rollout is complete, and the plan
//     asks for no requeue; its lastUpdateTime is the time the hold began,
//     never refreshed, so a held Deployment's status is not rewritten.
//  5. When a hold ends (the limit moved, spec.replicas or the template
//     changed), the condition becomes ReplicaSetUpdated stamped now: the
//     deadline counts from the end of the hold, as from a resume.
//  6. History cleanup runs while held, as upstream's runs once complete.
//
// Every other branch is upstream's: paused Deployments and scaling events
// scale proportionally as upstream (the next rolling sync brings the new
// ReplicaSet back to its limit), Recreate ignores the limit, and a
// Deployment with no old ReplicaSet (its first rollout) is not limited,
// since nothing would hold the rest of its replicas. Reasons name the
// limit wherever it decided a size.
//
// A controller that limits rollouts should pass WithLimits on every sync of
// the Deployments it limits, with the zero Limits when there is no limit
// any more: rule 5 then ends a hold left by an earlier sync (without the
// option, the stale RolloutLimited condition is judged as upstream judges
// any condition, and its old lastUpdateTime is past the deadline).
func WithLimits(l Limits) Option {
	return func(o *options) { o.limits = &l }
}

// LimitError is the error Sync returns for a limit it cannot read.
type LimitError struct {
	// Option is the option, "WithLimits".
	Option string
	// Field is the field of [Limits], "MaxUpdated".
	Field string
	// Value is the value as given ("-5%", -3).
	Value intstr.IntOrString
	// Detail says what is wrong.
	Detail string
}

// Error names the option, the field, the value and what is wrong.
func (e *LimitError) Error() string {
	v := e.Value.String()
	if e.Value.Type == intstr.String {
		v = strconv.Quote(v)
	}
	return fmt.Sprintf("deploysync: %s: %s %s: %s", e.Option, e.Field, v, e.Detail)
}

var percent = regexp.MustCompile(`^[0-9]+%$`)

// checkLimits returns a *LimitError for a limit that is neither a
// non-negative integer nor a percentage.
func (o options) checkLimits() error {
	if o.limits == nil || o.limits.MaxUpdated == nil {
		return nil
	}
	v := *o.limits.MaxUpdated
	bad := func(detail string) error {
		return &LimitError{Option: "WithLimits", Field: "MaxUpdated", Value: v, Detail: detail}
	}
	switch {
	case v.Type == intstr.Int && v.IntVal < 0:
		return bad("must not be negative")
	case v.Type == intstr.String && !percent.MatchString(v.StrVal):
		return bad(`must be an integer or a percentage of spec.replicas ("30%")`)
	case v.Type != intstr.Int && v.Type != intstr.String:
		return bad("neither an integer nor a string")
	}
	return nil
}

// resolveLimit returns the limit that binds this Deployment now, if any:
// a RollingUpdate with an old ReplicaSet and a limit below spec.replicas.
func (s *session) resolveLimit(old []*appsv1.ReplicaSet) (rolling.Limit, bool) {
	d := s.d
	if s.opts.limits == nil || s.opts.limits.MaxUpdated == nil || !facts.IsRollingUpdate(d) || len(old) == 0 {
		return rolling.Limit{}, false
	}
	v := *s.opts.limits.MaxUpdated
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

// limitCreate bounds the size of a new ReplicaSet by the limit, and says so
// with the values RuleCreateNewLimited adds to RuleCreateNew's (nil when
// the limit does not bound it).
func (s *session) limitCreate(old []*appsv1.ReplicaSet, n int32) (int32, []action.Value) {
	l, ok := s.resolveLimit(old)
	if !ok || n <= l.Max {
		return n, nil
	}
	return l.Max, []action.Value{action.Num("maxSurgeAllows", n), action.Str("limit", l.String()), action.Num("max", l.Max)}
}

// rolloutLimited is rolloutRolling under a binding limit.
func (s *session) rolloutLimited(allRSs, old []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, l rolling.Limit) error {
	s.limit = &l
	scales, err := rolling.LimitStep(s.d, allRSs, old, newRS, l)
	if err != nil {
		return err
	}
	for _, sc := range scales {
		s.scale(sc)
	}
	if len(scales) == 0 && s.held(&s.d.Status) {
		s.cleanup(old)
	}
	s.syncRolloutStatus(allRSs, newRS)
	return nil
}

// held reports whether st shows the rollout held at its binding limit:
// the new ReplicaSet at the limit, every replica there and available, the
// generation observed. It is [facts.Complete] with the limit for
// spec.replicas as the updated count.
func (s *session) held(st *appsv1.DeploymentStatus) bool {
	d := s.d
	return s.limit != nil &&
		st.UpdatedReplicas == s.limit.Max &&
		st.Replicas == *d.Spec.Replicas &&
		st.AvailableReplicas == *d.Spec.Replicas &&
		st.ObservedGeneration >= d.Generation
}

// limitProgress judges the Progressing condition where a limit decides it
// (rules 4 and 5 of [WithLimits]) and reports whether it did; otherwise
// upstream's judgement follows.
func (s *session) limitProgress(st *appsv1.DeploymentStatus, cur *appsv1.DeploymentCondition, subject string) bool {
	if s.opts.limits == nil {
		return false
	}
	if s.held(st) {
		c := facts.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
			ReasonRolloutLimited, fmt.Sprintf("%s is held at %s.", subject, s.limit), s.now)
		if cur != nil && cur.Reason == ReasonRolloutLimited && cur.Message != c.Message {
			// Held elsewhere than the condition says (the state moved
			// between two syncs): a new hold, stamped now. SetCondition
			// alone would keep the old message.
			if cur.Status == corev1.ConditionTrue {
				c.LastTransitionTime = cur.LastTransitionTime
			}
			facts.RemoveCondition(st, appsv1.DeploymentProgressing)
		}
		// Otherwise the same status and reason: SetCondition keeps the
		// condition stamped when the hold began.
		facts.SetCondition(st, c)
		return true
	}
	if cur == nil || cur.Reason != ReasonRolloutLimited {
		return false
	}
	c := facts.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
		action.ReasonReplicaSetUpdated, subject+" is progressing.", s.now)
	if cur.Status == corev1.ConditionTrue {
		c.LastTransitionTime = cur.LastTransitionTime
	}
	facts.RemoveCondition(st, appsv1.DeploymentProgressing)
	facts.SetCondition(st, c)
	return true
}

// limitHolds reports whether c is a hold's condition, which no deadline
// judges (rule 4 of [WithLimits]).
func (s *session) limitHolds(c *appsv1.DeploymentCondition) bool {
	return s.opts.limits != nil && c.Reason == ReasonRolloutLimited
}
