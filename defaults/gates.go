package defaults

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

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
// registry's create and update strategies do (upstream's
// DropDisabledTemplateFields), and the legacy init-container annotations,
// which every minor drops. old is the stored template on an update, nil on
// create: a field whose gate is off is kept where old uses it, as that
// gate's in-use check asks (inuse.go). The gates come in upstream's order.
func dropDisabled(t *corev1.PodTemplateSpec, g gates, old *corev1.PodTemplateSpec) {
	var stored *corev1.PodSpec
	if old != nil {
		stored = &old.Spec
	}
	// drop reports whether a gate's field goes: the gate is off and the
	// stored spec, if any, does not use it.
	drop := func(on bool, inUse func(*corev1.PodSpec) bool) bool {
		return !on && (stored == nil || !inUse(stored))
	}
	s := &t.Spec
	dropInitContainerAnnotations(t)
	if drop(g.UserNamespacesSupport, hostUsersInUse) {
		s.HostUsers = nil
	}
	if drop(g.SupplementalGroupsPolicy, supplementalGroupsPolicyInUse) && s.SecurityContext != nil {
		s.SecurityContext.SupplementalGroupsPolicy = nil
	}
	if drop(g.PodLevelResources, podLevelResourcesInUse) {
		s.Resources = nil
	}
	if drop(g.ProcMountType, procMountInUse) {
		// Forced to the default, not dropped: a stored object of 1.12
		// has it set.
		eachContainer(s, func(c *corev1.Container, _ containerKind) {
			if c.SecurityContext != nil && c.SecurityContext.ProcMount != nil {
				c.SecurityContext.ProcMount = ptr.To(corev1.DefaultProcMount)
			}
		})
	}
	if drop(g.NodeInclusionPolicyInPodTopologySpread, nodeTaintsPolicyInUse) {
		eachSpread(s, func(c *corev1.TopologySpreadConstraint) { c.NodeTaintsPolicy = nil })
	}
	if drop(g.NodeInclusionPolicyInPodTopologySpread, nodeAffinityPolicyInUse) {
		eachSpread(s, func(c *corev1.TopologySpreadConstraint) { c.NodeAffinityPolicy = nil })
	}
	if drop(g.MatchLabelKeysInPodTopologySpread, spreadLabelKeysInUse) {
		eachSpread(s, func(c *corev1.TopologySpreadConstraint) { c.MatchLabelKeys = nil })
	}
	if drop(g.MatchLabelKeysInPodAffinity, affinityLabelKeysInUse) {
		eachAffinityTerm(s, func(t *corev1.PodAffinityTerm) { t.MatchLabelKeys, t.MismatchLabelKeys = nil, nil })
	}
	if drop(g.DynamicResourceAllocation, resourceClaimsInUse) {
		s.ResourceClaims = nil
		eachContainer(s, func(c *corev1.Container, _ containerKind) { c.Resources.Claims = nil })
	}
	if drop(g.ClusterTrustBundleProjection, clusterTrustBundlesInUse) {
		eachProjection(s, func(p *corev1.VolumeProjection) { p.ClusterTrustBundle = nil })
	}
	if drop(g.PodCertificateRequest, podCertificatesInUse) {
		eachProjection(s, func(p *corev1.VolumeProjection) { p.PodCertificate = nil })
	}
	if drop(g.AtomicWriteVolumeUserFields, volumeUsersInUse) {
		eachVolumeUser(s, func(u **int64) { *u = nil })
	}
	if drop(g.GenericWorkload, schedulingGroupInUse) {
		s.SchedulingGroup = nil
	}
	if drop(g.GRPCContainerProbeTLS, grpcProbeModeInUse) {
		eachProbe(s, func(p *corev1.Probe) {
			if p.GRPC != nil {
				p.GRPC.Mode = nil
			}
		})
	}
	if drop(g.EvictionRequestAPI, evictionRespondersInUse) {
		s.EvictionResponders = nil
	}
	if drop(g.InPlacePodVerticalScaling, resizePolicyInUse) {
		eachContainer(s, func(c *corev1.Container, _ containerKind) { c.ResizePolicy = nil })
	}
	if drop(g.ContainerRestartRules, restartRulesInUse) {
		eachContainer(s, dropRestartRules)
	}
	if drop(g.RecursiveReadOnlyMounts, recursiveReadOnlyInUse) {
		eachMount(s, func(m *corev1.VolumeMount) { m.RecursiveReadOnly = nil })
	}
	if drop(g.EmptyDirVolumeMode, emptyDirModeInUse) {
		for i := range s.Volumes {
			if e := s.Volumes[i].EmptyDir; e != nil {
				e.Mode = nil
			}
		}
	}
	if drop(g.VolumeBindMountOptions, bindMountOptionsInUse) {
		eachMount(s, func(m *corev1.VolumeMount) { m.BindMountOptions = nil })
	}
	if drop(g.HostnameOverride, hostnameOverrideInUse) {
		s.HostnameOverride = nil
	}
	if drop(g.EnvFiles, fileKeyRefsInUse) {
		eachEnvSource(s, func(e *corev1.EnvVarSource) { e.FileKeyRef = nil })
	}
	if drop(g.ImageVolume, imageVolumesInUse) {
		dropImageVolumes(s)
	}
	if drop(g.SELinuxChangePolicy, seLinuxChangePolicyInUse) && s.SecurityContext != nil {
		s.SecurityContext.SELinuxChangePolicy = nil
	}
	if drop(g.ContainerStopSignals, stopSignalsInUse) {
		eachContainer(s, func(c *corev1.Container, _ containerKind) {
			if l := c.Lifecycle; l != nil && l.StopSignal != nil {
				l.StopSignal = nil
				if *l == (corev1.Lifecycle{}) {
					c.Lifecycle = nil
				}
			}
		})
	}
	if drop(g.H2CContainerProbe, httpProtocolsInUse) {
		eachHTTPGet(s, func(h *corev1.HTTPGetAction) { h.Protocol = nil })
	}
}

// dropRestartRules drops a container's restartPolicy and
// restartPolicyRules, but an init container's restartPolicy Always (a
// sidecar's, under another gate).
func dropRestartRules(c *corev1.Container, k containerKind) {
	if k != initContainer || (c.RestartPolicy != nil && *c.RestartPolicy != corev1.ContainerRestartPolicyAlways) {
		c.RestartPolicy = nil
	}
	c.RestartPolicyRules = nil
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
	eachContainer(s, func(c *corev1.Container, _ containerKind) {
		var mounts []corev1.VolumeMount
		for _, m := range c.VolumeMounts {
			if !images[m.Name] {
				mounts = append(mounts, m)
			}
		}
		c.VolumeMounts = mounts
	})
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
