package defaults_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/defaults"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/kversion"

	_ "github.com/deploysync/deploysync/internal/testing/testutil" // the module's -update flag
)

// manifest is a Deployment as people write it: no defaults.
func manifest() *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}},
			},
		},
	}
}

func container(d *appsv1.Deployment) *corev1.Container { return &d.Spec.Template.Spec.Containers[0] }

func volume(src corev1.VolumeSource) func(*appsv1.Deployment) {
	return func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: src}}
	}
}

func vol(d *appsv1.Deployment) *corev1.VolumeSource {
	return &d.Spec.Template.Spec.Volumes[0].VolumeSource
}

// TestDeployment checks one default per row on the default minor. Each
// expected value is the one upstream's v1.37.2 code gives (the function
// named in the reason); the conformance module's TestRandomDeployments
// compares the whole path with that code on random Deployments.
func TestDeployment(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(*appsv1.Deployment)
		get    func(*appsv1.Deployment) any
		want   any
		reason string
	}{
		{"replicas", nil, func(d *appsv1.Deployment) any { return *d.Spec.Replicas }, int32(1),
			"SetDefaults_Deployment: spec.replicas 1 when unset"},
		{"kept replicas", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](0) }, func(d *appsv1.Deployment) any { return *d.Spec.Replicas }, int32(0),
			"a set field is kept, zero included"},
		{"strategy", nil, func(d *appsv1.Deployment) any {
			return d.Spec.Strategy.RollingUpdate.MaxSurge.String() + " " + d.Spec.Strategy.RollingUpdate.MaxUnavailable.String()
		}, "25% 25%",
			"SetDefaults_Deployment: type RollingUpdate, both fields 25%"},
		{"recreate has no rollingUpdate", func(d *appsv1.Deployment) { d.Spec.Strategy.Type = appsv1.RecreateDeploymentStrategyType },
			func(d *appsv1.Deployment) any { return d.Spec.Strategy.RollingUpdate == nil }, true,
			"SetDefaults_Deployment fills rollingUpdate only for RollingUpdate"},
		{"history and deadline", nil, func(d *appsv1.Deployment) any {
			return [2]int32{*d.Spec.RevisionHistoryLimit, *d.Spec.ProgressDeadlineSeconds}
		}, [2]int32{10, 600},
			"SetDefaults_Deployment: revisionHistoryLimit 10, progressDeadlineSeconds 600"},
		{"generation", func(d *appsv1.Deployment) { d.Generation = 7 }, func(d *appsv1.Deployment) any { return d.Generation }, int64(1),
			"the create strategy's PrepareForCreate sets generation 1"},
		{"status cleared", func(d *appsv1.Deployment) { d.Status.Replicas = 3 }, func(d *appsv1.Deployment) any { return d.Status }, appsv1.DeploymentStatus{},
			"PrepareForCreate clears the status"},
		{"type meta", nil, func(d *appsv1.Deployment) any { return d.APIVersion + " " + d.Kind }, "apps/v1 Deployment",
			"the stored object is served as apps/v1 Deployment"},
		{"pod spec", nil, func(d *appsv1.Deployment) any {
			s := d.Spec.Template.Spec
			return []any{s.RestartPolicy, s.DNSPolicy, s.SchedulerName, *s.TerminationGracePeriodSeconds, s.SecurityContext != nil}
		}, []any{corev1.RestartPolicyAlways, corev1.DNSClusterFirst, "default-scheduler", int64(30), true},
			"SetDefaults_PodSpec: restart Always, DNS ClusterFirst, default-scheduler, grace 30, an empty securityContext"},
		{"service account", func(d *appsv1.Deployment) { d.Spec.Template.Spec.DeprecatedServiceAccount = "old" },
			func(d *appsv1.Deployment) any {
				return d.Spec.Template.Spec.ServiceAccountName + " " + d.Spec.Template.Spec.DeprecatedServiceAccount
			}, "old old",
			"SetDefaults_PodSpec takes serviceAccountName from the deprecated field and copies it back"},
		{"tagged image", nil, func(d *appsv1.Deployment) any { return container(d).ImagePullPolicy }, corev1.PullIfNotPresent,
			"SetDefaults_Container: IfNotPresent for a tag other than latest"},
		{"untagged image", func(d *appsv1.Deployment) { container(d).Image = "nginx" }, func(d *appsv1.Deployment) any { return container(d).ImagePullPolicy }, corev1.PullAlways,
			"ParseImageName: no tag and no digest is latest, so Always"},
		{"digest only", func(d *appsv1.Deployment) { container(d).Image = "nginx@sha256:" + hex64 }, func(d *appsv1.Deployment) any { return container(d).ImagePullPolicy }, corev1.PullIfNotPresent,
			"ParseImageName: a digest without a tag has no tag"},
		{"invalid reference", func(d *appsv1.Deployment) { container(d).Image = "NGINX" }, func(d *appsv1.Deployment) any { return container(d).ImagePullPolicy }, corev1.PullIfNotPresent,
			"ParseImageName fails on upper case, and the defaulter then takes the empty tag: IfNotPresent"},
		{"registry with port", func(d *appsv1.Deployment) { container(d).Image = "registry:5000/app" }, func(d *appsv1.Deployment) any { return container(d).ImagePullPolicy }, corev1.PullAlways,
			"a host:port is the registry, not a tag: the image pulls latest"},
		{"termination message", nil, func(d *appsv1.Deployment) any {
			return string(container(d).TerminationMessagePolicy) + " " + container(d).TerminationMessagePath
		}, "File /dev/termination-log",
			"SetDefaults_Container: the termination message path and policy"},
		{"port protocol", func(d *appsv1.Deployment) { container(d).Ports = []corev1.ContainerPort{{ContainerPort: 80}} }, func(d *appsv1.Deployment) any { return container(d).Ports[0].Protocol }, corev1.ProtocolTCP,
			"the generated defaulter sets protocol TCP on every container port"},
		{"env fieldRef", func(d *appsv1.Deployment) {
			container(d).Env = []corev1.EnvVar{{Name: "N", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
		}, func(d *appsv1.Deployment) any { return container(d).Env[0].ValueFrom.FieldRef.APIVersion }, "v1",
			"SetDefaults_ObjectFieldSelector: apiVersion v1"},
		{"probe", func(d *appsv1.Deployment) {
			container(d).ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(80)}}}
		}, func(d *appsv1.Deployment) any {
			p := container(d).ReadinessProbe
			return []any{p.TimeoutSeconds, p.PeriodSeconds, p.SuccessThreshold, p.FailureThreshold, p.HTTPGet.Path, p.HTTPGet.Scheme}
		}, []any{int32(1), int32(10), int32(1), int32(3), "/", corev1.URISchemeHTTP},
			"SetDefaults_Probe and SetDefaults_HTTPGetAction"},
		{"grpc probe", func(d *appsv1.Deployment) {
			container(d).LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9000}}}
		}, func(d *appsv1.Deployment) any { return container(d).LivenessProbe.GRPC.Service != nil }, true,
			"the generated defaulter sets a grpc probe's service to \"\""},
		{"lifecycle handler", func(d *appsv1.Deployment) {
			container(d).Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(80)}}}
		}, func(d *appsv1.Deployment) any { return container(d).Lifecycle.PreStop.HTTPGet.Path }, "/",
			"lifecycle HTTP handlers get SetDefaults_HTTPGetAction too"},
		{"limits not copied", func(d *appsv1.Deployment) {
			container(d).Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
		}, func(d *appsv1.Deployment) any { return container(d).Resources.Requests == nil }, true,
			"copying limits to requests is SetDefaults_Pod's, which a template does not run"},
		{"quantity rounded and canonical", func(d *appsv1.Deployment) {
			container(d).Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1.5m"), corev1.ResourceMemory: resource.MustParse("1000m")}
		}, func(d *appsv1.Deployment) any {
			r := container(d).Resources.Requests
			return []string{ptr.To(r[corev1.ResourceCPU]).String(), ptr.To(r[corev1.ResourceMemory]).String()}
		}, []string{"2m", "1"},
			"SetDefaults_ResourceList rounds up to milli-units; the JSON read back is canonical"},
		{"init container", func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.InitContainers = []corev1.Container{{Name: "i", Image: "busybox"}}
		}, func(d *appsv1.Deployment) any { return d.Spec.Template.Spec.InitContainers[0].ImagePullPolicy }, corev1.PullAlways,
			"init containers get SetDefaults_Container"},
		{"ephemeral container", func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "e", Image: "busybox:1"}}}
		}, func(d *appsv1.Deployment) any {
			return d.Spec.Template.Spec.EphemeralContainers[0].TerminationMessagePath
		}, "/dev/termination-log",
			"SetDefaults_EphemeralContainer is SetDefaults_Container"},
		{"empty volume", volume(corev1.VolumeSource{}), func(d *appsv1.Deployment) any { return vol(d).EmptyDir != nil }, true,
			"SetDefaults_Volume: a volume without a source is an emptyDir"},
		{"secret mode", volume(corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}}), func(d *appsv1.Deployment) any { return *vol(d).Secret.DefaultMode }, int32(0o644),
			"SetDefaults_SecretVolumeSource: 0644"},
		{"configMap mode", volume(corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}), func(d *appsv1.Deployment) any { return *vol(d).ConfigMap.DefaultMode }, int32(0o644),
			"SetDefaults_ConfigMapVolumeSource: 0644"},
		{"downwardAPI", volume(corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{{Path: "p", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}}),
			func(d *appsv1.Deployment) any {
				return []any{*vol(d).DownwardAPI.DefaultMode, vol(d).DownwardAPI.Items[0].FieldRef.APIVersion}
			}, []any{int32(0o644), "v1"},
			"SetDefaults_DownwardAPIVolumeSource and its items' field references"},
		{"projected", volume(corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "t"}}}}}),
			func(d *appsv1.Deployment) any {
				return []any{*vol(d).Projected.DefaultMode, *vol(d).Projected.Sources[0].ServiceAccountToken.ExpirationSeconds}
			}, []any{int32(0o644), int64(3600)},
			"SetDefaults_ProjectedVolumeSource and SetDefaults_ServiceAccountTokenProjection (an hour)"},
		{"hostPath", volume(corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/x"}}), func(d *appsv1.Deployment) any { return *vol(d).HostPath.Type }, corev1.HostPathUnset,
			"SetDefaults_HostPathVolumeSource: the unset type \"\", present"},
		{"iscsi", volume(corev1.VolumeSource{ISCSI: &corev1.ISCSIVolumeSource{}}), func(d *appsv1.Deployment) any { return vol(d).ISCSI.ISCSIInterface }, "default",
			"the generated defaulter: iscsiInterface default"},
		{"rbd", volume(corev1.VolumeSource{RBD: &corev1.RBDVolumeSource{}}), func(d *appsv1.Deployment) any {
			return vol(d).RBD.RBDPool + " " + vol(d).RBD.RadosUser + " " + vol(d).RBD.Keyring
		}, "rbd admin /etc/ceph/keyring",
			"the generated defaulter: pool, user and keyring"},
		{"azureDisk", volume(corev1.VolumeSource{AzureDisk: &corev1.AzureDiskVolumeSource{}}), func(d *appsv1.Deployment) any {
			a := vol(d).AzureDisk
			return []any{*a.CachingMode, *a.FSType, *a.ReadOnly, *a.Kind}
		}, []any{corev1.AzureDataDiskCachingReadWrite, "ext4", false, corev1.AzureSharedBlobDisk},
			"the generated defaulter: ReadWrite caching, ext4, read-write, shared kind"},
		{"scaleIO", volume(corev1.VolumeSource{ScaleIO: &corev1.ScaleIOVolumeSource{}}), func(d *appsv1.Deployment) any { return vol(d).ScaleIO.StorageMode + " " + vol(d).ScaleIO.FSType }, "ThinProvisioned xfs",
			"the generated defaulter: storage mode and file system"},
		{"ephemeral claim", volume(corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{}}}),
			func(d *appsv1.Deployment) any { return *vol(d).Ephemeral.VolumeClaimTemplate.Spec.VolumeMode }, corev1.PersistentVolumeFilesystem,
			"SetDefaults_PersistentVolumeClaimSpec: Filesystem"},
		{"image volume", volume(corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "tools:latest"}}), func(d *appsv1.Deployment) any { return vol(d).Image.PullPolicy }, corev1.PullAlways,
			"SetDefaults_Volume, ImageVolume on at 1.37: the pull policy as a container's"},
		{"stop signal dropped", func(d *appsv1.Deployment) {
			container(d).Lifecycle = &corev1.Lifecycle{StopSignal: ptr.To(corev1.SIGTERM)}
		}, func(d *appsv1.Deployment) any { return container(d).Lifecycle == nil }, true,
			"ContainerStopSignals is off at 1.37: the create strategy drops the field, and the lifecycle left empty"},
		{"emptyDir mode dropped", volume(corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Mode: ptr.To[int32](0o700)}}), func(d *appsv1.Deployment) any { return vol(d).EmptyDir.Mode == nil }, true,
			"EmptyDirVolumeMode is off at 1.37"},
		{"http probe protocol dropped", func(d *appsv1.Deployment) {
			container(d).ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(80), Protocol: ptr.To(corev1.HTTPProtocolHTTP1)}}}
		}, func(d *appsv1.Deployment) any { return container(d).ReadinessProbe.HTTPGet.Protocol == nil }, true,
			"H2CContainerProbe is off at 1.37"},
		{"hostUsers kept", func(d *appsv1.Deployment) { d.Spec.Template.Spec.HostUsers = ptr.To(false) }, func(d *appsv1.Deployment) any { return d.Spec.Template.Spec.HostUsers != nil }, true,
			"UserNamespacesSupport is on at 1.37: the field is kept"},
		{"init-container annotation dropped", func(d *appsv1.Deployment) {
			d.Spec.Template.Annotations = map[string]string{"pod.beta.kubernetes.io/init-containers": "[]", "keep": "x"}
		}, func(d *appsv1.Deployment) any { return d.Spec.Template.Annotations }, map[string]string{"keep": "x"},
			"DropInitContainerAnnotations, on every create"},
		{"rollback annotation", func(d *appsv1.Deployment) { d.Annotations = map[string]string{appsv1.DeprecatedRollbackTo: "+05"} },
			func(d *appsv1.Deployment) any { return d.Annotations[appsv1.DeprecatedRollbackTo] }, "5",
			"the conversion parses the revision into spec.rollbackTo and prints it back"},
		{"empty rollback annotation", func(d *appsv1.Deployment) { d.Annotations = map[string]string{appsv1.DeprecatedRollbackTo: ""} },
			func(d *appsv1.Deployment) any { _, ok := d.Annotations[appsv1.DeprecatedRollbackTo]; return ok }, false,
			"an empty revision converts to no rollbackTo, and the conversion back deletes the key"},
		{"empty list read back", func(d *appsv1.Deployment) { container(d).Args = []string{} }, func(d *appsv1.Deployment) any { return container(d).Args == nil }, true,
			"an empty list is not stored: the object read back has none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			in := manifest()
			if tt.edit != nil {
				tt.edit(in)
			}
			got, err := defaults.Deployment("", in)
			if err != nil {
				t.Fatalf("Deployment: %v (%s)", err, tt.reason)
			}
			if g := tt.get(got); !reflect.DeepEqual(g, tt.want) {
				t.Errorf("got %#v, want %#v (%s)", g, tt.want, tt.reason)
			}
		})
	}
}

