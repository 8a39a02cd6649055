package rolling

import (
	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
)

// ScaleNew decides the new ReplicaSet's size, by these rules in order:
//
//  1. Already spec.replicas: nothing.
//  2. Larger than spec.replicas: shrink it to spec.replicas.
//  3. Smaller: grow it by what maxSurge leaves room for above spec.replicas,
//     counting the spec of every ReplicaSet in allRSs, but not past
//     spec.replicas.
//
// ok is false when nothing is written.
func ScaleNew(d *appsv1.Deployment, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (s deployutil.Resize, ok bool, err error) {
	want, cur := *d.Spec.Replicas, *newRS.Spec.Replicas
	switch {
	case cur == want:
		return deployutil.Resize{}, false, nil
	case cur > want:
		s, ok = facts.ScaleReplicaSet(newRS, want, d, false, action.Because(action.RuleScaleDownNew,
			action.Str("replicaSet", newRS.Name), action.Num("from", cur), action.Num("to", want), action.Num("replicas", want)))
		return s, ok, nil
	}
	n, err := facts.NewReplicaSetReplicas(d, allRSs, newRS)
	if err != nil {
		return deployutil.Resize{}, false, err
	}
	s, ok = facts.ScaleReplicaSet(newRS, n, d, false, growReason(d, allRSs, newRS, n))
	return s, ok, nil
}

func growReason(d *appsv1.Deployment, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, n int32) action.Reason {
	return action.Because(action.RuleRollingScaleUpNew, action.Str("replicaSet", newRS.Name), action.Num("from", *newRS.Spec.Replicas),
		action.Num("to", n), action.Num("maxSurge", facts.MaxSurge(d)), action.Num("maxPods", facts.MaxReplicas(d)),
		action.Num("pods", facts.SpecReplicas(allRSs)))
}

// ScaleDownOld decides how the active old ReplicaSets shrink, in two phases:
//
//  1. The room: all pods (spec, all ReplicaSets) − minAvailable (replicas −
//     maxUnavailable) − the new ReplicaSet's unavailable pods. With no room,
//     nothing happens.
//  2. Unhealthy replicas go first: oldest ReplicaSet first, each loses its
//     unavailable replicas (spec − available), within the room.
//  3. Then healthy ones: if more pods are available (all ReplicaSets) than
//     minAvailable, the excess is taken from the old ReplicaSets, oldest
//     first, using the sizes phase 2 left.
//
// scaled reports whether anything shrank. Matches upstream's swallowed
// error: an old ReplicaSet reporting more available replicas than its spec
// (status lagging a scale-down) stops phase 2 where it is — the writes
// decided so far stand — skips phase 3, and reports scaled false.
//
// The arithmetic is upstream's, in int32: sums of ReplicaSet sizes, the room
// and the total scaled down wrap around above 2³¹−1 (a wrapped total that
// comes out negative reports scaled false, as upstream's).
func ScaleDownOld(d *appsv1.Deployment, allRSs, activeOld []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (scales []deployutil.Resize, scaled bool) {
	return scaleDownOld(d, allRSs, activeOld, newRS, nil)
}

// oldCap bounds how many replicas scaleDownOld may take from the old
// ReplicaSets in all (a rollout limit, see [Limit]); why is added to the
// reasons of a scale the cap made smaller.
type oldCap struct {
	max int32
	why action.Reason
}

// take returns n bounded by what the cap has left after taken, and whether
// the cap made it smaller. A nil cap takes n.
func (c *oldCap) take(n, taken int32) (int32, bool) {
	if c == nil || n <= c.max-taken {
		return n, false
	}
	return max(c.max-taken, 0), true
}

// reasons returns r, followed by the cap's reason if it made the scale
// smaller.
func (c *oldCap) reasons(r action.Reason, capped bool) []action.Reason {
	if !capped {
		return []action.Reason{r}
	}
	return []action.Reason{r, c.why}
}

func scaleDownOld(d *appsv1.Deployment, allRSs, activeOld []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, limit *oldCap) (scales []deployutil.Resize, scaled bool) {
	if facts.SpecReplicas(activeOld) == 0 {
		return nil, false
	}
	minAvailable := *d.Spec.Replicas - facts.MaxUnavailable(d)
	newUnavailable := *newRS.Spec.Replicas - newRS.Status.AvailableReplicas
	room := facts.SpecReplicas(allRSs) - minAvailable - newUnavailable
	if room <= 0 {
		return nil, false
	}
	old := facts.SortedByCreation(activeOld)
	var cleaned int32
	for i, rs := range old {
		if cleaned >= room {
			break
		}
		spec, avail := *rs.Spec.Replicas, rs.Status.AvailableReplicas
		if spec == 0 || spec == avail {
			continue
		}
		n := min(room-cleaned, spec-avail)
		if spec-n > spec {
			return scales, false
		}
		n, capped := limit.take(n, cleaned)
		if capped && n == 0 {
			break
		}
		s, ok := facts.ScaleReplicaSet(rs, spec-n, d, false, limit.reasons(action.Because(action.RuleRollingScaleDownUnavailable,
			action.Str("replicaSet", rs.Name), action.Num("from", spec), action.Num("to", spec-n),
			action.Num("unavailable", spec-avail), action.Num("room", room)), capped)...)
		if ok {
			scales = append(scales, s)
			old[i] = s.To
		}
		cleaned += n
	}
	available := facts.AvailableReplicas(append(old[:len(old):len(old)], newRS))
	if available <= minAvailable {
		return scales, cleaned > 0
	}
	budget := available - minAvailable
	var shrunk int32
	for _, rs := range facts.SortedByCreation(old) {
		if shrunk >= budget {
			break
		}
		spec := *rs.Spec.Replicas
		if spec == 0 {
			continue
		}
		n := min(spec, budget-shrunk)
		n, capped := limit.take(n, cleaned+shrunk)
		if capped && n == 0 {
			break
		}
		s, ok := facts.ScaleReplicaSet(rs, spec-n, d, false, limit.reasons(action.Because(action.RuleRollingScaleDownOld,
			action.Str("replicaSet", rs.Name), action.Num("from", spec), action.Num("to", spec-n),
			action.Num("available", available), action.Num("minAvailable", minAvailable),
			action.Num("replicas", *d.Spec.Replicas), action.Num("maxUnavailable", facts.MaxUnavailable(d))), capped)...)
		if ok {
			scales = append(scales, s)
		}
		shrunk += n
	}
	return scales, cleaned+shrunk > 0
}
