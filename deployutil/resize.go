package deployutil

import (
	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/action"
)

// Resize is the decision to write a ReplicaSet with a new size (or with
// its replicas annotations refreshed). It is the unit the scaling, rolling
// and recreate packages decide in, so a user calling those packages reads
// their answers in it.
type Resize struct {
	// From is the ReplicaSet as the decision read it: the base of the write.
	From *appsv1.ReplicaSet
	// To is the ReplicaSet to write: From with the new size and its
	// desired-replicas and max-replicas annotations refreshed. It shares
	// everything else with From (the annotations too, when they are
	// already current); treat both as read-only.
	To *appsv1.ReplicaSet
	// Why says why this size: the rule and its numbers.
	Why action.Reasons
}

// Resized reports whether the size changes (an annotation refresh alone
// does not resize).
func (s Resize) Resized() bool { return *s.From.Spec.Replicas != *s.To.Spec.Replicas }

// Direction returns "up" or "down" for a resize, as upstream words its
// ScalingReplicaSet events.
func (s Resize) Direction() string {
	if *s.From.Spec.Replicas < *s.To.Spec.Replicas {
		return "up"
	}
	return "down"
}