const hex64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// TestRefused checks that input an apiserver refuses gets the library's
// validation error, naming the field, not a default.
func TestRefused(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(*appsv1.Deployment)
		field  string
		reason string
	}{
		{"rollback annotation", func(d *appsv1.Deployment) { d.Annotations = map[string]string{appsv1.DeprecatedRollbackTo: "x"} },
			"metadata.annotations[deprecated.deployment.rollback.to]", "the conversion to the internal type fails on a revision that is no int64"},
		{"name", func(d *appsv1.Deployment) { d.Name = "Web" }, "metadata.name", "a name must be a DNS subdomain"},
		{"selector", func(d *appsv1.Deployment) { d.Spec.Template.Labels = nil }, "spec.template.metadata.labels", "the selector must match the template's labels"},
		{"replicas", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](-1) }, "spec.replicas", "replicas may not be negative"},
		{"recreate with rollingUpdate", func(d *appsv1.Deployment) {
			d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{}}
		}, "spec.strategy.rollingUpdate", "Recreate takes no rollingUpdate"},
		{"both zero", func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(0)), MaxUnavailable: ptr.To(intstr.FromString("0%"))}
		}, "spec.strategy.rollingUpdate.maxUnavailable", "maxSurge and maxUnavailable may not both be 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			in := manifest()
			tt.edit(in)
			_, err := defaults.Deployment("", in)
			var ie *deployutil.InputError
			if !errors.As(err, &ie) || !errors.Is(err, deployutil.ErrInvalidInput) || ie.Field != tt.field {
				t.Fatalf("err = %v; want an InputError on %s (%s)", err, tt.field, tt.reason)
			}
		})
	}
	if _, err := defaults.Deployment("", nil); !errors.Is(err, deployutil.ErrInvalidInput) {
		t.Errorf("nil Deployment: err = %v; want ErrInvalidInput", err)
	}
	var ue *kversion.UnsupportedError
	if _, err := defaults.Deployment("1.32", manifest()); !errors.As(err, &ue) {
		t.Errorf("1.32: err = %v; want an unsupported-version error", err)
	}
}

