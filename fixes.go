package deploysync

import (
	"fmt"
	"slices"
	"strings"

	"github.com/deploysync/deploysync/scaling"
)

// Fix names a correction of a known upstream bug. By default Sync decides
// exactly as kube-controller-manager does, bugs included; a caller that
// wants a bug corrected names its Fix in [WithFixes]. Each Fix changes only
// the states its documentation lists, and the conformance suite checks that.
type Fix string

const (
	// FixProportionalOverflow corrects proportional scaling's int32 product.
	//
	// Upstream multiplies a ReplicaSet's size by the Deployment's new
	// maximum (replicas + maxSurge) in int32 before dividing by the old
	// maximum, so a product above 2³¹−1 (50,000 × 50,000, say) wraps around
	// and the shares come out wrong, even negative. With the fix the product
	// is computed in 64 bits (a quotient beyond int32 is clamped to it).
	// Only proportional scaling (scaling events and paused Deployments) where
	// some active ReplicaSet's product falls outside int32 decides
	// differently.
	FixProportionalOverflow Fix = "ProportionalOverflow"

	// FixStaleDesiredReplicas refreshes a stale desired-replicas annotation
	// (kubernetes/kubernetes#102551).
	//
	// Upstream: isScalingEvent is true while some active ReplicaSet's
	// deployment.kubernetes.io/desired-replicas annotation parses and
	// differs from spec.replicas, and sends the sync to scale(). There, when
	// FindActiveOrLatest names one ReplicaSet (the only active one; with
	// none active, the new one or else the newest old one) that already has
	// spec.replicas replicas, scale() returns before scaleReplicaSet, so
	// nothing is written and the annotation stays stale. Every later sync
	// is again a scaling event: after a template change the new ReplicaSet
	// is never created and the rollout never starts (the behaviour
	// reference's trace B.7 and §8.16). The reproduction needs no
	// outside writer: during a maxSurge 0 rollout of 5 replicas, one sync
	// creates the new ReplicaSet at 0 and scales the old one to 4 with
	// annotations 5/5; if spec.replicas becomes 4 before the next sync, the
	// old ReplicaSet is the only active one, has 4, and says 5, for good.
	//
	// With the fix: in that case, if the ReplicaSet's replica annotations
	// need an update (upstream's ReplicasAnnotationsNeedUpdate with desired
	// spec.replicas and max spec.replicas+maxSurge: either annotation
	// differs, or there are none), the ReplicaSet is written at the same
	// size with both annotations set, as upstream's scaleReplicaSet would
	// write them; there is no ScalingReplicaSet event, since the size does
	// not change. The next sync is no scaling event and rolls out.
	//
	// Upstream's tracker: #102551 was closed by the bot as rotten, unfixed
	// (an attempt then, #102579, which also refreshed the annotations in
	// that early return, was closed unmerged). Two pull requests are open
	// and unmerged as of this writing: #138036 ("deployment: fix stuck
	// rollout when scaling during rolling update with maxSurge=0", opened
	// 2026-03-26) makes scale() check ReplicasAnnotationsNeedUpdate before
	// returning early and, when only the annotations are stale, call
	// scaleReplicaSet with forceUpdate so they are refreshed — the change
	// this fix makes; #138840 ("Ensure replicaset annotations are up to
	// date if spec replicas match", opened 2026-05-07) describes the same
	// deadlock (spec.replicas 2 on the Deployment and its ReplicaSet,
	// desired-replicas 3, seen in production) and, as its title says,
	// brings the annotations up to date when the sizes match. #138839, by
	// the same author with the same description, is closed.
	//
	// States that decide differently: the Paused and ScalingEvent branches
	// only, where the ReplicaSet FindActiveOrLatest names has spec.replicas
	// replicas and replica annotations other than spec.replicas and
	// spec.replicas+maxSurge. (On the paused path this also refreshes a
	// stale max-replicas annotation, or the annotations of an inactive
	// latest ReplicaSet when spec.replicas is 0.)
	FixStaleDesiredReplicas Fix = "StaleDesiredReplicas"

	// FixUnhealthyFirst makes a proportional scale-down take unavailable
	// replicas of old ReplicaSets first (kubernetes/kubernetes#119536).
	//
	// Upstream: on a scaling event (or a paused sync) with several active
	// ReplicaSets and a new one that is not saturated, a RollingUpdate
	// Deployment's scale() shares the change between the active
	// ReplicaSets' total and replicas+maxSurge in proportion to their size,
	// largest first (oldest first on ties), leftover to the first. A
	// scale-down therefore takes from a healthy new ReplicaSet as much as
	// from an old one whose pods never became available. The issue's
	// example: 5 → 4 with an old ReplicaSet of 3 healthy pods, an old one
	// of 1 unhealthy pod and a new one of 1 healthy pod; upstream shrinks
	// the new one. #119536 was closed by the bot as rotten, unfixed.
	// OpenKruise's Advanced Deployment (openkruise/rollouts#150, merged
	// 2023) scales old ReplicaSets' unhealthy replicas down first, oldest
	// first, before sharing the rest, as upstream's rolling update already
	// does with its cleanupUnhealthyReplicas.
	//
	// With the fix, when replicas > 0 and there are replicas to remove: the
	// active old ReplicaSets, oldest first (creation time, then name), each
	// give up min(spec.replicas − status.availableReplicas, what is left to
	// remove), the difference taken as 0 when available exceeds spec; the
	// new ReplicaSet gives up nothing this way (its unavailable pods may
	// just be starting). What is left to remove is shared by upstream's
	// proportional rules over the sizes after those removals (each
	// ReplicaSet's max-replicas annotation still gives its old maximum).
	// Every active ReplicaSet is still written with refreshed annotations,
	// as on upstream's proportional path, and each write's reason says how
	// many unavailable replicas it gave up and its share. Unlike OpenKruise,
	// the target stays upstream's replicas+maxSurge.
	//
	// States that decide differently: the Paused and ScalingEvent branches
	// only, RollingUpdate, replicas > 0, several active ReplicaSets, the
	// new one not saturated, the active ReplicaSets holding more than
	// replicas+maxSurge, and an active old ReplicaSet with fewer available
	// replicas than spec.replicas.
	FixUnhealthyFirst Fix = "UnhealthyFirst"
)

// Fixes lists every Fix, in the order of their declaration.
func Fixes() []Fix {
	return []Fix{FixProportionalOverflow, FixStaleDesiredReplicas, FixUnhealthyFirst}
}

// WithFixes turns on corrections of upstream bugs. Sync returns an error for
// a Fix it does not know.
func WithFixes(fixes ...Fix) Option {
	return func(o *options) { o.fixes = append(o.fixes, fixes...) }
}

// fixed reports whether f is on.
func (o options) fixed(f Fix) bool { return slices.Contains(o.fixes, f) }

// checkFixes returns an error naming the first unknown fix.
func (o options) checkFixes() error {
	known := Fixes()
	for _, f := range o.fixes {
		if !slices.Contains(known, f) {
			names := make([]string, len(known))
			for i, k := range known {
				names[i] = string(k)
			}
			return fmt.Errorf("deploysync: unknown fix %q; known fixes: %s", f, strings.Join(names, ", "))
		}
	}
	return nil
}

// scalingFixes is the scaling package's view of the fixes that are on.
func (o options) scalingFixes() scaling.Fixes {
	return scaling.Fixes{
		ProportionalOverflow: o.fixed(FixProportionalOverflow),
		StaleDesiredReplicas: o.fixed(FixStaleDesiredReplicas),
		UnhealthyFirst:       o.fixed(FixUnhealthyFirst),
	}
}
