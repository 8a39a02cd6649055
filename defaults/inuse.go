package defaults

import corev1 "k8s.io/api/core/v1"

// The in-use checks. On an update the registry's strategy keeps a field
// whose gate is off where the stored pod spec uses it, and each gate has
// its own idea of use (upstream's pkg/api/pod, one check a gate, or two for
// NodeInclusionPolicyInPodTopologySpread): most ask whether the field is
// set anywhere, some ask less. Each check below says what it asks where
// that is less than "set", and at which of the supported minors it is
// asked, that is, where its gate is off by default and the minor knows the
// field (see defaultGates and newFields):
//
//	1.33                PodLevelResources, DynamicResourceAllocation
//	1.33, 1.34          ImageVolume
//	1.33 to 1.36        ClusterTrustBundleProjection
//	1.34                ContainerRestartRules, HostnameOverride, EnvFiles
//	1.34 to 1.36        PodCertificateRequest
//	1.33 to 1.37        ContainerStopSignals
//	1.36, 1.37          GenericWorkload
//	1.37                GRPCContainerProbeTLS, EvictionRequestAPI,
//	                    AtomicWriteVolumeUserFields, EmptyDirVolumeMode,
//	                    VolumeBindMountOptions, H2CContainerProbe
//
// The other gates are on at every supported minor, so no minor asks their
// checks; they are written as upstream has them all the same. A check is
// the same at every minor that has its gate (compared in the pkg/api/pod
// of v1.33.5, v1.34.4, v1.35.4, v1.36.3 and v1.37.2: where the text
// differs, as hostUsersInUse's before and after 1.37's internal-type
// change, it asks the same of a v1 object). The conformance module's
// TestMinorUpdates replays each minor's recorded update path on stored
// objects that hold every gated field.

func hostUsersInUse(s *corev1.PodSpec) bool { return s.HostUsers != nil }

func supplementalGroupsPolicyInUse(s *corev1.PodSpec) bool {
	return s.SecurityContext != nil && s.SecurityContext.SupplementalGroupsPolicy != nil
}

// podLevelResourcesInUse asks for a pod-level request or limit: a stored
// resources: {} is not in use, and the update's resources are dropped.
func podLevelResourcesInUse(s *corev1.PodSpec) bool {
	r := s.Resources
	return r != nil && (len(r.Requests) > 0 || len(r.Limits) > 0)
}

// procMountInUse asks for a procMount other than Default (the one the
// drop forces).
func procMountInUse(s *corev1.PodSpec) bool {
	return anyContainer(s, func(c *corev1.Container, _ containerKind) bool {
		sc := c.SecurityContext
		return sc != nil && sc.ProcMount != nil && *sc.ProcMount != corev1.DefaultProcMount
	})
}

// nodeTaintsPolicyInUse and nodeAffinityPolicyInUse are asked apart: a
// stored nodeTaintsPolicy keeps the update's, not its nodeAffinityPolicy.
func nodeTaintsPolicyInUse(s *corev1.PodSpec) bool {
	return some(s, eachSpread, func(c *corev1.TopologySpreadConstraint) bool { return c.NodeTaintsPolicy != nil })
}

func nodeAffinityPolicyInUse(s *corev1.PodSpec) bool {
	return some(s, eachSpread, func(c *corev1.TopologySpreadConstraint) bool { return c.NodeAffinityPolicy != nil })
}

func spreadLabelKeysInUse(s *corev1.PodSpec) bool {
	return some(s, eachSpread, func(c *corev1.TopologySpreadConstraint) bool { return len(c.MatchLabelKeys) > 0 })
}

// affinityLabelKeysInUse asks for matchLabelKeys or mismatchLabelKeys in
// any term: either keeps both.
func affinityLabelKeysInUse(s *corev1.PodSpec) bool {
	return some(s, eachAffinityTerm, func(t *corev1.PodAffinityTerm) bool {
		return len(t.MatchLabelKeys) > 0 || len(t.MismatchLabelKeys) > 0
	})
}

