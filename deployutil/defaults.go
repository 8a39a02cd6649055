package deployutil

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync/internal/defaulter"
)

// SetDefaults returns a copy of a Deployment with the defaults an
// apiserver's defaulters give an apps/v1 Deployment filled in, for objects
// read from files that never passed one:
//
//   - spec.replicas 1; strategy RollingUpdate with maxSurge and
//     maxUnavailable 25%; revisionHistoryLimit 10; progressDeadlineSeconds 600;
//   - the pod template's defaults (see [SetPodTemplateDefaults]), which
//     matter because the pod-template-hash is computed over the defaulted
//     template.
//
// Fields already set are kept, but for quantities, which are rounded up to
// a whole milli-unit as the apiserver's defaulting rounds them. The
// argument is not modified. A user needs it for manifests read from files:
// Sync refuses the nil fields an apiserver would have filled, and the hash
// is computed over the defaulted template.
//
// These are the defaulters of package defaults, the first of its steps,
// and of every minor alike; SetDefaults does not take the others (it
// neither refuses a Deployment, drops the fields of disabled feature gates
// or unknown to a minor, normalizes the rollback annotation, nor reads the
// object back in canonical JSON, nor touches the status or generation).
// Package defaults gives the object an apiserver of a given minor stores,
// byte for byte, and so its pod-template-hash.
func SetDefaults(d *appsv1.Deployment) *appsv1.Deployment {
	d = d.DeepCopy()
	defaulter.DeploymentSpec(&d.Spec)
	setPodTemplateDefaults(&d.Spec.Template)
	return d
}

// SetReplicaSetDefaults returns a copy of a ReplicaSet with apps/v1
// defaults: spec.replicas 1 and the pod template's defaults, for ReplicaSet
// manifests read from files, as [SetDefaults] for Deployments.
func SetReplicaSetDefaults(rs *appsv1.ReplicaSet) *appsv1.ReplicaSet {
	rs = rs.DeepCopy()
	defaulter.ReplicaSetSpec(&rs.Spec)
	setPodTemplateDefaults(&rs.Spec.Template)
	return rs
}

// SetPodTemplateDefaults returns a copy of a pod template with the core/v1
// defaults an apiserver fills in: restartPolicy Always, dnsPolicy
// ClusterFirst, an empty securityContext, terminationGracePeriodSeconds 30,
// schedulerName default-scheduler; for each init, regular and ephemeral
// container the termination message path and policy, the image pull
// policy (Always for an image of the latest tag, written or implied,
// IfNotPresent otherwise, as the apiserver parses the reference), port
// protocols, env fieldRef apiVersions, probe timings and HTTP handler
// defaults; each volume source's defaults (file modes, hostPath type, an
// emptyDir where no source is set, ...), and quantities rounded up to
// milli-units. An image volume gets its pull policy as at 1.35 and later,
// where the ImageVolume gate is on. A user needs it to build a template
// that hashes as the apiserver's copy of it does (see [ComputeHash]); the
// fields of disabled gates that an apiserver also drops are package
// defaults' (defaults.PodTemplate).
func SetPodTemplateDefaults(t *corev1.PodTemplateSpec) *corev1.PodTemplateSpec {
	t = t.DeepCopy()
	setPodTemplateDefaults(t)
	return t
}

// setPodTemplateDefaults is the defaulter's template step, with the image
// volume pull policy of the minors whose ImageVolume gate is on.
func setPodTemplateDefaults(t *corev1.PodTemplateSpec) {
	defaulter.Template(t, true)
}
