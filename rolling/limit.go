package rolling

import (
	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
)

// Limit bounds a RollingUpdate: the new ReplicaSet holds at most Max
// replicas, the old ReplicaSets keep the rest of spec.replicas. It is the
// resolved form of the root package's WithLimits option.
type Limit struct {
	// Max is the most replicas the new ReplicaSet may have; a Limit is only
	// used when 0 ≤ Max < spec.replicas (otherwise it decides nothing).
	Max int32
	// Name is how reasons name the limit: how the caller gave it and what
	// it resolved to, "maxUpdated 30% (3 of 10 replicas)".
	Name string
}

// String returns l.Name.
func (l Limit) String() string { return l.Name }

// LimitStep is one step of a RollingUpdate held to a [Limit]. Its rules,
// in order; the first that writes ends the step:
//
//  1. Grow the new ReplicaSet as [ScaleNew] would, but not past l.Max.
//  2. If the new ReplicaSet has l.Max replicas or more and the old ones
//     hold fewer than spec.replicas − l.Max, grow the old ReplicaSet
//     LimitStep refills (the active old ReplicaSet of the highest
//     revision, or, with none active, the old ReplicaSet of the highest
//     revision) toward that, within maxSurge: this refills what lowering
//     the limit takes from the new ReplicaSet, and what a scale-up gave
//     the new ReplicaSet above the limit.
//  3. If the new ReplicaSet has more than l.Max replicas (the limit was
//     lowered, or spec.replicas with it), shrink it toward l.Max: its
//     unavailable replicas first, then available ones as far as
//     maxUnavailable allows (replicas − maxUnavailable stay available).
//  4. Shrink the old ReplicaSets as [ScaleDownOld] does, but only until
//     they hold spec.replicas − l.Max.
//
// When no rule writes, the rollout is held at the limit, or waits for pods.
// old are all old ReplicaSets; allRSs is old and newRS. Reasons name the
// limit when it decided the size. d must be a RollingUpdate Deployment
// with l.Max < spec.replicas.
func LimitStep(d *appsv1.Deployment, allRSs, old []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, l Limit) (scales []deployutil.Resize, err error) {
	replicas, cur := *d.Spec.Replicas, *newRS.Spec.Replicas
	if cur < l.Max {
		n, err := facts.NewReplicaSetReplicas(d, allRSs, newRS)
		if err != nil {
			return nil, err
		}
		why := []action.Reason{growReason(d, allRSs, newRS, min(n, l.Max))}
		if n > l.Max {
			why = append(why, action.Because(action.RuleLimitHoldsNew, action.Str("limit", l.String()), action.Num("max", l.Max)))
			n = l.Max
		}
		if s, ok := facts.ScaleReplicaSet(newRS, n, d, false, why...); ok {
			return []deployutil.Resize{s}, nil
		}
	}
	active := facts.FilterActive(old)
	keep := replicas - l.Max
	if have := facts.SpecReplicas(active); cur >= l.Max && have < keep {
		if s, ok := growOld(d, allRSs, old, active, keep-have, l); ok {
			return []deployutil.Resize{s}, nil
		}
	}
	if cur > l.Max {
		if s, ok := shrinkNew(d, allRSs, newRS, l); ok {
			return []deployutil.Resize{s}, nil
		}
	}
	have := facts.SpecReplicas(active)
	if have <= keep {
		return nil, nil
	}
	scales, _ = scaleDownOld(d, allRSs, active, newRS, &oldCap{max: have - keep,
		why: action.Because(action.RuleLimitKeepsOld, action.Str("limit", l.String()), action.Num("keep", keep))})
	return scales, nil
}

// growOld grows the old ReplicaSet to refill by up to want replicas,
// within maxSurge.
func growOld(d *appsv1.Deployment, allRSs, old, active []*appsv1.ReplicaSet, want int32, l Limit) (deployutil.Resize, bool) {
	target := refillTarget(old)
	if target == nil {
		return deployutil.Resize{}, false
	}
	total, maxTotal := facts.SpecReplicas(allRSs), facts.MaxReplicas(d)
	n := min(want, maxTotal-total)
	if n <= 0 {
		return deployutil.Resize{}, false
	}
	from := *target.Spec.Replicas
	return facts.ScaleReplicaSet(target, from+n, d, false, action.Because(action.RuleLimitScaleUpOld,
		action.Str("replicaSet", target.Name), action.Num("from", from), action.Num("to", from+n), action.Str("limit", l.String()),
		action.Num("leaves", *d.Spec.Replicas-l.Max), action.Num("have", facts.SpecReplicas(active)),
		action.Num("maxSurge", facts.MaxSurge(d)), action.Num("maxPods", maxTotal), action.Num("pods", total)))
}

// refillTarget returns the old ReplicaSet that LimitStep grows when the
// old ReplicaSets hold fewer replicas than a limit leaves them: the active
// one of the highest revision, or, if none is active, the one of the
// highest revision (the version the Deployment ran before this rollout);
// nil if there is no old ReplicaSet.
func refillTarget(old []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if rs := highestRevision(facts.FilterActive(old)); rs != nil {
		return rs
	}
	return highestRevision(old)
}

func highestRevision(rss []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if len(rss) == 0 {
		return nil
	}
	sorted := facts.SortedByRevision(rss)
	return sorted[len(sorted)-1]
}

// shrinkNew takes the new ReplicaSet toward l.Max: unavailable replicas
// first (removing them costs no availability), then available ones while
// more than replicas − maxUnavailable pods stay available.
func shrinkNew(d *appsv1.Deployment, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, l Limit) (deployutil.Resize, bool) {
	cur := *newRS.Spec.Replicas
	excess := cur - l.Max
	avail := min(newRS.Status.AvailableReplicas, cur)
	unhealthy := min(cur-avail, excess)
	minAvailable := *d.Spec.Replicas - facts.MaxUnavailable(d)
	available := facts.AvailableReplicas(allRSs)
	healthy := min(excess-unhealthy, max(available-minAvailable, 0), avail)
	n := unhealthy + healthy
	if n <= 0 {
		return deployutil.Resize{}, false
	}
	return facts.ScaleReplicaSet(newRS, cur-n, d, false, action.Because(action.RuleLimitScaleDownNew,
		action.Str("replicaSet", newRS.Name), action.Num("from", cur), action.Num("to", cur-n), action.Str("limit", l.String()),
		action.Num("unavailable", cur-avail), action.Num("available", available), action.Num("minAvailable", minAvailable),
		action.Num("replicas", *d.Spec.Replicas), action.Num("maxUnavailable", facts.MaxUnavailable(d))))
}
