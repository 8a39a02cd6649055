// Package scaling decides what the Deployment controller does when
// spec.replicas changes while more than one ReplicaSet runs: it detects the
// scaling event from the desired-replicas annotations and spreads the
// difference over the active ReplicaSets in proportion to their size, so that
// a rollout in progress keeps its shape.
//
// The same proportional scaling runs for paused Deployments.
package scaling
