package replicaset

import "github.com/deploysync/deploysync/internal/kversion"

// Option changes how [Sync] decides.
type Option func(*options)

type options struct {
	terminatingReplicas *bool
	version             kversion.Minor
	versionErr          error
}

func defaultOptions() options { return options{version: kversion.Default} }

// WithKubernetesVersion makes Sync decide as the ReplicaSet controller of
// that Kubernetes minor (default 1.37); v is read as the root package's
// WithKubernetesVersion reads it ("1.34", "v1.34.4", a server's
// gitVersion). What the minor changes:
//
//   - 1.33 reads every pod of the namespace in list order and treats as
//     its own the pods whose controller reference has its UID (whatever
//     kind and name the reference says); from 1.34 it reads the pods whose
//     controller reference names it (kind, name and UID), then the
//     orphans;
//   - 1.33 looks again after minReadySeconds only when the ready pods are
//     spec.replicas and the available ones are not, and not after a failed
//     pod write; from 1.34, whenever ready and available differ, at the
//     moment the first ready pod becomes available;
//   - 1.33 counts a ready pod available once its ready time plus
//     minReadySeconds is before the time given; from 1.34, at that time
//     too;
//   - 1.33, 1.34: the DeploymentReplicaSetTerminatingReplicas gate is off
//     by default; on from 1.35.
//
// An unsupported version makes Sync return a
// [*github.com/deploysync/deploysync.UnsupportedVersionError].
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

// WithTerminatingReplicas sets the DeploymentReplicaSetTerminatingReplicas
// feature gate: whether the status reports terminatingReplicas (the
// claimed pods being deleted that have not finished). Without it the gate
// has the minor's default: off in 1.33 and 1.34, on from 1.35.
func WithTerminatingReplicas(enabled bool) Option {
	return func(o *options) { o.terminatingReplicas = &enabled }
}

func (o options) gate() bool {
	if o.terminatingReplicas != nil {
		return *o.terminatingReplicas
	}
	return o.version.TerminatingReplicasByDefault()
}
