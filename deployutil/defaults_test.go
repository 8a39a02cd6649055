package deployutil_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// The expected values below are those of upstream's apiserver defaulting
// (k8s.io/kubernetes/pkg/apis/apps/v1 SetDefaults_Deployment and
// pkg/apis/core/v1 SetDefaults_PodSpec, _Container, _ContainerPort,
// _Probe, _HTTPGetAction at v1.37.2).

func defaultedPodSpec(containers ...corev1.Container) corev1.PodSpec {
	return corev1.PodSpec{
		Containers:                    containers,
		RestartPolicy:                 corev1.RestartPolicyAlways,
		DNSPolicy:                     corev1.DNSClusterFirst,
		SecurityContext:               &corev1.PodSecurityContext{},
		TerminationGracePeriodSeconds: ptr.To[int64](30),
		SchedulerName:                 corev1.DefaultSchedulerName,
	}
}

func TestSetDefaults(t *testing.T) {
	tests := []struct {
		name   string
		in     *appsv1.Deployment
		want   appsv1.DeploymentSpec
		reason string
	}{
		{name: "empty", in: &appsv1.Deployment{},
			want: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](1),
				Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxUnavailable: ptr.To(intstr.FromString("25%")), MaxSurge: ptr.To(intstr.FromString("25%"))}},
				RevisionHistoryLimit: ptr.To[int32](10), ProgressDeadlineSeconds: ptr.To[int32](600),
				Template: corev1.PodTemplateSpec{Spec: defaultedPodSpec()},
			},
			reason: "apps/v1 defaults: 1 replica, RollingUpdate 25%/25%, history 10, deadline 600s, and the pod spec defaults"},
		{name: "set fields kept", in: &appsv1.Deployment{Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](0), Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
			RevisionHistoryLimit: ptr.To[int32](0), ProgressDeadlineSeconds: ptr.To[int32](60),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, DNSPolicy: corev1.DNSDefault,
				SchedulerName: "mine", TerminationGracePeriodSeconds: ptr.To[int64](5), DeprecatedServiceAccount: "old"}},
		}},
			want: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](0), Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
				RevisionHistoryLimit: ptr.To[int32](0), ProgressDeadlineSeconds: ptr.To[int32](60),
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, DNSPolicy: corev1.DNSDefault,
					SchedulerName: "mine", TerminationGracePeriodSeconds: ptr.To[int64](5), SecurityContext: &corev1.PodSecurityContext{},
					ServiceAccountName: "old", DeprecatedServiceAccount: "old"}},
			},
			reason: "zero values that are set stay; Recreate gets no rollingUpdate; the deprecated service account fills serviceAccountName"},
		{name: "half a rolling update", in: &appsv1.Deployment{Spec: appsv1.DeploymentSpec{
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(0))}},
		}},
			want: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](1),
				Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxUnavailable: ptr.To(intstr.FromString("25%")), MaxSurge: ptr.To(intstr.FromInt32(0))}},
				RevisionHistoryLimit: ptr.To[int32](10), ProgressDeadlineSeconds: ptr.To[int32](600),
				Template: corev1.PodTemplateSpec{Spec: defaultedPodSpec()},
			},
			reason: "only the missing parameter is defaulted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, tt.in)
			got := deployutil.SetDefaults(tt.in)
			frozen.Check(t)
			if diff := cmp.Diff(tt.want, got.Spec); diff != "" {
				t.Errorf("(-want +got):\n%s\n(%s)", diff, tt.reason)
			}
		})
	}
}

