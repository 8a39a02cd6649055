package podindex

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// BySelector groups pods by ReplicaSet as the controller of Kubernetes 1.35
// and earlier does before a Recreate step: it lists the pods of the
// Deployment's namespace that match the Deployment's selector, and gives
// each to the ReplicaSet of rss whose UID its controller reference carries
// (the reference's kind and name are not looked at). A pod that does not
// match the selector is in no group, whoever controls it; so is one with
// no controller or controlled by a UID not in rss. Every ReplicaSet of rss
// has an entry, nil when it has no pods; nil pods are skipped; as with
// [ByController] the caller's grouping is not consulted. A selector that
// does not parse groups nothing (Sync refuses such a Deployment earlier).
func BySelector(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, pods map[types.UID][]*corev1.Pod) map[types.UID][]*corev1.Pod {
	out := make(map[types.UID][]*corev1.Pod, len(rss))
	for _, rs := range rss {
		if rs != nil {
			out[rs.UID] = nil
		}
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return out
	}
	for _, list := range pods {
		for _, p := range list {
			if p == nil || p.Namespace != d.Namespace || !sel.Matches(labels.Set(p.Labels)) {
				continue
			}
			ref := metav1.GetControllerOfNoCopy(p)
			if ref == nil {
				continue
			}
			if _, ok := out[ref.UID]; ok {
				out[ref.UID] = append(out[ref.UID], p)
			}
		}
	}
	return out
}
