// Package rolling decides one step of a RollingUpdate: grow the new
// ReplicaSet within maxSurge, then shrink the old ones within
// maxUnavailable — first their unhealthy replicas, then healthy ones as far
// as availability allows.
//
// The functions return [deployutil.Resize] decisions; the caller writes them
// in order. A step either grows the new ReplicaSet or shrinks old ones,
// never both: a caller stops after the first call that scaled.
//
// [LimitStep] is the same step held to a [Limit] on the new ReplicaSet's
// size (the root package's WithLimits): kube-controller-manager has no such
// input, so it is deploysync's own rule built from upstream's two moves.
package rolling
