package defaults

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync/internal/kversion"
)

// gates holds, for one minor, the default value of every feature gate
// under which the registry's create strategy keeps a pod template field
// (upstream's pkg/api/pod DropDisabledTemplateFields): a field whose gate
// is off is dropped on create. Each field is named for its gate.
type gates struct {
	UserNamespacesSupport                  bool // spec.hostUsers
	SupplementalGroupsPolicy               bool // securityContext.supplementalGroupsPolicy
	PodLevelResources                      bool // spec.resources
	ProcMountType                          bool // a container's securityContext.procMount (forced to Default)
	NodeInclusionPolicyInPodTopologySpread bool // topologySpreadConstraints' nodeAffinityPolicy, nodeTaintsPolicy
	MatchLabelKeysInPodTopologySpread      bool // topologySpreadConstraints' matchLabelKeys
	MatchLabelKeysInPodAffinity            bool // pod (anti-)affinity terms' matchLabelKeys, mismatchLabelKeys
	DynamicResourceAllocation              bool // spec.resourceClaims, containers' resources.claims
	ClusterTrustBundleProjection           bool // projected clusterTrustBundle sources
	PodCertificateRequest                  bool // projected podCertificate sources
	AtomicWriteVolumeUserFields            bool // volume defaultUser and items' user
	GenericWorkload                        bool // spec.schedulingGroup
	GRPCContainerProbeTLS                  bool // grpc probes' mode
	EvictionRequestAPI                     bool // spec.evictionResponders
	InPlacePodVerticalScaling              bool // containers' resizePolicy
	ContainerRestartRules                  bool // containers' restartPolicy (but an init container's Always), restartPolicyRules
	RecursiveReadOnlyMounts                bool // volumeMounts' recursiveReadOnly
	EmptyDirVolumeMode                     bool // emptyDir.mode
	VolumeBindMountOptions                 bool // volumeMounts' bindMountOptions
	HostnameOverride                       bool // spec.hostnameOverride
	EnvFiles                               bool // env valueFrom.fileKeyRef
	ImageVolume                            bool // image volumes and their mounts (and, when on, their pull policy default)
	SELinuxChangePolicy                    bool // securityContext.seLinuxChangePolicy
	ContainerStopSignals                   bool // lifecycle.stopSignal
	H2CContainerProbe                      bool // HTTP probes' and handlers' protocol

	// minor is the minor these gates are of.
	minor kversion.Minor
}

// defaultGates returns the default gates of a supported minor, read from
// pkg/features/kube_features.go of that minor's k8s.io/kubernetes (v1.33.5,
// v1.34.4, v1.35.4, v1.36.3, v1.37.2): a gate's default at a minor is the
// last of its versioned specs at or before it. A gate a minor does not have
// guards a field that minor's k8s.io/api does not have either, which
// dropUnknown drops; its value here then changes nothing, except where
// noted. The conformance module's TestMinorDeployments replays each
// minor's recorded create path and finds a gate set wrong here.
func defaultGates(m kversion.Minor) gates {
	g := gates{
		minor:                                  m,
		UserNamespacesSupport:                  true,
		SupplementalGroupsPolicy:               true,
		PodLevelResources:                      m >= kversion.V1_34,
		ProcMountType:                          true,
		NodeInclusionPolicyInPodTopologySpread: true,
		MatchLabelKeysInPodTopologySpread:      true,
		MatchLabelKeysInPodAffinity:            true,
		DynamicResourceAllocation:              m >= kversion.V1_34,
		ClusterTrustBundleProjection:           m >= kversion.V1_37,
		PodCertificateRequest:                  m >= kversion.V1_37,
		InPlacePodVerticalScaling:              true,
		// 1.33 has no ContainerRestartRules gate: its containers'
		// restartPolicy is kept (under SidecarContainers, on), and
		// restartPolicyRules is unknown to it.
		ContainerRestartRules:   m != kversion.V1_34,
		RecursiveReadOnlyMounts: true,
		HostnameOverride:        m >= kversion.V1_35,
		EnvFiles:                m >= kversion.V1_35,
		ImageVolume:             m >= kversion.V1_35,
		SELinuxChangePolicy:     true,
	}
	return g
}

