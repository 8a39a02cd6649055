// Package defaulter fills the defaults the scheme's defaulters of an
// apiserver give a decoded apps/v1 Deployment or ReplicaSet and the pod
// template in it: the first step of package defaults' create and update
// paths, and all of deployutil.SetDefaults. The defaulters that reach a
// template are the same at every supported minor; the one gated default
// (an image volume's pull policy, under ImageVolume) is the caller's to
// say. The conformance module's defaulting tests hold it, through package
// defaults, to each minor's own defaulting.
package defaulter

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Template fills a pod template's core/v1 defaults in place, as the
// generated defaulter of an object embedding a template does (upstream's
// SetObjectDefaults_Deployment and its siblings: the pod-only defaults of
// SetDefaults_Pod, such as requests copied from limits, do not apply to a
// template). imageVolume says whether the ImageVolume gate is on, under
// which image volumes get a pull policy.
func Template(t *corev1.PodTemplateSpec, imageVolume bool) {
	s := &t.Spec
	defaultPodSpec(s)
	for i := range s.Volumes {
		defaultVolume(&s.Volumes[i], imageVolume)
	}
	for _, cs := range [][]corev1.Container{s.InitContainers, s.Containers} {
		for i := range cs {
			defaultContainer(&cs[i])
		}
	}
	for i := range s.EphemeralContainers {
		defaultContainer((*corev1.Container)(&s.EphemeralContainers[i].EphemeralContainerCommon))
	}
	roundUp(s.Overhead)
	if r := s.Resources; r != nil {
		roundUp(r.Limits)
		roundUp(r.Requests)
	}
}

// DeploymentSpec fills, in place, what apps/v1's SetDefaults_Deployment
// gives a Deployment's spec: replicas 1, strategy RollingUpdate with
// maxSurge and maxUnavailable 25% (a Recreate strategy gets no rolling
// parameters), revisionHistoryLimit 10 and progressDeadlineSeconds 600,
// each where unset. The template is [Template]'s.
func DeploymentSpec(s *appsv1.DeploymentSpec) {
	if s.Replicas == nil {
		s.Replicas = ptr.To[int32](1)
	}
	st := &s.Strategy
	if st.Type == "" {
		st.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	if st.Type == appsv1.RollingUpdateDeploymentStrategyType {
		if st.RollingUpdate == nil {
			st.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		if st.RollingUpdate.MaxUnavailable == nil {
			st.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromString("25%"))
		}
		if st.RollingUpdate.MaxSurge == nil {
			st.RollingUpdate.MaxSurge = ptr.To(intstr.FromString("25%"))
		}
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptr.To[int32](10)
	}
	if s.ProgressDeadlineSeconds == nil {
		s.ProgressDeadlineSeconds = ptr.To[int32](600)
	}
}

// ReplicaSetSpec fills, in place, what apps/v1's SetDefaults_ReplicaSet
// gives a ReplicaSet's spec: replicas 1 where unset. The template is
// [Template]'s.
func ReplicaSetSpec(s *appsv1.ReplicaSetSpec) {
	if s.Replicas == nil {
		s.Replicas = ptr.To[int32](1)
	}
}

func defaultPodSpec(s *corev1.PodSpec) {
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
}

func defaultContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = pullPolicy(c.Image)
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
	for i := range c.Env {
		if vf := c.Env[i].ValueFrom; vf != nil {
			if vf.FieldRef != nil {
				defaultFieldRef(vf.FieldRef)
			}
			if vf.FileKeyRef != nil && vf.FileKeyRef.Optional == nil {
				vf.FileKeyRef.Optional = ptr.To(false)
			}
		}
	}
	roundUp(c.Resources.Limits)
	roundUp(c.Resources.Requests)
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		if p != nil {
			defaultProbe(p)
		}
	}
	if l := c.Lifecycle; l != nil {
		for _, h := range []*corev1.LifecycleHandler{l.PostStart, l.PreStop} {
			if h != nil && h.HTTPGet != nil {
				defaultHTTPGet(h.HTTPGet)
			}
		}
	}
}

func defaultProbe(p *corev1.Probe) {
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
	if p.HTTPGet != nil {
		defaultHTTPGet(p.HTTPGet)
	}
	if p.GRPC != nil && p.GRPC.Service == nil {
		p.GRPC.Service = ptr.To("")
	}
}

