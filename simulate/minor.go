package simulate

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/internal/kversion"
)

// SteadyFor is [Steady] as the controllers of a Kubernetes minor leave the
// Deployment (version as [deploysync.WithKubernetesVersion] parses it): the
// ReplicaSet carries that minor's pod-template-hash
// ([deployutil.ComputeHashFor]) and name — 1.33 cannot name the ReplicaSet
// of a Deployment whose name is too long for "<name>-<hash>" within 253
// characters, which is an error here — and on 1.33 and 1.34, whose
// DeploymentReplicaSetTerminatingReplicas gate is off by default, neither
// status reports terminatingReplicas. An unsupported version is an error
// listing the supported minors.
func SteadyFor(version string, d *appsv1.Deployment, now time.Time) (deploysync.State, error) {
	m, err := kversion.Parse(version)
	if err != nil {
		return deploysync.State{}, err
	}
	return steady(m, d, now)
}

// WithKubernetesVersion makes every sync of the run decide as the
// kube-controller-manager of that Kubernetes minor
// ([deploysync.WithKubernetesVersion]; default 1.37). An unsupported version
// makes Run fail before its first step. Start the run from [SteadyFor] of
// the same version for a ReplicaSet that minor would have made.
func WithKubernetesVersion(version string) Option {
	return func(c *config) {
		c.syncOpts = append(c.syncOpts, deploysync.WithKubernetesVersion(version))
		m, err := kversion.Parse(version)
		c.versionErr, c.minor = err, m
	}
}
