package cli

import (
	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/kubectl"
)

// RolloutHistory returns what `kubectl rollout history deployment/NAME`
// prints for a Deployment and the ReplicaSets of its namespace (see
// [kubectl.HistoryText]): the Deployment's name, then one row per revision
// of the ReplicaSets it controls and selects, ascending, with the
// kubernetes.io/change-cause annotation of that revision ("<none>" if
// unset). An error (an invalid selector, which a loaded manifest cannot
// have) is returned as kubectl prints errors: "error: ...".
func RolloutHistory(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) string {
	text, err := kubectl.HistoryText(d, rss, 0)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	return text
}

// RolloutStatus returns what `kubectl rollout status --watch=false
// deployment/NAME` reports for a Deployment as it stands (its status is
// read, not recomputed): see [kubectl.RolloutStatus].
func RolloutStatus(d *appsv1.Deployment) (msg string, done bool, err error) {
	return kubectl.RolloutStatus(d, 0)
}
