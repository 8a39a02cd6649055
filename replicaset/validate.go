package replicaset

import (
	"fmt"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
)

// validate refuses a state no apiserver holds, with the field and value.
func validate(s State) error {
	rs := s.ReplicaSet
	if rs == nil {
		return &deployutil.InputError{Object: "ReplicaSet", Field: "replicaSet", Kind: deployutil.Required, Detail: "the ReplicaSet to sync is missing"}
	}
	obj := "ReplicaSet " + rs.Namespace + "/" + rs.Name
	switch {
	case rs.Name == "":
		return &deployutil.InputError{Object: obj, Field: "metadata.name", Kind: deployutil.Required, Detail: "a ReplicaSet has a name", Rule: "ValidateObjectMeta"}
	case rs.Namespace == "":
		return &deployutil.InputError{Object: obj, Field: "metadata.namespace", Kind: deployutil.Required, Detail: "a ReplicaSet is namespaced", Rule: "ValidateObjectMeta"}
	case rs.UID == "":
		return &deployutil.InputError{Object: obj, Field: "metadata.uid", Kind: deployutil.Required, Detail: "a stored ReplicaSet has a UID", Rule: "not a snapshot of an apiserver"}
	case rs.Spec.Replicas == nil:
		return &deployutil.InputError{Object: obj, Field: "spec.replicas", Kind: deployutil.Required, Detail: "defaulted to 1 by the apiserver", Rule: "SetDefaults_ReplicaSet"}
	case *rs.Spec.Replicas < 0:
		return &deployutil.InputError{Object: obj, Field: "spec.replicas", Kind: deployutil.Invalid, Value: *rs.Spec.Replicas, Detail: "must be greater than or equal to 0", Rule: "ValidateReplicaSetSpec"}
	}
	if _, err := facts.CompileSelector(rs.Spec.Selector); err != nil {
		return &deployutil.InputError{Object: obj, Field: "spec.selector", Kind: deployutil.Invalid, Value: rs.Spec.Selector.String(), Detail: err.Error(), Rule: "ValidateReplicaSetSpec"}
	}
	for i, p := range s.Pods {
		if p == nil {
			return &deployutil.InputError{Object: fmt.Sprintf("Pod #%d", i), Field: "pods", Kind: deployutil.Required, Detail: "a nil pod"}
		}
	}
	return nil
}