// TestNotMutated checks that no entry point modifies its argument, on an
// input where every step has something to do.
func TestNotMutated(t *testing.T) {
	in := manifest()
	in.Annotations = map[string]string{appsv1.DeprecatedRollbackTo: "+1"}
	in.Status.Replicas = 2
	tpl := &in.Spec.Template
	tpl.Annotations = map[string]string{"pod.alpha.kubernetes.io/init-containers": "[]"}
	c := container(in)
	c.Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1.5m")}
	c.Lifecycle = &corev1.Lifecycle{StopSignal: ptr.To(corev1.SIGTERM)}
	tpl.Spec.Volumes = []corev1.Volume{{Name: "a"}, {Name: "b", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{}}}}
	want, _ := json.Marshal(in)
	if _, err := defaults.Deployment("", in); err != nil {
		t.Fatal(err)
	}
	rs := &appsv1.ReplicaSet{ObjectMeta: in.ObjectMeta, Spec: appsv1.ReplicaSetSpec{Selector: in.Spec.Selector, Template: in.Spec.Template}}
	rsWant, _ := json.Marshal(rs)
	if _, err := defaults.ReplicaSet("", rs); err != nil {
		t.Fatal(err)
	}
	if _, err := defaults.PodTemplate("", tpl); err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(in); string(got) != string(want) {
		t.Errorf("the Deployment was modified:\n got %s\nwant %s", got, want)
	}
	if got, _ := json.Marshal(rs); string(got) != string(rsWant) {
		t.Errorf("the ReplicaSet was modified:\n got %s\nwant %s", got, rsWant)
	}
	if q := c.Resources.Limits[corev1.ResourceCPU]; q.MilliValue() != 2 || q.String() != "1500u" {
		t.Errorf("the caller's quantity is %s; want 1500u, unrounded", q.String())
	}
}

