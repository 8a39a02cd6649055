package deployutil

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// EqualIgnoreHash reports whether two pod templates are semantically equal
// once the pod-template-hash label is ignored: nil and empty maps and slices
// are equal, quantities compare by value, times at UTC. This is how the new
// ReplicaSet is recognised — never by name or hash.
//
// Neither template is copied or modified: only the label maps are rebuilt,
// and only when one carries the hash label.
func EqualIgnoreHash(a, b *corev1.PodTemplateSpec) bool {
	x, y := *a, *b
	x.Labels = withoutHashLabel(x.Labels)
	y.Labels = withoutHashLabel(y.Labels)
	return equality.Semantic.DeepEqual(&x, &y)
}

func withoutHashLabel(labels map[string]string) map[string]string {
	if _, ok := labels[PodTemplateHashLabel]; !ok {
		return labels
	}
	out := make(map[string]string, len(labels)-1)
	for k, v := range labels {
		if k != PodTemplateHashLabel {
			out[k] = v
		}
	}
	return out
}

// FindNewReplicaSet returns the Deployment's new ReplicaSet: the oldest of
// rss (by creation time, then name) whose template equals the Deployment's
// ignoring the hash label (see [EqualIgnoreHash]), or nil.
func FindNewReplicaSet(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	for _, rs := range SortedByCreation(rss) {
		if EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			return rs
		}
	}
	return nil
}

// SplitReplicaSets returns the Deployment's new ReplicaSet (nil if none) and
// all the others, oldest first, including those scaled to zero. Old
// ReplicaSets are told apart from the new one by UID.
func SplitReplicaSets(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) {
	sorted := SortedByCreation(rss)
	for _, rs := range sorted {
		if EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			newRS = rs
			break
		}
	}
	for _, rs := range sorted {
		if newRS != nil && rs.UID == newRS.UID {
			continue
		}
		old = append(old, rs)
	}
	return newRS, old
}
