package controller

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
)

// The handlers below wake Deployments as kube-controller-manager's do.

func (c *Controller) enqueue(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.queue.Add(key)
}

// addReplicaSet wakes the controlling Deployment of a new ReplicaSet, or,
// for an orphan, every Deployment that could adopt it. A ReplicaSet that
// is already being deleted when the informer first sees it is handled as a
// deletion.
func (c *Controller) addReplicaSet(obj any) {
	rs := obj.(*appsv1.ReplicaSet)
	if rs.DeletionTimestamp != nil {
		c.deleteReplicaSet(rs)
		return
	}
	if ref := metav1.GetControllerOfNoCopy(rs); ref != nil {
		if d := c.resolveControllerRef(rs.Namespace, ref); d != nil {
			c.enqueue(d)
		}
		return
	}
	for _, d := range c.deploymentsForOrphan(rs) {
		c.enqueue(d)
	}
}

// updateReplicaSet wakes the old controller when the controller changed,
// the current controller, and, for an orphan whose labels or controller
// changed, every Deployment that could adopt it. Resyncs (same
// resourceVersion) wake nobody.
func (c *Controller) updateReplicaSet(old, cur any) {
	oldRS, curRS := old.(*appsv1.ReplicaSet), cur.(*appsv1.ReplicaSet)
	if oldRS.ResourceVersion == curRS.ResourceVersion {
		return
	}
	oldRef, curRef := metav1.GetControllerOfNoCopy(oldRS), metav1.GetControllerOfNoCopy(curRS)
	refChanged := !sameRef(oldRef, curRef)
	if refChanged && oldRef != nil {
		if d := c.resolveControllerRef(oldRS.Namespace, oldRef); d != nil {
			c.enqueue(d)
		}
	}
	if curRef != nil {
		if d := c.resolveControllerRef(curRS.Namespace, curRef); d != nil {
			c.enqueue(d)
		}
		return
	}
	if refChanged || !labels.Equals(oldRS.Labels, curRS.Labels) {
		for _, d := range c.deploymentsForOrphan(curRS) {
			c.enqueue(d)
		}
	}
}

// deleteReplicaSet wakes the controlling Deployment of a deleted
// ReplicaSet; nobody cares about an orphan's deletion.
func (c *Controller) deleteReplicaSet(obj any) {
	rs, ok := obj.(*appsv1.ReplicaSet)
	if !ok {
		tomb, ok := obj.(cache.DeletedFinalStateUnknown)
		if !ok {
			return
		}
		if rs, ok = tomb.Obj.(*appsv1.ReplicaSet); !ok {
			return
		}
	}
	ref := metav1.GetControllerOfNoCopy(rs)
	if ref == nil {
		return
	}
	if d := c.resolveControllerRef(rs.Namespace, ref); d != nil {
		c.enqueue(d)
	}
}

// deletePod wakes the Deployment of a deleted pod (through its controlling
// ReplicaSet) if that Deployment rolls out with Recreate: it waits for its
// old pods to be gone.
func (c *Controller) deletePod(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		tomb, ok := obj.(cache.DeletedFinalStateUnknown)
		if !ok {
			return
		}
		if pod, ok = tomb.Obj.(*corev1.Pod); !ok {
			return
		}
	}
	ref := metav1.GetControllerOfNoCopy(pod)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return
	}
	rs, err := c.rsLister.ReplicaSets(pod.Namespace).Get(ref.Name)
	if err != nil || rs.UID != ref.UID {
		return
	}
	rsRef := metav1.GetControllerOfNoCopy(rs)
	if rsRef == nil {
		return
	}
	if d := c.resolveControllerRef(rs.Namespace, rsRef); d != nil && d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		c.enqueue(d)
	}
}

// resolveControllerRef returns the Deployment a controller reference names,
// if the cache has it with that UID.
func (c *Controller) resolveControllerRef(ns string, ref *metav1.OwnerReference) *appsv1.Deployment {
	if ref.Kind != "Deployment" {
		return nil
	}
	d, err := c.dLister.Deployments(ns).Get(ref.Name)
	if err != nil || d.UID != ref.UID {
		return nil
	}
	return d
}

// deploymentsForOrphan returns the Deployments of the orphan's namespace
// whose selector matches its labels. A ReplicaSet without labels matches
// none; Deployments with an invalid or empty selector are skipped.
func (c *Controller) deploymentsForOrphan(rs *appsv1.ReplicaSet) []*appsv1.Deployment {
	if len(rs.Labels) == 0 {
		return nil
	}
	all, err := c.dLister.Deployments(rs.Namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	var out []*appsv1.Deployment
	for _, d := range all {
		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(rs.Labels)) {
			continue
		}
		out = append(out, d)
	}
	return out
}

func sameRef(a, b *metav1.OwnerReference) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.UID == b.UID && a.Kind == b.Kind && a.Name == b.Name && a.APIVersion == b.APIVersion
}