func TestReplicaSetAndTemplate(t *testing.T) {
	d := manifest()
	rs, err := defaults.ReplicaSet("1.37", &appsv1.ReplicaSet{ObjectMeta: d.ObjectMeta, Spec: appsv1.ReplicaSetSpec{Selector: d.Spec.Selector, Template: d.Spec.Template}})
	if err != nil {
		t.Fatal(err)
	}
	if *rs.Spec.Replicas != 1 || rs.Generation != 1 || rs.Kind != "ReplicaSet" {
		t.Errorf("ReplicaSet: replicas %d, generation %d, kind %q; want 1, 1, ReplicaSet (SetDefaults_ReplicaSet, PrepareForCreate)", *rs.Spec.Replicas, rs.Generation, rs.Kind)
	}
	full, err := defaults.Deployment("", d)
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := defaults.PodTemplate("", &d.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*tpl, full.Spec.Template) || !reflect.DeepEqual(rs.Spec.Template, full.Spec.Template) {
		t.Errorf("the template defaults differently alone, in a ReplicaSet and in a Deployment")
	}
	if deployutil.ComputeHash(tpl, nil) == deployutil.ComputeHash(&d.Spec.Template, nil) {
		t.Errorf("defaulting did not change the hash; the test cannot tell")
	}
}
