package deploysync

import (
	"github.com/deploysync/deploysync/internal/kversion"
)

// UnsupportedVersionError is the error Sync returns when
// [WithKubernetesVersion] was given a version that does not parse or names
// a minor outside [KubernetesVersions]; it lists the supported minors.
type UnsupportedVersionError = kversion.UnsupportedError

// KubernetesVersions lists the Kubernetes minors [WithKubernetesVersion]
// accepts, oldest first: "1.33" to "1.37".
func KubernetesVersions() []string { return kversion.SupportedStrings() }

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

// gateTerminatingReplicas reports whether the status reports
// terminatingReplicas: the caller's WithTerminatingReplicas, else the
// minor's default (on from 1.35).
func (o options) gateTerminatingReplicas() bool {
	if o.terminatingReplicas != nil {
		return *o.terminatingReplicas
	}
	return o.version.AtLeast(kversion.V1_35)
}
