// Package recreate decides one step of a Recreate rollout: scale every old
// ReplicaSet to zero, wait until no old pod runs (terminating pods count as
// running), then run the new ReplicaSet at full size.
package recreate
