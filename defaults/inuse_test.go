package defaults

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/internal/kversion"
)

// TestInUse holds the in-use checks that ask less than "the field is set"
// (or ask apart) to what upstream's pkg/api/pod checks (v1.33.5 to
// v1.37.2, the same at each): with every gate off, an update's field is
// kept or dropped by what the stored spec holds. The recorded update paths
// (the conformance module's TestMinorUpdates) reach only the gates that are
// off at some minor and the fields random stored objects hold; these rows
// pin the rest.
func TestInUse(t *testing.T) {
	off := gates{minor: kversion.V1_37}
	app := func(c corev1.Container) corev1.PodSpec { return corev1.PodSpec{Containers: []corev1.Container{c}} }
	one := func(s corev1.PodSpec) *corev1.Container { return &s.Containers[0] }
	cpu := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
	spread := func(c corev1.TopologySpreadConstraint) corev1.PodSpec {
		return corev1.PodSpec{TopologySpreadConstraints: []corev1.TopologySpreadConstraint{c}}
	}
	projected := func(p corev1.VolumeProjection) corev1.PodSpec {
		return corev1.PodSpec{Volumes: []corev1.Volume{{Name: "p", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{p}}}}}}
	}
	honor := ptr.To(corev1.NodeInclusionPolicyHonor)
	always, never := ptr.To(corev1.ContainerRestartPolicyAlways), ptr.To(corev1.ContainerRestartPolicyNever)
	rules := []corev1.ContainerRestartRule{{Action: corev1.ContainerRestartRuleActionRestart}}
	for _, tc := range []struct {
		name        string
		old, update corev1.PodSpec
		kept        func(s corev1.PodSpec) bool
		want        bool
		reason      string
	}{
		{"pod resources {} stored", corev1.PodSpec{Resources: &corev1.ResourceRequirements{}}, corev1.PodSpec{Resources: &corev1.ResourceRequirements{Requests: cpu}},
			func(s corev1.PodSpec) bool { return s.Resources != nil }, false, "podLevelResourcesInUse asks for a request or a limit"},
		{"pod limits stored", corev1.PodSpec{Resources: &corev1.ResourceRequirements{Limits: cpu}}, corev1.PodSpec{Resources: &corev1.ResourceRequirements{Requests: cpu}},
			func(s corev1.PodSpec) bool { return s.Resources != nil }, true, "a limit is use"},
		{"container claims stored, no pod-level claim", app(corev1.Container{Resources: corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "gpu"}}}}),
			corev1.PodSpec{ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu"}}},
			func(s corev1.PodSpec) bool { return len(s.ResourceClaims) > 0 }, false, "dynamicResourceAllocationInUse asks the pod-level claims only"},
		{"pod-level claim stored", corev1.PodSpec{ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu"}}},
			app(corev1.Container{Resources: corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "gpu"}}}}),
			func(s corev1.PodSpec) bool { return len(one(s).Resources.Claims) > 0 }, true, "it keeps the containers' claims too"},
		{"procMount Default stored", app(corev1.Container{SecurityContext: &corev1.SecurityContext{ProcMount: ptr.To(corev1.DefaultProcMount)}}),
			app(corev1.Container{SecurityContext: &corev1.SecurityContext{ProcMount: ptr.To(corev1.UnmaskedProcMount)}}),
			func(s corev1.PodSpec) bool { return *one(s).SecurityContext.ProcMount == corev1.UnmaskedProcMount }, false, "procMountInUse asks for another than Default; the update's is forced to Default"},
		{"procMount Unmasked stored", app(corev1.Container{SecurityContext: &corev1.SecurityContext{ProcMount: ptr.To(corev1.UnmaskedProcMount)}}),
			app(corev1.Container{SecurityContext: &corev1.SecurityContext{ProcMount: ptr.To(corev1.UnmaskedProcMount)}}),
			func(s corev1.PodSpec) bool { return *one(s).SecurityContext.ProcMount == corev1.UnmaskedProcMount }, true, "a procMount other than Default is use"},
		{"nodeTaintsPolicy stored: the update's kept", spread(corev1.TopologySpreadConstraint{NodeTaintsPolicy: honor}), spread(corev1.TopologySpreadConstraint{NodeTaintsPolicy: honor, NodeAffinityPolicy: honor}),
			func(s corev1.PodSpec) bool { return s.TopologySpreadConstraints[0].NodeTaintsPolicy != nil }, true, "nodeTaintsPolicyInUse"},
		{"nodeTaintsPolicy stored: the update's nodeAffinityPolicy dropped", spread(corev1.TopologySpreadConstraint{NodeTaintsPolicy: honor}), spread(corev1.TopologySpreadConstraint{NodeTaintsPolicy: honor, NodeAffinityPolicy: honor}),
			func(s corev1.PodSpec) bool { return s.TopologySpreadConstraints[0].NodeAffinityPolicy != nil }, false, "the two policies of NodeInclusionPolicyInPodTopologySpread are asked apart"},
		{"mismatchLabelKeys stored", corev1.PodSpec{Affinity: &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{MismatchLabelKeys: []string{"a"}}}}}},
			corev1.PodSpec{Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{PodAffinityTerm: corev1.PodAffinityTerm{MatchLabelKeys: []string{"b"}}}}}}},
			func(s corev1.PodSpec) bool {
				return len(s.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm.MatchLabelKeys) > 0
			}, true, "matchLabelKeysFieldInPodAffinityInUse: either list in any term keeps both in every term"},
		{"ephemeral resizePolicy stored", corev1.PodSpec{EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{ResizePolicy: []corev1.ContainerResizePolicy{{ResourceName: corev1.ResourceCPU}}}}}},
			app(corev1.Container{ResizePolicy: []corev1.ContainerResizePolicy{{ResourceName: corev1.ResourceCPU}}}),
			func(s corev1.PodSpec) bool { return len(one(s).ResizePolicy) > 0 }, false, "inPlacePodVerticalScalingInUse asks the init and regular containers"},
		{"regular container's restartPolicyRules alone stored", app(corev1.Container{RestartPolicyRules: rules}), app(corev1.Container{RestartPolicy: never}),
			func(s corev1.PodSpec) bool { return one(s).RestartPolicy != nil }, false, "containerRestartRulesInUse asks a regular container's restartPolicy, not its rules"},
		{"regular container's restartPolicy stored", app(corev1.Container{RestartPolicy: never}), app(corev1.Container{RestartPolicy: never, RestartPolicyRules: rules}),
			func(s corev1.PodSpec) bool { return len(one(s).RestartPolicyRules) > 0 }, true, "a regular container's restartPolicy is use, and keeps the rules too"},
		{"sidecar stored", corev1.PodSpec{InitContainers: []corev1.Container{{RestartPolicy: always}}}, app(corev1.Container{RestartPolicy: never}),
			func(s corev1.PodSpec) bool { return one(s).RestartPolicy != nil }, false, "an init container's Always is SidecarContainers', not use of ContainerRestartRules"},
		{"init container's rules stored", corev1.PodSpec{InitContainers: []corev1.Container{{RestartPolicyRules: rules}}}, app(corev1.Container{RestartPolicy: never}),
			func(s corev1.PodSpec) bool { return one(s).RestartPolicy != nil }, true, "an init container's rules are use"},
		{"ephemeral restartPolicy stored", corev1.PodSpec{EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{RestartPolicy: never}}}},
			app(corev1.Container{RestartPolicy: never}),
			func(s corev1.PodSpec) bool { return one(s).RestartPolicy != nil }, false, "containerRestartRulesInUse does not ask the ephemeral containers"},
		// Checks the recorded update paths do not reach (no recorded
		// stored object holds the field): a field set anywhere is use.
		{"cluster trust bundle stored", projected(corev1.VolumeProjection{ClusterTrustBundle: &corev1.ClusterTrustBundleProjection{Path: "a"}}),
			projected(corev1.VolumeProjection{ClusterTrustBundle: &corev1.ClusterTrustBundleProjection{Path: "b"}}),
			func(s corev1.PodSpec) bool { return s.Volumes[0].Projected.Sources[0].ClusterTrustBundle != nil }, true, "clusterTrustBundleProjectionInUse: any projected source of one"},
		{"pod certificate stored", projected(corev1.VolumeProjection{PodCertificate: &corev1.PodCertificateProjection{SignerName: "a"}}),
			projected(corev1.VolumeProjection{PodCertificate: &corev1.PodCertificateProjection{SignerName: "b"}}),
			func(s corev1.PodSpec) bool { return s.Volumes[0].Projected.Sources[0].PodCertificate != nil }, true, "podCertificateProjectionInUse: any projected source of one"},
		{"env file stored", app(corev1.Container{Env: []corev1.EnvVar{{Name: "A", ValueFrom: &corev1.EnvVarSource{FileKeyRef: &corev1.FileKeySelector{Key: "a"}}}}}),
			app(corev1.Container{Env: []corev1.EnvVar{{Name: "B", ValueFrom: &corev1.EnvVarSource{FileKeyRef: &corev1.FileKeySelector{Key: "b"}}}}}),
			func(s corev1.PodSpec) bool { return one(s).Env[0].ValueFrom.FileKeyRef != nil }, true, "podFileKeyRefInUse: any container's env of one"},
		{"a user beyond the volume's first source", corev1.PodSpec{Volumes: []corev1.Volume{{VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{}, ConfigMap: &corev1.ConfigMapVolumeSource{DefaultUser: ptr.To[int64](1)}}}}},
			corev1.PodSpec{Volumes: []corev1.Volume{{VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{DefaultUser: ptr.To[int64](1)}}}}},
			func(s corev1.PodSpec) bool { return s.Volumes[0].Secret.DefaultUser != nil }, false, "atomicWriteVolumeUserFieldsInUse looks at a volume's first set source only, as the drop does"},
	} {
		old := &corev1.PodTemplateSpec{Spec: tc.old}
		got := &corev1.PodTemplateSpec{Spec: *tc.update.DeepCopy()}
		dropDisabled(got, off, old)
		if k := tc.kept(got.Spec); k != tc.want {
			t.Errorf("%s: kept %v, want %v (%s)", tc.name, k, tc.want, tc.reason)
		}
		created := &corev1.PodTemplateSpec{Spec: *tc.update.DeepCopy()}
		dropDisabled(created, off, nil)
		if tc.kept(created.Spec) {
			t.Errorf("%s: kept on create, where nothing is stored to use it", tc.name)
		}
	}
}
