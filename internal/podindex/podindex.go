// Package podindex groups pods by their controlling ReplicaSet as
// upstream's pod index does.
package podindex

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ByController groups pods by ReplicaSet as upstream's controller does before a
// Recreate step: for each ReplicaSet in rss, the pods whose controller
// ownerReference names it (kind ReplicaSet, its name and UID) and that live
// in its namespace — the key of upstream's pod index. The grouping of pods
// in the argument is not consulted: every pod in it counts wherever it is
// listed, so a pod listed under the wrong UID still counts for the
// ReplicaSet that controls it, and a pod with no controller, or controlled
// by anything else (another kind, name, UID or namespace, or a ReplicaSet
// not in rss), is in no group. Every ReplicaSet of rss has an entry, nil
// when it has no pods; nil pods are skipped. The pods are not copied.
func ByController(rss []*appsv1.ReplicaSet, pods map[types.UID][]*corev1.Pod) map[types.UID][]*corev1.Pod {
	type key struct {
		namespace, name string
		uid             types.UID
	}
	byKey := make(map[key]types.UID, len(rss))
	out := make(map[types.UID][]*corev1.Pod, len(rss))
	for _, rs := range rss {
		if rs == nil {
			continue
		}
		byKey[key{rs.Namespace, rs.Name, rs.UID}] = rs.UID
		out[rs.UID] = nil
	}
	for _, list := range pods {
		for _, p := range list {
			if p == nil {
				continue
			}
			ref := metav1.GetControllerOfNoCopy(p)
			if ref == nil || ref.Kind != "ReplicaSet" {
				continue
			}
			if uid, ok := byKey[key{p.Namespace, ref.Name, ref.UID}]; ok {
				out[uid] = append(out[uid], p)
			}
		}
	}
	return out
}
