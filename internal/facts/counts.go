package facts

import appsv1 "k8s.io/api/apps/v1"

// These sums skip nil entries, as upstream's do: the new ReplicaSet is nil
// until it exists, and callers append it to the old ones unconditionally.

// SpecReplicas sums spec.replicas: the pods the ReplicaSets are asked to run.
func SpecReplicas(rss []*appsv1.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		n += rsReplicas(rs)
	}
	return n
}

// StatusReplicas sums status.replicas: the (non-terminating) pods that exist.
func StatusReplicas(rss []*appsv1.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += rs.Status.Replicas
		}
	}
	return n
}

// ReadyReplicas sums status.readyReplicas.
func ReadyReplicas(rss []*appsv1.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += rs.Status.ReadyReplicas
		}
	}
	return n
}

// AvailableReplicas sums status.availableReplicas.
func AvailableReplicas(rss []*appsv1.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += rs.Status.AvailableReplicas
		}
	}
	return n
}

// TerminatingReplicas sums status.terminatingReplicas by these rules, in
// order, for each ReplicaSet:
//
//  1. A nil entry is skipped.
//  2. A ReplicaSet its controller never synced (observedGeneration 0 and no
//     terminatingReplicas) is skipped.
//  3. A synced ReplicaSet that does not report terminatingReplicas makes the
//     whole sum unknown: the result is nil.
//
// So the sum of no ReplicaSets is a pointer to 0.
func TerminatingReplicas(rss []*appsv1.ReplicaSet) *int32 {
	var n int32
	for _, rs := range rss {
		switch {
		case rs == nil:
		case rs.Status.ObservedGeneration == 0 && rs.Status.TerminatingReplicas == nil:
		case rs.Status.TerminatingReplicas == nil:
			return nil
		default:
			n += *rs.Status.TerminatingReplicas
		}
	}
	return &n
}

// FilterActive returns the non-nil ReplicaSets with spec.replicas > 0, in
// order; nil if there are none.
func FilterActive(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range rss {
		if rs != nil && rsReplicas(rs) > 0 {
			out = append(out, rs)
		}
	}
	return out
}
