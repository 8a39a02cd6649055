package deploysync

import (
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/kversion"
)

// Option changes how Sync decides.
type Option func(*options)

// options are one sync's settings. The options of a concept with a file of
// its own are there: WithFixes in fixes.go, WithLimits in limits.go.
type options struct {
	// terminatingReplicas is the caller's setting of the gate, nil for the
	// minor's default (gateTerminatingReplicas).
	terminatingReplicas *bool
	version             kversion.Minor
	versionErr          error
	historyLimit        int
	fixes               []Fix
	laggingCache        bool
	limits              *Limits
}

func defaultOptions() options {
	return options{version: kversion.Default, historyLimit: facts.MaxRevisionHistoryChars}
}

// WithKubernetesVersion makes Sync decide as the kube-controller-manager of
// that Kubernetes minor (default 1.37). v is "1.34", "v1.34.4", or a
// server's gitVersion such as "v1.34.4-eks-1a2b3c": the patch and any
// suffix are ignored, since within a minor the Deployment controller's
// code is the same. What the minor changes:
//
//   - the pod-template-hash (see [deployutil.ComputeHashFor]): every minor's
//     k8s.io/api dumps the template in its own layout;
//   - 1.33: a Deployment name too long for "<name>-<hash>" (253
//     characters) fails the new ReplicaSet's create (ReplicaSetCreateError)
//     where 1.34 and later cut the name short;
//   - 1.33, 1.34: the DeploymentReplicaSetTerminatingReplicas gate is off by
//     default (status.terminatingReplicas stays unset); on from 1.35.
//     [WithTerminatingReplicas] overrides the minor's default;
//   - up to 1.35: Recreate counts the pods that match the Deployment's
//     selector and whose controller's UID is a claimed ReplicaSet's; from
//     1.36 the pods whose controller reference names the ReplicaSet (kind,
//     name, UID), whatever their labels;
//   - up to 1.35: a ReplicaSetCreateError event's message is used as a
//     format string (a '%' in it is mangled as fmt mangles it).
//
// An unsupported version makes Sync return an [*UnsupportedVersionError].
func WithKubernetesVersion(v string) Option {
	return func(o *options) {
		m, err := kversion.Parse(v)
		if err != nil {
			o.versionErr = err
			return
		}
		o.version, o.versionErr = m, nil
	}
}

// KubernetesVersions lists the Kubernetes minors [WithKubernetesVersion]
// accepts, oldest first: "1.33" to "1.37".
func KubernetesVersions() []string { return kversion.SupportedStrings() }

// UnsupportedVersionError is the error Sync returns when
// [WithKubernetesVersion] was given a version that does not parse or names
// a minor outside [KubernetesVersions]; it lists the supported minors.
type UnsupportedVersionError = kversion.UnsupportedError

// WithTerminatingReplicas sets the DeploymentReplicaSetTerminatingReplicas
// feature gate: whether the status reports terminatingReplicas. Without it
// the gate has the default of the minor of [WithKubernetesVersion]: off in
// 1.33 and 1.34, on from 1.35.
func WithTerminatingReplicas(enabled bool) Option {
	return func(o *options) { o.terminatingReplicas = &enabled }
}

// gateTerminatingReplicas reports whether the status reports
// terminatingReplicas: the caller's WithTerminatingReplicas, else the
// minor's default (on from 1.35).
func (o options) gateTerminatingReplicas() bool {
	if o.terminatingReplicas != nil {
		return *o.terminatingReplicas
	}
	return o.version.TerminatingReplicasByDefault()
}

// WithLaggingCache makes Sync decide one hash collision as upstream does
// when its ReplicaSet cache lags behind the sync's own writes.
//
// The case: the name of the new ReplicaSet is held by a ReplicaSet that
// this same sync releases (it was the Deployment's, its labels no longer
// match the selector) and that still has the Deployment's pod template.
// Upstream releases it, tries to create the new ReplicaSet, is told the
// name exists, and reads that name from its informer cache. If the cache
// has delivered the release patch by then (the default here, and what a
// running informer usually shows), the ReplicaSet has no controller: a hash
// collision, and status.collisionCount goes up. If it has not (this
// option), the ReplicaSet still looks like the Deployment's own with its
// template, and the sync carries on with it as the new ReplicaSet; its
// later writes to it are based on the version before the release, and a
// real apiserver refuses them with a conflict, after which the next sync
// sees the collision. Both end with the same collisionCount; they differ in
// this one sync's plan.
func WithLaggingCache() Option {
	return func(o *options) { o.laggingCache = true }
}

// WithRevisionHistoryChars sets the length limit of the revision-history
// annotation (2000 upstream).
func WithRevisionHistoryChars(n int) Option {
	return func(o *options) { o.historyLimit = n }
}
