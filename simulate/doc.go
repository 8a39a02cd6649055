// Package simulate runs a Deployment's rollout without a cluster: a
// deterministic world — the apiserver's bookkeeping, the ReplicaSet
// controller, kubelets and a clock — around [deploysync.Sync] and
// [deploysync.Apply], step after step, until the rollout settles. It answers
// "how many extra pods will this need?", "when does availability dip?" and
// "why is it stuck?" before anything is applied.
//
// # The world
//
// [Run] starts from a [deploysync.State] ([Steady] builds the usual one: a
// fully rolled-out Deployment; its pods are the input's State.Pods where
// given, else made from the ReplicaSets' status counts) and alternates a world step with one sync of
// the controller, whose plan is applied. The ReplicaSet controller creates
// and deletes pods to match each ReplicaSet's spec.replicas and writes its
// status; a scale-down deletes the pods upstream's controller deletes
// (upstream's full ranking, [github.com/deploysync/deploysync/replicaset.DeletionOrder],
// over the pods in creation order or, with [WithCacheOrder], in an order
// a seed draws, as a real controller's cache lists them),
// and pods run on nodes ([WithNodes]); pods start, become ready, become available after minReadySeconds,
// or never become ready (a failure rate with a seed, or a broken image);
// the apiserver may refuse a template's pods outright ([WithRefusedImage]:
// no pod, the ReplicaSet's ReplicaFailure condition) or until a time
// ([WithRefusedImageUntil]: the ReplicaSet controller's retries with the
// same backoff, the pods made at the first after the end), or the new
// ReplicaSet itself until a time ([WithRefusedReplicaSets]: a full quota,
// the Deployment controller's retries with the workqueue's backoff and its
// drop of the key after 15); a ResourceQuota may cap the namespace's pods
// ([WithPodQuota]: terminating pods counted until gone, the creates past
// the room refused and retried; the ReplicaSet controller's syncs timed
// as a real one's, [WithReplicaSetSyncTime]);
// deleted pods terminate for a while. Every knob is an [Option]. Scripted
// [Change]s edit the Deployment mid-run: a new image, a new size, pause and
// resume, a rollback, an annotation.
//
// # The timeline
//
// A run returns a [Timeline]: per [Step] the time, the pods deleted before
// it with their rank ([Deletion]), the ReplicaSets first refused pods
// ([Refusal]) and those admitted again ([Admission]), the plan's actions with their reasons, each ReplicaSet's size and pods, the totals and the
// Deployment's conditions; how the run ended ([Outcome]); and the broken
// [Invariant]s, each a [Violation] — never hidden. [Timeline.Table],
// [Timeline.Summary] and [Timeline.Transcript] render it as text. The same
// state, options and seed always give the same timeline.
package simulate
