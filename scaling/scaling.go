package scaling

import (
	"fmt"
	"math"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/deployutil"
)

// IsScalingEvent reports whether spec.replicas differs from what the
// ReplicaSets were last sized for: true if some active ReplicaSet (new or
// old) carries a desired-replicas annotation that parses and differs from
// spec.replicas. ReplicaSets without a readable annotation are ignored.
func IsScalingEvent(d *appsv1.Deployment, newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) bool {
	for _, rs := range deployutil.FilterActive(append(old[:len(old):len(old)], newRS)) {
		if desired, ok := deployutil.DesiredReplicas(rs); ok && desired != *d.Spec.Replicas {
			return true
		}
	}
	return false
}

// ActiveOrLatest returns the one ReplicaSet that should carry all replicas
// when there is no doubt which: the only active one; or, if none is active,
// the new one, else the newest old one. It returns nil when several are
// active. old must be newest first (see
// [deployutil.SortedByCreationNewestFirst]), as upstream sorts it.
func ActiveOrLatest(newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if newRS == nil && len(old) == 0 {
		return nil
	}
	active := deployutil.FilterActive(append(old[:len(old):len(old)], newRS))
	switch len(active) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return old[0]
	case 1:
		return active[0]
	}
	return nil
}

// Scale decides the writes of a scaling event (or of a paused Deployment's
// sync), by these rules in order:
//
//  1. If [ActiveOrLatest] names one ReplicaSet, it gets spec.replicas — and
//     nothing is written if it already has that size.
//  2. If the new ReplicaSet is saturated ([deployutil.IsSaturated]), every
//     active old ReplicaSet is scaled to 0.
//  3. For RollingUpdate only, the active ReplicaSets share the difference
//     between replicas+maxSurge (0 when replicas is 0) and their current
//     total, in proportion to their size (see [Proportions]). Each one is
//     written, even at an unchanged size, to refresh its annotations.
//  4. Otherwise (Recreate with several active ReplicaSets): nothing.
//
// old must be newest first (see [ActiveOrLatest]).
func Scale(d *appsv1.Deployment, newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet, fixes Fixes) []deployutil.Scale {
	replicas := *d.Spec.Replicas
	if rs := ActiveOrLatest(newRS, old); rs != nil {
		if *rs.Spec.Replicas == replicas {
			return nil
		}
		s, ok := deployutil.ScaleReplicaSet(rs, replicas, d, false,
			fmt.Sprintf("it is the only ReplicaSet that should run pods; spec.replicas is %d", replicas))
		if !ok {
			return nil
		}
		return []deployutil.Scale{s}
	}
	if deployutil.IsSaturated(d, newRS) {
		var out []deployutil.Scale
		for _, rs := range deployutil.FilterActive(old) {
			if s, ok := deployutil.ScaleReplicaSet(rs, 0, d, false,
				fmt.Sprintf("the new ReplicaSet %s is saturated (%d of %d available)", newRS.Name, newRS.Status.AvailableReplicas, replicas)); ok {
				out = append(out, s)
			}
		}
		return out
	}
	if !deployutil.IsRollingUpdate(d) {
		return nil
	}
	var out []deployutil.Scale
	for _, p := range Proportions(d, newRS, old, fixes) {
		if s, ok := deployutil.ScaleReplicaSet(p.ReplicaSet, p.Replicas, d, true, p.Why); ok {
			out = append(out, s)
		}
	}
	return out
}

// Fixes selects corrections of upstream bugs in scaling. The zero value
// decides exactly as upstream; each field is set by the root package's
// Fix of the same name (see deploysync.WithFixes), whose documentation
// gives the upstream issue and the states it changes.
type Fixes struct {
	// ProportionalOverflow computes proportional shares in 64 bits.
	ProportionalOverflow bool
	// StaleDesiredReplicas rewrites a stale desired-replicas annotation of
	// the only active ReplicaSet when its size already matches.
	StaleDesiredReplicas bool
	// UnhealthyFirst takes a proportional scale-down from the unavailable
	// replicas of old ReplicaSets first.
	UnhealthyFirst bool
}

// Share is one ReplicaSet's part of a proportional scaling.
type Share struct {
	ReplicaSet *appsv1.ReplicaSet
	Replicas   int32
	Why        string
}