// resourceClaimsInUse asks for pod-level resourceClaims only (a
// container's claim must name one of them), and keeps the containers'
// claims too.
func resourceClaimsInUse(s *corev1.PodSpec) bool { return len(s.ResourceClaims) > 0 }

func clusterTrustBundlesInUse(s *corev1.PodSpec) bool {
	return some(s, eachProjection, func(p *corev1.VolumeProjection) bool { return p.ClusterTrustBundle != nil })
}

func podCertificatesInUse(s *corev1.PodSpec) bool {
	return some(s, eachProjection, func(p *corev1.VolumeProjection) bool { return p.PodCertificate != nil })
}

// volumeUsersInUse looks where the drop looks: a volume's first set
// source, a projection's first set source.
func volumeUsersInUse(s *corev1.PodSpec) bool {
	return some(s, eachVolumeUser, func(u **int64) bool { return *u != nil })
}

func schedulingGroupInUse(s *corev1.PodSpec) bool { return s.SchedulingGroup != nil }

func grpcProbeModeInUse(s *corev1.PodSpec) bool {
	return some(s, eachProbe, func(p *corev1.Probe) bool { return p.GRPC != nil && p.GRPC.Mode != nil })
}

func evictionRespondersInUse(s *corev1.PodSpec) bool { return len(s.EvictionResponders) > 0 }

// resizePolicyInUse asks the init and regular containers, not the
// ephemeral ones (whose resizePolicy is dropped all the same).
func resizePolicyInUse(s *corev1.PodSpec) bool {
	return anyContainer(s, func(c *corev1.Container, k containerKind) bool {
		return k != ephemeralContainer && len(c.ResizePolicy) > 0
	})
}

// restartRulesInUse asks for an init container's restartPolicy other than
// Always (a sidecar's Always is another gate's) or its restartPolicyRules,
// and a regular container's restartPolicy: not a regular container's
// rules alone, nor an ephemeral container's fields. 1.33 has no such gate.
func restartRulesInUse(s *corev1.PodSpec) bool {
	return anyContainer(s, func(c *corev1.Container, k containerKind) bool {
		switch k {
		case initContainer:
			return (c.RestartPolicy != nil && *c.RestartPolicy != corev1.ContainerRestartPolicyAlways) || len(c.RestartPolicyRules) > 0
		case appContainer:
			return c.RestartPolicy != nil
		}
		return false
	})
}

func recursiveReadOnlyInUse(s *corev1.PodSpec) bool {
	return some(s, eachMount, func(m *corev1.VolumeMount) bool { return m.RecursiveReadOnly != nil })
}

func emptyDirModeInUse(s *corev1.PodSpec) bool {
	for _, v := range s.Volumes {
		if v.EmptyDir != nil && v.EmptyDir.Mode != nil {
			return true
		}
	}
	return false
}

func bindMountOptionsInUse(s *corev1.PodSpec) bool {
	return some(s, eachMount, func(m *corev1.VolumeMount) bool { return len(m.BindMountOptions) > 0 })
}

func hostnameOverrideInUse(s *corev1.PodSpec) bool { return s.HostnameOverride != nil }

func fileKeyRefsInUse(s *corev1.PodSpec) bool {
	return some(s, eachEnvSource, func(e *corev1.EnvVarSource) bool { return e.FileKeyRef != nil })
}

// imageVolumesInUse asks for an image volume; it keeps the update's image
// volumes and their mounts.
func imageVolumesInUse(s *corev1.PodSpec) bool {
	for _, v := range s.Volumes {
		if v.Image != nil {
			return true
		}
	}
	return false
}

func seLinuxChangePolicyInUse(s *corev1.PodSpec) bool {
	return s.SecurityContext != nil && s.SecurityContext.SELinuxChangePolicy != nil
}

func stopSignalsInUse(s *corev1.PodSpec) bool {
	return anyContainer(s, func(c *corev1.Container, _ containerKind) bool {
		return c.Lifecycle != nil && c.Lifecycle.StopSignal != nil
	})
}

func httpProtocolsInUse(s *corev1.PodSpec) bool {
	return some(s, eachHTTPGet, func(h *corev1.HTTPGetAction) bool { return h.Protocol != nil })
}
