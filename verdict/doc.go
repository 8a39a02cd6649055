// Package verdict answers "is the rollout of this Deployment done?" the way
// each tool people wait with answers it, in that tool's own words, and
// once more strictly.
//
// The tools disagree. kubectl `rollout status` decides from the
// Deployment's status counts and calls a rollout done while old pods are
// still shutting down. kstatus (Flux, and Helm 4's --wait) also demands the
// conditions Progressing=NewReplicaSetAvailable and Available=True, so a
// paused Deployment that finished never becomes Current. Helm 3's legacy
// --wait reads the new ReplicaSet and only asks for spec.replicas −
// maxUnavailable ready pods, ignoring the progress deadline. Argo CD has its
// own health rule: paused is Suspended, an exceeded deadline is Degraded.
// [Strict] waits for everything: the latest generation observed, every
// replica updated and available, no old and no terminating pods.
//
// Helm 4's wait adds nothing to kstatus for a Deployment but skipping a
// paused one. Read at helm.sh/helm/v4 v4.3.1: pkg/kube/statuswait.go's
// statusWaiter.Wait and wait drop paused Deployments from the list (the
// objects Helm applied), then watch the rest with
// github.com/fluxcd/cli-utils v1.2.2's DefaultStatusWatcher and
// statusreaders.NewStatusReader with no custom reader (Helm itself never
// calls WithKStatusReaders; WaitWithJobs adds one for Jobs only); that
// reader's deploymentResourceReader.ReadStatusForObject (polling/
// statusreaders/deployment.go) lists the ReplicaSets and their pods but
// returns status.Compute of the Deployment alone, and the watcher's
// unschedulable-pod grace only schedules a re-read. statusObserver stops
// waiting once every resource is Current or Failed, and a Failed one is
// reported as not ready: [Helm4Wait].
//
// Each function decides as the tool's code at the pinned version named in
// its doc, and is differential-tested against that code in the
// conformance/tools modules on random states and trajectories. Nothing
// here talks to a cluster, reads a clock or modifies its arguments; the
// Deployment, ReplicaSets and pods are the objects as read from the
// apiserver (defaulted: spec.replicas and, for RollingUpdate, its
// parameters set).
package verdict