// Proportions spreads a scaling event over the active ReplicaSets, by these
// rules in order:
//
//  1. The target total is replicas+maxSurge, or 0 when replicas is 0; toAdd
//     is the target minus the active ReplicaSets' current total.
//  2. Scaling up, the ReplicaSets are visited largest first, newest first on
//     ties; scaling down, largest first, oldest first on ties; with nothing
//     to add, in their given order.
//  3. Each gets round(size × newMax / oldMax) − size more (half away from
//     zero), where newMax is replicas+maxSurge and oldMax its max-replicas
//     annotation (or status.replicas of the Deployment when that is missing
//     or 0; with neither, nothing) — but never more than what is left of
//     toAdd. With replicas 0, each gives up all its replicas.
//  4. The first ReplicaSet visited also gets whatever is left over, and no
//     ReplicaSet goes below 0.
//
// All of it is upstream's int32 arithmetic: the sums, replicas+maxSurge and
// the product size × newMax wrap around above 2³¹−1 (50000 × 50000 gives
// −1794967296, and shares that make no sense), unless fixes.ProportionalOverflow
// is set, which computes the product in 64 bits (see [fraction]).
func Proportions(d *appsv1.Deployment, newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet, fixes Fixes) []Share {
	active := deployutil.FilterActive(append(old[:len(old):len(old)], newRS))
	replicas := *d.Spec.Replicas
	var allowed int32
	if replicas > 0 {
		allowed = deployutil.MaxReplicas(d)
	}
	current := deployutil.SpecReplicas(active)
	toAdd := allowed - current
	switch {
	case toAdd > 0:
		active = deployutil.SortedBySizeNewer(active)
	case toAdd < 0:
		active = deployutil.SortedBySizeOlder(active)
	}
	shares := make([]Share, len(active))
	var added int32
	for i, rs := range active {
		shares[i] = Share{ReplicaSet: rs, Replicas: *rs.Spec.Replicas}
		if toAdd != 0 {
			p := proportion(rs, d, toAdd, added, fixes)
			shares[i].Replicas += p
			added += p
		}
	}
	if len(shares) > 0 && toAdd != 0 {
		shares[0].Replicas = max(shares[0].Replicas+toAdd-added, 0)
	}
	for i := range shares {
		shares[i].Why = fmt.Sprintf("proportional scaling: %d active ReplicaSets hold %d replicas and may hold %d (replicas %d + maxSurge %d); this one's share is %d",
			len(active), current, allowed, replicas, deployutil.MaxSurge(d), shares[i].Replicas)
	}
	return shares
}

// proportion is how many replicas rs gains (or loses, if negative) when
// toAdd replicas are spread and added of them are already given out.
func proportion(rs *appsv1.ReplicaSet, d *appsv1.Deployment, toAdd, added int32, fixes Fixes) int32 {
	if rs == nil || *rs.Spec.Replicas == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	f := fraction(rs, d, fixes)
	left := toAdd - added
	if toAdd > 0 {
		return min(f, left)
	}
	return max(f, left)
}

// fraction is rs's proportional change if the whole Deployment went from its
// old maximum to its new one: round(size × newMax / oldMax) − size, rounding
// half away from zero.
//
// As upstream, size × newMax is an int32 product that wraps around above
// 2³¹−1, and the rounded quotient is converted to int32 as Go does on amd64
// (see [roundToInt32]). With fixes.ProportionalOverflow the product is
// computed in 64 bits and a quotient above 2³¹−1 counts as 2³¹−1.
func fraction(rs *appsv1.ReplicaSet, d *appsv1.Deployment, fixes Fixes) int32 {
	size := *rs.Spec.Replicas
	if *d.Spec.Replicas == 0 {
		return -size
	}
	newMax := deployutil.MaxReplicas(d)
	oldMax, ok := deployutil.MaxReplicasAnnotationValue(rs)
	if !ok || oldMax == 0 {
		oldMax = d.Status.Replicas
		if oldMax == 0 {
			return 0
		}
	}
	if fixes.ProportionalOverflow {
		x := math.Round(float64(int64(size)*int64(newMax)) / float64(oldMax))
		return int32(min(max(x, math.MinInt32), math.MaxInt32)) - size
	}
	return roundToInt32(float64(size*newMax)/float64(oldMax)) - size
}

// roundToInt32 is upstream's integer.RoundToInt32, int32(math.Round(x)),
// with the conversion of a value outside int32 spelled out as Go's amd64
// code performs it (CVTTSD2SL, which yields −2³¹ for NaN and for anything
// out of range) instead of left to the platform. The quotient upstream
// converts always fits (|size × newMax| ≤ 2³¹ in int32 and oldMax ≥ 1), so
// this only pins down what the Go specification leaves open.
func roundToInt32(x float64) int32 {
	r := math.Round(x)
	if math.IsNaN(r) || r < math.MinInt32 || r > math.MaxInt32 {
		return math.MinInt32
	}
	return int32(r)
}
