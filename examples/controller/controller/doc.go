// Package controller is a Deployment controller in the classic client-go
// pattern, deciding with deploysync.Sync and writing with the applier
// package: shared informers for Deployments, ReplicaSets and Pods feed a
// rate-limited work queue of Deployment keys; workers take keys one at a
// time (processNextWorkItem), read the listers, ask Sync for a plan and
// apply it.
//
// The event handlers are those of kube-controller-manager's Deployment
// controller: a ReplicaSet event wakes its controlling Deployment, or, for
// an orphan, every Deployment whose selector matches its labels (one of
// them may adopt it); a pod deletion wakes its Deployment when it rolls out
// with the Recreate strategy, which waits for old pods to be gone.
//
// A plan's RequeueAfter becomes AddAfter; its Requeue, its Err and any
// failure to apply it become AddRateLimited (a key that fails 15 times in a
// row is dropped until its next event, as upstream).
//
// With EnableLimits the controller runs beside kube-controller-manager's
// Deployment controller instead of in its place, and rolls out only the
// Deployments annotated with a limit (package limits).
package controller
