package deploysync

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/deploysync/deploysync/internal/limits"
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
//     True with reason [deployutil.ReasonRolloutLimited] and a message naming the
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

// checkLimits returns a *LimitError for a limit that is neither a
// non-negative integer nor a percentage.
func (o options) checkLimits() error {
	if o.limits == nil || o.limits.MaxUpdated == nil {
		return nil
	}
	v := *o.limits.MaxUpdated
	if detail := limits.Check(v); detail != "" {
		return &LimitError{Option: "WithLimits", Field: "MaxUpdated", Value: v, Detail: detail}
	}
	return nil
}

// sessionLimits is the seam the sync consults for the limits of o (the
// zero limits.Rollout without WithLimits).
func (o options) sessionLimits() limits.Rollout {
	if o.limits == nil {
		return limits.Rollout{}
	}
	return limits.New(o.limits.MaxUpdated)
}
