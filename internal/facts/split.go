package facts

import (
	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/deployutil"
)

// SplitReplicaSets returns the Deployment's new ReplicaSet (nil if none) and
// all the others, oldest first, including those scaled to zero. Old
// ReplicaSets are told apart from the new one by UID.
func SplitReplicaSets(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) {
	newRS = deployutil.FindNewReplicaSet(d, rss)
	sorted := SortedByCreation(rss) // a copy: filtered in place
	old = sorted[:0]
	for _, rs := range sorted {
		if newRS != nil && rs.UID == newRS.UID {
			continue
		}
		old = append(old, rs)
	}
	if len(old) == 0 {
		return newRS, nil
	}
	return newRS, old
}
