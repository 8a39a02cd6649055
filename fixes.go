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
	// is computed in 64 bits. Only scaling events and paused Deployments
	// whose product exceeds 2³¹−1 decide differently.
	FixProportionalOverflow Fix = "ProportionalOverflow"

	// FixStaleDesiredReplicas refreshes a stale desired-replicas annotation
	// (kubernetes/kubernetes#102551; unmerged fixes #138036 and #138840).
	//
	// Upstream treats every sync as a scaling event while an active
	// ReplicaSet's deployment.kubernetes.io/desired-replicas annotation
	// differs from spec.replicas; when the only active ReplicaSet already
	// has spec.replicas replicas, its scale step writes nothing, so the
	// annotation never changes and the rollout never starts. With the fix
	// that ReplicaSet's desired- and max-replicas annotations are rewritten
	// (same size, no event), and the next sync rolls out.
	FixStaleDesiredReplicas Fix = "StaleDesiredReplicas"

	// FixUnhealthyFirst makes a proportional scale-down take unavailable
	// replicas of old ReplicaSets first (kubernetes/kubernetes#119536, closed
	// unfixed; OpenKruise's Advanced Deployment does this, openkruise/rollouts#150).
	//
	// Upstream shares a scale-down in proportion to size, so a healthy new
	// ReplicaSet can lose pods while an old one keeps pods that never became
	// available. With the fix, old ReplicaSets first give up up to their
	// unavailable replicas (spec − available), oldest first, and only what is
	// left is shared proportionally. Only proportional scale-downs with
	// unavailable replicas in old ReplicaSets decide differently.
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
