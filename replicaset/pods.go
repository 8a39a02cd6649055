package replicaset

import (
	"encoding/json"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// ControllerRef returns the controller reference the ReplicaSet controller
// puts on the pods it creates and adopts.
func ControllerRef(rs *appsv1.ReplicaSet) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID,
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
}

// podFromTemplate is the pod upstream's GetPodFromTemplate sends: the
// template's labels, annotations, finalizers and spec, generateName
// "<name>-" (the bare name when the dash would make it too long), and the
// controller reference.
func podFromTemplate(rs *appsv1.ReplicaSet) *corev1.Pod {
	t := rs.Spec.Template.DeepCopy()
	prefix := rs.Name + "-"
	if len(prefix) > 253 {
		prefix = rs.Name
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Labels:          map[string]string{},
		Annotations:     map[string]string{},
		GenerateName:    prefix,
		Finalizers:      append([]string{}, t.Finalizers...),
		OwnerReferences: []metav1.OwnerReference{ControllerRef(rs)},
	}, Spec: t.Spec}
	for k, v := range t.Labels {
		pod.Labels[k] = v
	}
	for k, v := range t.Annotations {
		pod.Annotations[k] = v
	}
	return pod
}

type adoptBody struct {
	Metadata adoptMeta `json:"metadata"`
}

type adoptMeta struct {
	OwnerReferences []metav1.OwnerReference `json:"ownerReferences"`
	UID             types.UID               `json:"uid"`
}

// adoptPatch is the strategic merge patch that makes rs the controller of
// the pod with UID uid, byte for byte as upstream's ownerRefControllerPatch.
func adoptPatch(rs *appsv1.ReplicaSet, uid types.UID) []byte {
	b, _ := json.Marshal(adoptBody{adoptMeta{OwnerReferences: []metav1.OwnerReference{ControllerRef(rs)}, UID: uid}})
	return b
}
