package defaults

import corev1 "k8s.io/api/core/v1"

// The walks below visit, in a pod spec, every place a gated field can be:
// dropDisabled drops the field through a walk, and the gate's in-use check
// asks through the same walk, so the two cannot look at different places.

// containerKind says which of a pod spec's lists a container is in.
type containerKind int

const (
	initContainer containerKind = iota
	appContainer
	ephemeralContainer
)

// eachContainer calls f on every init, regular and ephemeral container, in
// that order.
func eachContainer(s *corev1.PodSpec, f func(c *corev1.Container, k containerKind)) {
	for i := range s.InitContainers {
		f(&s.InitContainers[i], initContainer)
	}
	for i := range s.Containers {
		f(&s.Containers[i], appContainer)
	}
	for i := range s.EphemeralContainers {
		f((*corev1.Container)(&s.EphemeralContainers[i].EphemeralContainerCommon), ephemeralContainer)
	}
}

// anyContainer reports whether f holds for a container of s.
func anyContainer(s *corev1.PodSpec, f func(c *corev1.Container, k containerKind) bool) bool {
	found := false
	eachContainer(s, func(c *corev1.Container, k containerKind) { found = found || f(c, k) })
	return found
}

// some reports whether f holds for a place each visits in s.
func some[T any](s *corev1.PodSpec, each func(*corev1.PodSpec, func(T)), f func(T) bool) bool {
	found := false
	each(s, func(x T) { found = found || f(x) })
	return found
}

// eachSpread visits the topology spread constraints.
func eachSpread(s *corev1.PodSpec, f func(*corev1.TopologySpreadConstraint)) {
	for i := range s.TopologySpreadConstraints {
		f(&s.TopologySpreadConstraints[i])
	}
}

// eachAffinityTerm visits the required and preferred terms of the pod
// affinity and anti-affinity.
func eachAffinityTerm(s *corev1.PodSpec, f func(*corev1.PodAffinityTerm)) {
	if s.Affinity == nil {
		return
	}
	terms := func(req []corev1.PodAffinityTerm, pref []corev1.WeightedPodAffinityTerm) {
		for i := range req {
			f(&req[i])
		}
		for i := range pref {
			f(&pref[i].PodAffinityTerm)
		}
	}
	if a := s.Affinity.PodAffinity; a != nil {
		terms(a.RequiredDuringSchedulingIgnoredDuringExecution, a.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	if a := s.Affinity.PodAntiAffinity; a != nil {
		terms(a.RequiredDuringSchedulingIgnoredDuringExecution, a.PreferredDuringSchedulingIgnoredDuringExecution)
	}
}

// eachProjection visits every source of every projected volume.
func eachProjection(s *corev1.PodSpec, f func(*corev1.VolumeProjection)) {
	for i := range s.Volumes {
		if p := s.Volumes[i].Projected; p != nil {
			for j := range p.Sources {
				f(&p.Sources[j])
			}
		}
	}
}

// eachVolumeUser visits the user fields of each volume's first set source
// of secret, configMap, downwardAPI and projected (the strategy looks no
// further), and of each projection's first set source.
func eachVolumeUser(s *corev1.PodSpec, f func(**int64)) {
	keys := func(items []corev1.KeyToPath) {
		for i := range items {
			f(&items[i].User)
		}
	}
	files := func(items []corev1.DownwardAPIVolumeFile) {
		for i := range items {
			f(&items[i].User)
		}
	}
	for i := range s.Volumes {
		v := &s.Volumes[i].VolumeSource
		switch {
		case v.Secret != nil:
			f(&v.Secret.DefaultUser)
			keys(v.Secret.Items)
		case v.ConfigMap != nil:
			f(&v.ConfigMap.DefaultUser)
			keys(v.ConfigMap.Items)
		case v.DownwardAPI != nil:
			f(&v.DownwardAPI.DefaultUser)
			files(v.DownwardAPI.Items)
		case v.Projected != nil:
			f(&v.Projected.DefaultUser)
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
					f(&p.ServiceAccountToken.User)
				case p.ClusterTrustBundle != nil:
					f(&p.ClusterTrustBundle.User)
				case p.PodCertificate != nil:
					f(&p.PodCertificate.User)
				}
			}
		}
	}
}

// eachProbe visits every container's liveness, readiness and startup
// probes that are set.
func eachProbe(s *corev1.PodSpec, f func(*corev1.Probe)) {
	eachContainer(s, func(c *corev1.Container, _ containerKind) {
		for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
			if p != nil {
				f(p)
			}
		}
	})
}

// eachHTTPGet visits the HTTP GET actions of every container's probes and
// postStart and preStop handlers.
func eachHTTPGet(s *corev1.PodSpec, f func(*corev1.HTTPGetAction)) {
	eachProbe(s, func(p *corev1.Probe) {
		if p.HTTPGet != nil {
			f(p.HTTPGet)
		}
	})
	eachContainer(s, func(c *corev1.Container, _ containerKind) {
		if l := c.Lifecycle; l != nil {
			for _, h := range []*corev1.LifecycleHandler{l.PostStart, l.PreStop} {
				if h != nil && h.HTTPGet != nil {
					f(h.HTTPGet)
				}
			}
		}
	})
}

// eachMount visits every container's volume mounts.
func eachMount(s *corev1.PodSpec, f func(*corev1.VolumeMount)) {
	eachContainer(s, func(c *corev1.Container, _ containerKind) {
		for i := range c.VolumeMounts {
			f(&c.VolumeMounts[i])
		}
	})
}

// eachEnvSource visits every container's env valueFrom that is set.
func eachEnvSource(s *corev1.PodSpec, f func(*corev1.EnvVarSource)) {
	eachContainer(s, func(c *corev1.Container, _ containerKind) {
		for i := range c.Env {
			if c.Env[i].ValueFrom != nil {
				f(c.Env[i].ValueFrom)
			}
		}
	})
}