// dropDisabled drops from a template the fields whose gate is off, as the
// registry's create strategy does, and the legacy init-container
// annotations, which every minor drops.
func dropDisabled(t *corev1.PodTemplateSpec, g gates) {
	s := &t.Spec
	dropInitContainerAnnotations(t)
	if !g.UserNamespacesSupport {
		s.HostUsers = nil
	}
	if sc := s.SecurityContext; sc != nil {
		if !g.SupplementalGroupsPolicy {
			sc.SupplementalGroupsPolicy = nil
		}
		if !g.SELinuxChangePolicy {
			sc.SELinuxChangePolicy = nil
		}
	}
	if !g.PodLevelResources {
		s.Resources = nil
	}
	if !g.GenericWorkload {
		s.SchedulingGroup = nil
	}
	if !g.EvictionRequestAPI {
		s.EvictionResponders = nil
	}
	if !g.HostnameOverride {
		s.HostnameOverride = nil
	}
	if !g.DynamicResourceAllocation {
		s.ResourceClaims = nil
	}
	dropTopologySpread(s, g)
	dropAffinityKeys(s, g)
	dropVolumeFields(s, g)
	if !g.ImageVolume {
		dropImageVolumes(s)
	}
	eachContainer(s, func(c *corev1.Container, init bool) { dropContainerFields(c, init, g) })
}

// eachContainer calls f on every init, regular and ephemeral container, in
// that order; init says which are init containers.
func eachContainer(s *corev1.PodSpec, f func(c *corev1.Container, init bool)) {
	for i := range s.InitContainers {
		f(&s.InitContainers[i], true)
	}
	for i := range s.Containers {
		f(&s.Containers[i], false)
	}
	for i := range s.EphemeralContainers {
		f((*corev1.Container)(&s.EphemeralContainers[i].EphemeralContainerCommon), false)
	}
}

func dropTopologySpread(s *corev1.PodSpec, g gates) {
	for i := range s.TopologySpreadConstraints {
		c := &s.TopologySpreadConstraints[i]
		if !g.NodeInclusionPolicyInPodTopologySpread {
			c.NodeAffinityPolicy = nil
			c.NodeTaintsPolicy = nil
		}
		if !g.MatchLabelKeysInPodTopologySpread {
			c.MatchLabelKeys = nil
		}
	}
}