func defaultHTTPGet(h *corev1.HTTPGetAction) {
	if h.Path == "" {
		h.Path = "/"
	}
	if h.Scheme == "" {
		h.Scheme = corev1.URISchemeHTTP
	}
}

func defaultFieldRef(f *corev1.ObjectFieldSelector) {
	if f.APIVersion == "" {
		f.APIVersion = "v1"
	}
}

// roundUp rounds every quantity of a list up to a whole milli-unit, as the
// apiserver does ("1.5m" is stored as "2m").
func roundUp(l corev1.ResourceList) {
	for k, q := range l {
		q.RoundUp(resource.Milli)
		l[k] = q
	}
}

func defaultVolume(v *corev1.Volume, imageVolume bool) {
	src := &v.VolumeSource
	if ptr.AllPtrFieldsNil(src) {
		*src = corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
	}
	if imageVolume && src.Image != nil && src.Image.PullPolicy == "" {
		src.Image.PullPolicy = pullPolicy(src.Image.Reference)
	}
	if h := src.HostPath; h != nil && h.Type == nil {
		h.Type = ptr.To(corev1.HostPathUnset)
	}
	if s := src.Secret; s != nil && s.DefaultMode == nil {
		s.DefaultMode = ptr.To(corev1.SecretVolumeSourceDefaultMode)
	}
	if i := src.ISCSI; i != nil && i.ISCSIInterface == "" {
		i.ISCSIInterface = "default"
	}
	if r := src.RBD; r != nil {
		if r.RBDPool == "" {
			r.RBDPool = "rbd"
		}
		if r.RadosUser == "" {
			r.RadosUser = "admin"
		}
		if r.Keyring == "" {
			r.Keyring = "/etc/ceph/keyring"
		}
	}
	if d := src.DownwardAPI; d != nil {
		if d.DefaultMode == nil {
			d.DefaultMode = ptr.To(corev1.DownwardAPIVolumeSourceDefaultMode)
		}
		defaultFiles(d.Items)
	}
	if c := src.ConfigMap; c != nil && c.DefaultMode == nil {
		c.DefaultMode = ptr.To(corev1.ConfigMapVolumeSourceDefaultMode)
	}
	if a := src.AzureDisk; a != nil {
		defaultAzureDisk(a)
	}
	if p := src.Projected; p != nil {
		defaultProjected(p)
	}
	if s := src.ScaleIO; s != nil {
		if s.StorageMode == "" {
			s.StorageMode = "ThinProvisioned"
		}
		if s.FSType == "" {
			s.FSType = "xfs"
		}
	}
	if e := src.Ephemeral; e != nil && e.VolumeClaimTemplate != nil {
		spec := &e.VolumeClaimTemplate.Spec
		if spec.VolumeMode == nil {
			spec.VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
		}
		roundUp(spec.Resources.Limits)
		roundUp(spec.Resources.Requests)
	}
}

func defaultFiles(items []corev1.DownwardAPIVolumeFile) {
	for i := range items {
		if items[i].FieldRef != nil {
			defaultFieldRef(items[i].FieldRef)
		}
	}
}

func defaultAzureDisk(a *corev1.AzureDiskVolumeSource) {
	if a.CachingMode == nil {
		a.CachingMode = ptr.To(corev1.AzureDataDiskCachingReadWrite)
	}
	if a.FSType == nil {
		a.FSType = ptr.To("ext4")
	}
	if a.ReadOnly == nil {
		a.ReadOnly = ptr.To(false)
	}
	if a.Kind == nil {
		a.Kind = ptr.To(corev1.AzureSharedBlobDisk)
	}
}

func defaultProjected(p *corev1.ProjectedVolumeSource) {
	if p.DefaultMode == nil {
		p.DefaultMode = ptr.To(corev1.ProjectedVolumeSourceDefaultMode)
	}
	for j := range p.Sources {
		s := &p.Sources[j]
		if s.DownwardAPI != nil {
			defaultFiles(s.DownwardAPI.Items)
		}
		if t := s.ServiceAccountToken; t != nil && t.ExpirationSeconds == nil {
			t.ExpirationSeconds = ptr.To[int64](3600)
		}
	}
}
