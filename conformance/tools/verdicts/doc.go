// Package verdicts holds the differential tests of the verdict package
// against each tool's own code: kstatus (sigs.k8s.io/cli-utils), Helm 3's
// ReadyChecker (helm.sh/helm/v3/pkg/kube), the kstatus fork Helm 4 waits
// with (github.com/fluxcd/cli-utils), kubectl (k8s.io/kubectl) and, through
// the JSON-fed program of the argocd module beside this one, Argo CD's
// health (github.com/argoproj/gitops-engine/pkg/health).
//
// The module is separate from the conformance module so that these
// dependencies never meet its patched apimachinery, and from the library
// module so that they never reach its users.
package verdicts
