package cli

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/kubectl"
)

// kubernetesVersion is --kubernetes-version, or the library's default minor.
func (g *globals) kubernetesVersion() string {
	if g.version == "" {
		return defaultMinor()
	}
	return g.version
}

// defaultMinor is the library's default Kubernetes minor: the newest.
func defaultMinor() string {
	vs := deploysync.KubernetesVersions()
	return vs[len(vs)-1]
}

// checkVersion refuses a --kubernetes-version the library does not support,
// before any work, with the library's message (which lists the minors).
func (g *globals) checkVersion() error {
	if g.version == "" {
		return nil
	}
	// ComputeHashFor parses the version as WithKubernetesVersion does.
	if _, err := deployutil.ComputeHashFor(g.version, &corev1.PodTemplateSpec{}, nil); err != nil {
		return fmt.Errorf("--kubernetes-version: %w", err)
	}
	return nil
}

// RolloutHistoryFor is [RolloutHistory] as the kubectl of a Kubernetes minor
// prints it ([kubectl.HistoryTextFor]); version is one of
// deploysync.KubernetesVersions or a server version of one.
func RolloutHistoryFor(version string, d *appsv1.Deployment, rss []*appsv1.ReplicaSet) string {
	text, err := kubectl.HistoryTextFor(version, d, rss, 0)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	return text
}
