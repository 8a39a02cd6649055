package scaling

import (
	"fmt"
	"math"
	"slices"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
)

// IsScalingEvent reports whether spec.replicas differs from what the
// ReplicaSets were last sized for: true if some active ReplicaSet (new or
// old) carries a desired-replicas annotation that parses and differs from
// spec.replicas. ReplicaSets without a readable annotation are ignored.
func IsScalingEvent(d *appsv1.Deployment, newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) bool {
	differs := func(rs *appsv1.ReplicaSet) bool {
		if rs == nil || rs.Spec.Replicas == nil || *rs.Spec.Replicas <= 0 { // not active
			return false
		}
		desired, ok := facts.DesiredReplicas(rs)
		return ok && desired != *d.Spec.Replicas
	}
	return slices.ContainsFunc(old, differs) || differs(newRS)
}

// ActiveOrLatest returns the one ReplicaSet that should carry all replicas
// when there is no doubt which: the only active one; or, if none is active,
// the new one, else the newest old one. It returns nil when several are
// active. old must be newest first (by creation
// timestamp, then name descending), as upstream sorts it.
func ActiveOrLatest(newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if newRS == nil && len(old) == 0 {
		return nil
	}
	active := facts.FilterActive(append(old[:len(old):len(old)], newRS))
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

// Resizes decides the writes of a scaling event (or of a paused Deployment's
// sync), by these rules in order:
//
//  1. If [ActiveOrLatest] names one ReplicaSet, it gets spec.replicas — and
//     nothing is written if it already has that size. With
//     fixes.StaleDesiredReplicas, a ReplicaSet of that size whose replica
//     annotations are not desired spec.replicas and max
//     spec.replicas+maxSurge has them rewritten, at the same size.
//  2. If the new ReplicaSet is saturated (its size, desired-replicas
//     annotation and available replicas all equal spec.replicas), every
//     active old ReplicaSet is scaled to 0.
//  3. For RollingUpdate only, the active ReplicaSets share the difference
//     between replicas+maxSurge (0 when replicas is 0) and their current
//     total, in proportion to their size (see [Proportions]; with
//     fixes.UnhealthyFirst a scale-down first takes unavailable replicas of
//     old ReplicaSets). Each one whose size changes is written, and so is
//     one of unchanged size whose replica annotations are stale.
//  4. Otherwise (Recreate with several active ReplicaSets): nothing.
//
// old must be newest first (see [ActiveOrLatest]).
func Resizes(d *appsv1.Deployment, newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet, fixes Fixes) []deployutil.Resize {
	replicas := *d.Spec.Replicas
	if rs := ActiveOrLatest(newRS, old); rs != nil {
		if *rs.Spec.Replicas == replicas {
			if !fixes.StaleDesiredReplicas {
				return nil
			}
			return refreshStale(rs, d)
		}
		s, ok := facts.ScaleReplicaSet(rs, replicas, d, false, action.Because(action.RuleOnlyActive, action.Num("replicas", replicas)))
		if !ok {
			return nil
		}
		return []deployutil.Resize{s}
	}
	if facts.IsSaturated(d, newRS) {
		var out []deployutil.Resize
		for _, rs := range facts.FilterActive(old) {
			if s, ok := facts.ScaleReplicaSet(rs, 0, d, false, action.Because(action.RuleSaturated,
				action.Str("replicaSet", newRS.Name), action.Num("available", newRS.Status.AvailableReplicas), action.Num("replicas", replicas))); ok {
				out = append(out, s)
			}
		}
		return out
	}
	if !facts.IsRollingUpdate(d) {
		return nil
	}
	var out []deployutil.Resize
	for _, p := range Proportions(d, newRS, old, fixes) {
		if s, ok := facts.ScaleReplicaSet(p.ReplicaSet, p.Replicas, d, true, p.Why...); ok {
			out = append(out, s)
		}
	}
	return out
}

// refreshStale is the write of FixStaleDesiredReplicas: rs already has
// spec.replicas replicas, and its replica annotations are rewritten if they
// say anything but desired spec.replicas and max spec.replicas+maxSurge.
func refreshStale(rs *appsv1.ReplicaSet, d *appsv1.Deployment) []deployutil.Resize {
	replicas, maxReplicas := *d.Spec.Replicas, facts.MaxReplicas(d)
	if !facts.ReplicasAnnotationsNeedUpdate(rs, replicas, maxReplicas) {
		return nil
	}
	desired, maxAnn := "missing", "missing"
	if v, ok := rs.Annotations[deployutil.DesiredReplicasAnnotation]; ok {
		desired = fmt.Sprintf("%q", v)
	}
	if v, ok := rs.Annotations[deployutil.MaxReplicasAnnotation]; ok {
		maxAnn = fmt.Sprintf("%q", v)
	}
	s, ok := facts.ScaleReplicaSet(rs, replicas, d, true, action.Because(action.RuleFixStaleDesired,
		action.Num("replicas", replicas), action.Str("desired", desired), action.Str("max", maxAnn),
		action.Num("maxReplicas", maxReplicas), action.Num("maxSurge", facts.MaxSurge(d))))
	if !ok {
		return nil
	}
	return []deployutil.Resize{s}
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
	Why        action.Reasons
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
// With fixes.UnhealthyFirst, a scale-down (toAdd < 0, replicas > 0) first
// takes unavailable replicas of the old ReplicaSets: oldest first (by
// creation time, then name), each active old ReplicaSet gives up
// min(spec.replicas − status.availableReplicas, what is left to remove),
// never below 0; the new ReplicaSet gives up nothing this way. What is left
// to remove is then shared by rules 2–4 over the sizes after those
// removals (each ReplicaSet's max-replicas annotation is still its old
// maximum), and the shares come in that order. When no old ReplicaSet has
// an unavailable replica, nothing changes.
//
// All of it is upstream's int32 arithmetic: the sums, replicas+maxSurge and
// the product size × newMax wrap around above 2³¹−1 (50000 × 50000 gives
// −1794967296, and shares that make no sense), unless fixes.ProportionalOverflow
// is set, which computes the product in 64 bits (see [fraction]).
func Proportions(d *appsv1.Deployment, newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet, fixes Fixes) []Share {
	active := facts.FilterActive(append(old[:len(old):len(old)], newRS))
	replicas := *d.Spec.Replicas
	var allowed int32
	if replicas > 0 {
		allowed = facts.MaxReplicas(d)
	}
	current := facts.SpecReplicas(active)
	toAdd := allowed - current
	if fixes.UnhealthyFirst && toAdd < 0 && replicas > 0 {
		if shares, ok := unhealthyFirst(d, newRS, active, current, allowed, toAdd, fixes); ok {
			return shares
		}
	}
	switch {
	case toAdd > 0:
		active = facts.SortedBySizeNewer(active)
	case toAdd < 0:
		active = facts.SortedBySizeOlder(active)
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
		shares[i].Why = action.Reasons{action.Because(action.RuleProportional, action.Num("active", len(active)),
			action.Num("current", current), action.Num("allowed", allowed), action.Num("replicas", replicas),
			action.Num("maxSurge", facts.MaxSurge(d)), action.Num("share", shares[i].Replicas))}
	}
	return shares
}

// unhealthyFirst is Proportions' scale-down with fixes.UnhealthyFirst: old
// ReplicaSets give up unavailable replicas first, oldest first, and the
// rest is shared by upstream's rules over the reduced sizes. ok is false
// when no old ReplicaSet has an unavailable replica to give (the shares are
// then upstream's).
func unhealthyFirst(d *appsv1.Deployment, newRS *appsv1.ReplicaSet, active []*appsv1.ReplicaSet, current, allowed, toAdd int32, fixes Fixes) ([]Share, bool) {
	var old []*appsv1.ReplicaSet
	for _, rs := range active {
		if rs != newRS {
			old = append(old, rs)
		}
	}
	unavailable := make(map[*appsv1.ReplicaSet]int32, len(old))
	taken := make(map[*appsv1.ReplicaSet]int32, len(old))
	var took int32
	for _, rs := range facts.SortedByCreation(old) {
		u := max(*rs.Spec.Replicas-rs.Status.AvailableReplicas, 0)
		unavailable[rs] = u
		k := min(u, -toAdd-took)
		taken[rs] = k
		took += k
	}
	if took == 0 {
		return nil, false
	}
	rest := toAdd + took // what is left to remove, ≤ 0
	// The remainder is shared over copies that have the reduced sizes; the
	// copies keep everything else (names, times, annotations).
	of := make(map[*appsv1.ReplicaSet]*appsv1.ReplicaSet, len(active))
	work := make([]*appsv1.ReplicaSet, len(active))
	for i, rs := range active {
		c := *rs
		n := *rs.Spec.Replicas - taken[rs]
		c.Spec.Replicas = &n
		work[i] = &c
		of[&c] = rs
	}
	work = facts.SortedBySizeOlder(work)
	shares := make([]Share, len(work))
	var added int32
	for i, w := range work {
		shares[i] = Share{ReplicaSet: of[w], Replicas: *w.Spec.Replicas}
		if rest != 0 {
			p := proportion(w, d, rest, added, fixes)
			shares[i].Replicas += p
			added += p
		}
	}
	if rest != 0 {
		shares[0].Replicas = max(shares[0].Replicas+rest-added, 0)
	}
	head := action.Because(action.RuleUnhealthyFirst, action.Num("active", len(active)), action.Num("current", current),
		action.Num("allowed", allowed), action.Num("replicas", *d.Spec.Replicas), action.Num("maxSurge", facts.MaxSurge(d)),
		action.Num("took", took), action.Num("rest", -rest))
	for i := range shares {
		rs := shares[i].ReplicaSet
		var this action.Reason
		switch {
		case rs == newRS:
			this = action.Because(action.RuleUnhealthyFirstNew)
		case taken[rs] > 0:
			this = action.Because(action.RuleUnhealthyFirstGave, action.Num("unavailable", unavailable[rs]),
				action.Num("replicas", *rs.Spec.Replicas), action.Num("available", rs.Status.AvailableReplicas), action.Num("gave", taken[rs]))
		case unavailable[rs] > 0:
			this = action.Because(action.RuleUnhealthyFirstLate, action.Num("unavailable", unavailable[rs]), action.Num("removed", -toAdd))
		default:
			this = action.Because(action.RuleUnhealthyFirstHealthy, action.Num("replicas", *rs.Spec.Replicas),
				action.Num("available", rs.Status.AvailableReplicas))
		}
		shares[i].Why = action.Reasons{head, this, action.Because(action.RuleShare, action.Num("share", shares[i].Replicas))}
	}
	return shares, true
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
	newMax := facts.MaxReplicas(d)
	oldMax, ok := facts.MaxReplicasAnnotationValue(rs)
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
