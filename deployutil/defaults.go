package deployutil

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// SetDefaults returns a copy of a Deployment with the defaults an apiserver
// applies to apps/v1 Deployments filled in, for objects read from files that
// never passed one:
//
//   - spec.replicas 1; strategy RollingUpdate with maxSurge and
//     maxUnavailable 25%; revisionHistoryLimit 10; progressDeadlineSeconds 600;
//   - the pod template's defaults (see [SetPodTemplateDefaults]), which
//     matter because the pod-template-hash is computed over the defaulted
//     template.
//
// Fields already set are kept. The argument is not modified. A user needs it
// for manifests read from files: Sync refuses the nil fields an apiserver
// would have filled, and the hash is computed over the defaulted template.
//
// It fills only these common defaults (not those of volume sources, probes,
// env field references, gated fields, canonical quantities); package
// defaults gives the object an apiserver stores, byte for byte, and its
// pod-template-hash.
func SetDefaults(d *appsv1.Deployment) *appsv1.Deployment {
	d = d.DeepCopy()
	s := &d.Spec
	if s.Replicas == nil {
		s.Replicas = ptr.To[int32](1)
	}
	if s.Strategy.Type == "" {
		s.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	if s.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType {
		if s.Strategy.RollingUpdate == nil {
			s.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		if s.Strategy.RollingUpdate.MaxUnavailable == nil {
			s.Strategy.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromString("25%"))
		}
		if s.Strategy.RollingUpdate.MaxSurge == nil {
			s.Strategy.RollingUpdate.MaxSurge = ptr.To(intstr.FromString("25%"))
		}
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptr.To[int32](10)
	}
	if s.ProgressDeadlineSeconds == nil {
		s.ProgressDeadlineSeconds = ptr.To[int32](600)
	}
	setPodTemplateDefaults(&s.Template)
	return d
}

// SetReplicaSetDefaults returns a copy of a ReplicaSet with apps/v1
// defaults: spec.replicas 1 and the pod template's defaults, for ReplicaSet
// manifests read from files, as [SetDefaults] for Deployments.
func SetReplicaSetDefaults(rs *appsv1.ReplicaSet) *appsv1.ReplicaSet {
	rs = rs.DeepCopy()
	if rs.Spec.Replicas == nil {
		rs.Spec.Replicas = ptr.To[int32](1)
	}
	setPodTemplateDefaults(&rs.Spec.Template)
	return rs
}

// SetPodTemplateDefaults returns a copy of a pod template with the core/v1
// defaults an apiserver fills in: restartPolicy Always, dnsPolicy
// ClusterFirst, an empty securityContext, terminationGracePeriodSeconds 30,
// schedulerName default-scheduler, and for each container the termination
// message path and policy, the image pull policy (Always for a ":latest"
// or untagged image, IfNotPresent otherwise), port protocols and probe
// timings. A user needs it to build a template that hashes as the
// apiserver's copy of it does (see [ComputeHash]).
func SetPodTemplateDefaults(t *corev1.PodTemplateSpec) *corev1.PodTemplateSpec {
	t = t.DeepCopy()
	setPodTemplateDefaults(t)
	return t
}

func setPodTemplateDefaults(t *corev1.PodTemplateSpec) {
	s := &t.Spec
	if s.ServiceAccountName == "" {
		s.ServiceAccountName = s.DeprecatedServiceAccount
	}
	s.DeprecatedServiceAccount = s.ServiceAccountName
	if s.DNSPolicy == "" {
		s.DNSPolicy = corev1.DNSClusterFirst
	}
	if s.RestartPolicy == "" {
		s.RestartPolicy = corev1.RestartPolicyAlways
	}
	if s.SecurityContext == nil {
		s.SecurityContext = &corev1.PodSecurityContext{}
	}
	if s.TerminationGracePeriodSeconds == nil {
		s.TerminationGracePeriodSeconds = ptr.To[int64](corev1.DefaultTerminationGracePeriodSeconds)
	}
	if s.SchedulerName == "" {
		s.SchedulerName = corev1.DefaultSchedulerName
	}
	for i := range s.InitContainers {
		setContainerDefaults(&s.InitContainers[i])
	}
	for i := range s.Containers {
		setContainerDefaults(&s.Containers[i])
	}
}

func setContainerDefaults(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		if imageTag(c.Image) == "latest" {
			c.ImagePullPolicy = corev1.PullAlways
		} else {
			c.ImagePullPolicy = corev1.PullIfNotPresent
		}
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		setProbeDefaults(p)
	}
}

func setProbeDefaults(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	if h := p.HTTPGet; h != nil {
		if h.Path == "" {
			h.Path = "/"
		}
		if h.Scheme == "" {
			h.Scheme = corev1.URISchemeHTTP
		}
	}
}

// imageTag returns an image reference's tag: "latest" when it has neither
// tag nor digest, "" when it has only a digest.
func imageTag(image string) string {
	name := image
	if i := strings.Index(name, "@"); i >= 0 {
		return ""
	}
	if i := strings.LastIndex(name, ":"); i >= 0 && !strings.Contains(name[i:], "/") {
		return name[i+1:]
	}
	return "latest"
}