func TestSetPodTemplateDefaults(t *testing.T) {
	c := func(image string) corev1.Container { return corev1.Container{Name: "c", Image: image} }
	dc := func(image string, pull corev1.PullPolicy) corev1.Container {
		return corev1.Container{Name: "c", Image: image, ImagePullPolicy: pull,
			TerminationMessagePath: corev1.TerminationMessagePathDefault, TerminationMessagePolicy: corev1.TerminationMessageReadFile}
	}
	probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(80)}}}
	defaultedProbe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(80), Path: "/", Scheme: corev1.URISchemeHTTP}},
		TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}
	tests := []struct {
		name   string
		in     corev1.Container
		want   corev1.Container
		reason string
	}{
		{name: "untagged", in: c("nginx"), want: dc("nginx", corev1.PullAlways), reason: "no tag means latest: Always"},
		{name: "latest", in: c("nginx:latest"), want: dc("nginx:latest", corev1.PullAlways), reason: ":latest pulls Always"},
		{name: "tagged", in: c("nginx:1.27"), want: dc("nginx:1.27", corev1.PullIfNotPresent), reason: "a tag pulls IfNotPresent"},
		{name: "digest", in: c("nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
			want:   dc("nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", corev1.PullIfNotPresent),
			reason: "a digest without a tag pulls IfNotPresent"},
		{name: "registry port, untagged", in: c("localhost:5000/nginx"), want: dc("localhost:5000/nginx", corev1.PullAlways),
			reason: "the registry's port is not a tag"},
		{name: "registry port, tagged", in: c("localhost:5000/nginx:2"), want: dc("localhost:5000/nginx:2", corev1.PullIfNotPresent),
			reason: "the tag after the last slash counts"},
		{name: "empty image", in: c(""), want: dc("", corev1.PullIfNotPresent),
			reason: "a template may leave the image to be filled; upstream's reference parser fails on it and leaves no tag: IfNotPresent"},
		{name: "latest beside a digest", in: c("nginx:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
			want:   dc("nginx:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", corev1.PullAlways),
			reason: "the written tag is read beside the digest: latest pulls Always"},
		{name: "no valid reference", in: c("Nginx"), want: dc("Nginx", corev1.PullIfNotPresent),
			reason: "a repository name is lower case: the parser fails and leaves no tag, IfNotPresent (not the implied latest)"},
		{name: "pull policy kept", in: corev1.Container{Name: "c", Image: "nginx", ImagePullPolicy: corev1.PullNever, TerminationMessagePath: "/x", TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError},
			want:   corev1.Container{Name: "c", Image: "nginx", ImagePullPolicy: corev1.PullNever, TerminationMessagePath: "/x", TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError},
			reason: "set values are kept"},
		{name: "ports and probes", in: func() corev1.Container {
			x := c("nginx:1")
			x.Ports = []corev1.ContainerPort{{ContainerPort: 80}, {ContainerPort: 53, Protocol: corev1.ProtocolUDP}}
			x.LivenessProbe, x.ReadinessProbe = probe.DeepCopy(), &corev1.Probe{TimeoutSeconds: 5, PeriodSeconds: 2, SuccessThreshold: 2, FailureThreshold: 9}
			return x
		}(), want: func() corev1.Container {
			x := dc("nginx:1", corev1.PullIfNotPresent)
			x.Ports = []corev1.ContainerPort{{ContainerPort: 80, Protocol: corev1.ProtocolTCP}, {ContainerPort: 53, Protocol: corev1.ProtocolUDP}}
			x.LivenessProbe, x.ReadinessProbe = defaultedProbe, &corev1.Probe{TimeoutSeconds: 5, PeriodSeconds: 2, SuccessThreshold: 2, FailureThreshold: 9}
			return x
		}(), reason: "ports default to TCP; probes get 1s timeout, 10s period, thresholds 1 and 3, and an HTTP GET of / over HTTP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			in := &corev1.PodTemplateSpec{Spec: corev1.PodSpec{InitContainers: []corev1.Container{tt.in}, Containers: []corev1.Container{tt.in}}}
			frozen := testutil.Freeze(t, in)
			got := deployutil.SetPodTemplateDefaults(in)
			frozen.Check(t)
			want := defaultedPodSpec(tt.want)
			want.InitContainers = []corev1.Container{tt.want}
			if diff := cmp.Diff(want, got.Spec); diff != "" {
				t.Errorf("(-want +got):\n%s\n(%s)", diff, tt.reason)
			}
		})
	}
}

// TestSetPodTemplateDefaultsBeyondContainers covers the template defaults
// past the containers' own (upstream's SetObjectDefaults_Deployment at
// v1.37.2: SetDefaults_EphemeralContainer, _ObjectFieldSelector,
// _Volume, _ResourceList, _LifecycleHandler's HTTPGetAction, _GRPCAction),
// which SetPodTemplateDefaults shares with package defaults.
func TestSetPodTemplateDefaultsBeyondContainers(t *testing.T) {
	in := &corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "c", Image: "nginx:1",
			Env:          []corev1.EnvVar{{Name: "NODE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}},
			Resources:    corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1.5m")}},
			Lifecycle:    &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(80)}}},
			StartupProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9000}}},
		}},
		EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug", Image: "busybox"}}},
		Volumes:             []corev1.Volume{{Name: "scratch"}},
	}}
	frozen := testutil.Freeze(t, in)
	got := deployutil.SetPodTemplateDefaults(in)
	frozen.Check(t)
	s, c := got.Spec, got.Spec.Containers[0]
	for _, check := range []struct {
		got, want any
		reason    string
	}{
		{c.Env[0].ValueFrom.FieldRef.APIVersion, "v1", "a fieldRef's apiVersion defaults to v1"},
		{c.Resources.Requests.Cpu().String(), "2m", "quantities are rounded up to a whole milli-unit"},
		{c.Lifecycle.PreStop.HTTPGet.Path + " " + string(c.Lifecycle.PreStop.HTTPGet.Scheme), "/ HTTP", "a handler's HTTP GET gets / over HTTP, as a probe's does"},
		{c.StartupProbe.GRPC.Service, ptr.To(""), "a gRPC probe's service defaults to the empty one"},
		{s.EphemeralContainers[0].ImagePullPolicy, corev1.PullAlways, "ephemeral containers get the container defaults: busybox is the latest tag"},
		{s.EphemeralContainers[0].TerminationMessagePolicy, corev1.TerminationMessageReadFile, "and the termination message policy"},
		{s.Volumes[0].VolumeSource, corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}, "a volume with no source is an emptyDir"},
	} {
		if diff := cmp.Diff(check.want, check.got); diff != "" {
			t.Errorf("(-want +got):\n%s\n(%s)", diff, check.reason)
		}
	}
}

func TestSetReplicaSetDefaults(t *testing.T) {
	tests := []struct {
		name   string
		in     *appsv1.ReplicaSet
		want   appsv1.ReplicaSetSpec
		reason string
	}{
		{name: "empty", in: &appsv1.ReplicaSet{}, want: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](1), Template: corev1.PodTemplateSpec{Spec: defaultedPodSpec()}},
			reason: "apps/v1 ReplicaSets default to 1 replica, and the pod spec defaults apply"},
		{name: "zero kept", in: &appsv1.ReplicaSet{Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](0)}},
			want:   appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](0), Template: corev1.PodTemplateSpec{Spec: defaultedPodSpec()}},
			reason: "an explicit 0 is kept"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, tt.in)
			got := deployutil.SetReplicaSetDefaults(tt.in)
			frozen.Check(t)
			if diff := cmp.Diff(tt.want, got.Spec); diff != "" {
				t.Errorf("(-want +got):\n%s\n(%s)", diff, tt.reason)
			}
		})
	}
}
