// Package upstream runs the real Deployment controller of kube-controller-manager
// v1.37.2 on one given state and reports what it intended to do.
//
// [Run] builds a fresh DeploymentController around a fake clientset, puts the
// input objects straight into its (never started) informer caches, calls the
// controller's unexported syncDeployment once, and replays every client call
// upstream made as an intent on a small in-memory store. The ReplicaSet
// lister lists the input in its order; its Get by name (upstream's answer to
// AlreadyExists) reads the store as the sync's writes left it, a cache that
// has caught up, unless [Input.LaggingCache] asks for the input as given.
// The store:
//
//   - an update is the difference between the object upstream read (found by
//     the resourceVersion it sent) and the object it sent, applied to the
//     current stored object in the manner of a JSON merge patch (RFC 7386);
//     a main-resource update cannot change status, and a status update cannot
//     change spec or metadata.labels;
//   - a patch is applied as a strategic merge patch to the current object;
//   - a create fails with AlreadyExists if the name is taken;
//   - a delete removes the object.
//
// Because every write is replayed relative to what it was based on, a second,
// stale write in the same sync (a real apiserver would answer 409 Conflict)
// keeps the changes of the first: the outcome is the union of upstream's
// intents, not the last write.
//
// Condition timestamps are pinned to [Input.Now] through a hook in a patched
// copy of k8s.io/apimachinery (see hack/patch-apimachinery.sh); the two
// package-level clocks of the deployment packages are pinned too.
//
// Run mutates process-wide state (those clocks and the feature gate
// DeploymentReplicaSetTerminatingReplicas) for its duration, so runs must be
// sequential: Run is not safe for concurrent use.
package upstream
