// Package rolling decides one step of a RollingUpdate: grow the new
// ReplicaSet within maxSurge, then shrink the old ones within
// maxUnavailable — first their unhealthy replicas, then healthy ones as far
// as availability allows.
//
// The functions return [deployutil.Resize] decisions; the caller writes them
// in order. A step either grows the new ReplicaSet or shrinks old ones,
// never both: a caller stops after the first call that scaled.
package rolling
