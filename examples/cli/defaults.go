package cli

import (
	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/defaults"
)

// This file is the one place where the CLI defaults objects that never
// passed an apiserver: the library's package defaults, as the chosen
// minor's apiserver stores the object on create. The CLI keeps what the
// file says of the object's status and generation (a state file records
// them), which a create would reset.

// apiserverDefaults returns the Deployment as the apiserver of the given
// minor ("" for the library's default) would store it, its status and
// generation as given.
func apiserverDefaults(version string, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	dd, err := defaults.Deployment(version, d)
	if err != nil {
		return nil, err
	}
	dd.Status = *d.Status.DeepCopy()
	dd.Generation = d.Generation
	return dd, nil
}

// apiserverReplicaSetDefaults is apiserverDefaults for a ReplicaSet.
func apiserverReplicaSetDefaults(version string, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	dr, err := defaults.ReplicaSet(version, rs)
	if err != nil {
		return nil, err
	}
	dr.Status = *rs.Status.DeepCopy()
	dr.Generation = rs.Generation
	return dr, nil
}

// minorName is the minor for messages: "1.37".
func minorName(version string) string {
	if version == "" {
		return defaultMinor()
	}
	return version
}
