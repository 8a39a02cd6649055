package verdict

import (
	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/kubectl"
)

// KubectlStatus is `kubectl rollout status deployment/NAME` (no
// --revision) on d as read: [kubectl.RolloutStatus], as a Verdict. Done is
// kubectl's "successfully rolled out"; Failed is one of its errors (the
// progress deadline exceeded), with the error's text as Message. kubectl
// reads the Deployment only; it has no status word.
func KubectlStatus(d *appsv1.Deployment) Verdict {
	msg, done, err := kubectl.RolloutStatus(d, 0)
	if err != nil {
		return Verdict{Tool: Kubectl, Failed: true, Message: err.Error()}
	}
	return Verdict{Tool: Kubectl, Done: done, Message: msg}
}