func dropAffinityKeys(s *corev1.PodSpec, g gates) {
	if g.MatchLabelKeysInPodAffinity || s.Affinity == nil {
		return
	}
	terms := func(req []corev1.PodAffinityTerm, pref []corev1.WeightedPodAffinityTerm) {
		for i := range req {
			req[i].MatchLabelKeys, req[i].MismatchLabelKeys = nil, nil
		}
		for i := range pref {
			pref[i].PodAffinityTerm.MatchLabelKeys, pref[i].PodAffinityTerm.MismatchLabelKeys = nil, nil
		}
	}
	if a := s.Affinity.PodAffinity; a != nil {
		terms(a.RequiredDuringSchedulingIgnoredDuringExecution, a.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	if a := s.Affinity.PodAntiAffinity; a != nil {
		terms(a.RequiredDuringSchedulingIgnoredDuringExecution, a.PreferredDuringSchedulingIgnoredDuringExecution)
	}
}

func dropVolumeFields(s *corev1.PodSpec, g gates) {
	for i := range s.Volumes {
		v := &s.Volumes[i].VolumeSource
		if p := v.Projected; p != nil {
			for j := range p.Sources {
				if !g.ClusterTrustBundleProjection {
					p.Sources[j].ClusterTrustBundle = nil
				}
				if !g.PodCertificateRequest {
					p.Sources[j].PodCertificate = nil
				}
			}
		}
		if !g.AtomicWriteVolumeUserFields {
			dropVolumeUsers(v)
		}
		if !g.EmptyDirVolumeMode && v.EmptyDir != nil {
			v.EmptyDir.Mode = nil
		}
	}
}

// dropVolumeUsers drops the user fields of the first of a volume's
// secret, configMap, downwardAPI and projected sources that is set (the
// strategy looks no further), and of each projection's first set source.
func dropVolumeUsers(v *corev1.VolumeSource) {
	keys := func(items []corev1.KeyToPath) {
		for i := range items {
			items[i].User = nil
		}
	}
	files := func(items []corev1.DownwardAPIVolumeFile) {
		for i := range items {
			items[i].User = nil
		}
	}
	switch {
	case v.Secret != nil:
		v.Secret.DefaultUser = nil
		keys(v.Secret.Items)
	case v.ConfigMap != nil:
		v.ConfigMap.DefaultUser = nil
		keys(v.ConfigMap.Items)
	case v.DownwardAPI != nil:
		v.DownwardAPI.DefaultUser = nil
		files(v.DownwardAPI.Items)
	case v.Projected != nil:
		v.Projected.DefaultUser = nil
		for j := range v.Projected.Sources {
			p := &v.Projected.Sources[j]
			switch {
			case p.Secret != nil:
				keys(p.Secret.Items)
			case p.DownwardAPI != nil:
				files(p.DownwardAPI.Items)
			case p.ConfigMap != nil:
				keys(p.ConfigMap.Items)
			case p.ServiceAccountToken != nil:
				p.ServiceAccountToken.User = nil
			case p.ClusterTrustBundle != nil:
				p.ClusterTrustBundle.User = nil
			case p.PodCertificate != nil:
				p.PodCertificate.User = nil
			}
		}
	}
}

// dropImageVolumes removes the image volumes and every mount of them.
func dropImageVolumes(s *corev1.PodSpec) {
	images := map[string]bool{}
	var kept []corev1.Volume
	for _, v := range s.Volumes {
		if v.Image != nil {
			images[v.Name] = true
			continue
		}
		kept = append(kept, v)
	}
	s.Volumes = kept
	eachContainer(s, func(c *corev1.Container, _ bool) {
		var mounts []corev1.VolumeMount
		for _, m := range c.VolumeMounts {
			if !images[m.Name] {
				mounts = append(mounts, m)
			}
		}
		c.VolumeMounts = mounts
	})
}

func dropContainerFields(c *corev1.Container, init bool, g gates) {
	if !g.ProcMountType && c.SecurityContext != nil && c.SecurityContext.ProcMount != nil {
		def := corev1.DefaultProcMount
		c.SecurityContext.ProcMount = &def
	}
	if !g.DynamicResourceAllocation {
		c.Resources.Claims = nil
	}
	if !g.InPlacePodVerticalScaling {
		c.ResizePolicy = nil
	}
	if !g.ContainerRestartRules {
		if !init || (c.RestartPolicy != nil && *c.RestartPolicy != corev1.ContainerRestartPolicyAlways) {
			c.RestartPolicy = nil
		}
		c.RestartPolicyRules = nil
	}
	for i := range c.VolumeMounts {
		if !g.RecursiveReadOnlyMounts {
			c.VolumeMounts[i].RecursiveReadOnly = nil
		}
		if !g.VolumeBindMountOptions {
			c.VolumeMounts[i].BindMountOptions = nil
		}
	}
	if !g.EnvFiles {
		for i := range c.Env {
			if c.Env[i].ValueFrom != nil {
				c.Env[i].ValueFrom.FileKeyRef = nil
			}
		}
	}
	probes := []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe}
	if !g.GRPCContainerProbeTLS {
		for _, p := range probes {
			if p != nil && p.GRPC != nil {
				p.GRPC.Mode = nil
			}
		}
	}
	if !g.H2CContainerProbe {
		for _, p := range probes {
			if p != nil && p.HTTPGet != nil {
				p.HTTPGet.Protocol = nil
			}
		}
		if l := c.Lifecycle; l != nil {
			for _, h := range []*corev1.LifecycleHandler{l.PostStart, l.PreStop} {
				if h != nil && h.HTTPGet != nil {
					h.HTTPGet.Protocol = nil
				}
			}
		}
	}
	if !g.ContainerStopSignals && c.Lifecycle != nil && c.Lifecycle.StopSignal != nil {
		c.Lifecycle.StopSignal = nil
		if *c.Lifecycle == (corev1.Lifecycle{}) {
			c.Lifecycle = nil
		}
	}
}

// dropInitContainerAnnotations deletes a template's legacy init-container
// annotations. 1.37 deletes them with the disabled fields, from the new
// object only; before 1.37 the conversion to the internal type deletes
// them, from the stored object too (see [DeploymentUpdate]).
func dropInitContainerAnnotations(t *corev1.PodTemplateSpec) {
	for _, k := range []string{
		"pod.beta.kubernetes.io/init-containers",
		"pod.alpha.kubernetes.io/init-containers",
		"pod.beta.kubernetes.io/init-container-statuses",
		"pod.alpha.kubernetes.io/init-container-statuses",
	} {
		delete(t.Annotations, k)
	}
}
