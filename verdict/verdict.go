package verdict

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Tool names whose idea of "rolled out" a [Verdict] gives.
type Tool string

// The tools, in the order [All] answers.
const (
	// Kubectl is `kubectl rollout status deployment/NAME` (k8s.io/kubectl
	// v0.37.2).
	Kubectl Tool = "kubectl"
	// Kstatus is sigs.k8s.io/cli-utils/pkg/kstatus/status v0.37.2 (Flux,
	// kpt, and `kubectl wait`-like tools built on it).
	Kstatus Tool = "kstatus"
	// Helm3 is Helm 3's legacy `--wait` (helm.sh/helm/v3 v3.22.0,
	// pkg/kube's ReadyChecker).
	Helm3 Tool = "helm3"
	// Helm4 is Helm 4's `--wait` (helm.sh/helm/v4 v4.3.1, the kstatus
	// watcher of github.com/fluxcd/cli-utils v1.2.2).
	Helm4 Tool = "helm4"
	// ArgoCD is Argo CD's health of a Deployment
	// (github.com/argoproj/gitops-engine/pkg/health,
	// v0.7.1-0.20260512161450-ff8d2f5207dc).
	ArgoCD Tool = "argocd"
	// StrictTool is [Strict]: deploysync's own rule, which waits for every
	// old and terminating pod to be gone.
	StrictTool Tool = "strict"
)

// Tools returns every Tool, in the order [All] answers.
func Tools() []Tool {
	return []Tool{Kubectl, Kstatus, Helm3, Helm4, ArgoCD, StrictTool}
}

// Verdict is one tool's answer for a Deployment as read.
type Verdict struct {
	// Tool is the tool that answers.
	Tool Tool
	// Done is true when the tool's wait ends with success here.
	Done bool
	// Failed is true when the tool's wait ends with a failure here without
	// waiting longer: kubectl's error, kstatus's and Helm 4's Failed, Argo
	// CD's Degraded. A verdict that is neither Done nor Failed means the
	// tool keeps waiting.
	Failed bool
	// Status is the tool's own status word: kstatus's Current,
	// InProgress, Failed or Terminating; Argo CD's Healthy, Progressing,
	// Suspended or Degraded; Helm 4's kstatus status, empty for a paused
	// Deployment it does not wait for. kubectl, Helm 3 and strict have no
	// status word: empty.
	Status string
	// Message is what the tool says, byte for byte: kubectl's line (with
	// its newline) or its error; kstatus's message; Helm 3's debug log
	// line (empty where Helm 3 logs nothing); Helm 4's error for a
	// resource that is not ready (empty when it is); Argo CD's message
	// (empty when Healthy); for strict, its first reason or the line
	// saying it is done.
	Message string
	// Reasons says why the verdict is not done, in deploysync's words with
	// the numbers: for strict, one entry per unmet condition, in the order
	// of [Strict]'s doc; for Helm 3, one entry where Helm 3 itself logs
	// nothing. Empty when Done, and for the other tools, whose Message
	// says it.
	Reasons []string
}

// All returns every tool's verdict on the Deployment d, its namespace's
// ReplicaSets rss (in any order) and their pods keyed by the UID of the
// controlling ReplicaSet, in the order of [Tools]. Each tool reads only
// what it reads on a cluster: see each function.
func All(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, pods map[types.UID][]*corev1.Pod) []Verdict {
	return []Verdict{
		KubectlStatus(d),
		KstatusStatus(d),
		Helm3Ready(d, rss),
		Helm4Wait(d),
		ArgoCDHealth(d),
		Strict(d, rss, pods),
	}
}
