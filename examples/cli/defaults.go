package cli

import (
	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/deployutil"
)

// This file is the one place where the CLI defaults objects that never
// passed an apiserver. Until the library's per-minor apiserver defaulting
// (package defaults, issue 26 item 1) lands, both functions use
// deployutil.SetDefaults, which fills what every minor's apiserver fills
// alike; the switch is one line in each.

// apiserverDefaults returns the Deployment as the apiserver of the given
// minor ("" for the library's default) would store it.
func apiserverDefaults(version string, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	_ = version
	return deployutil.SetDefaults(d), nil
}

// apiserverReplicaSetDefaults is apiserverDefaults for a ReplicaSet.
func apiserverReplicaSetDefaults(version string, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	_ = version
	return deployutil.SetReplicaSetDefaults(rs), nil
}

// minorName is the minor for messages: "1.37".
func minorName(version string) string {
	if version == "" {
		return defaultMinor()
	}
	return version
}
