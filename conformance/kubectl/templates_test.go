package kubectl

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubectl/pkg/describe"
	"k8s.io/utils/ptr"

	dskubectl "github.com/deploysync/deploysync/kubectl"
)

// TestDescribeTemplate compares dskubectl.DescribeTemplate with kubectl's
// describe.DescribePodTemplate (what `rollout history --revision` prints)
// on random pod templates. Templates with a field DescribeTemplate refuses
// are counted, and must be refused for a listed reason.
func TestDescribeTemplate(t *testing.T) {
	const n = 20000
	refused := map[string]int{}
	for seed := 1; seed <= n; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 11))
		tpl := richTemplate(r)
		got, err := dskubectl.DescribeTemplate(&tpl)
		var und *dskubectl.UndescribedError
		if errors.As(err, &und) {
			field := und.Field[strings.LastIndex(und.Field, ".")+1:]
			refused[field]++
			continue
		}
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		var buf bytes.Buffer
		describe.DescribePodTemplate(tpl.DeepCopy(), describe.NewPrefixWriter(&buf))
		if want := buf.String(); got != want {
			t.Fatalf("seed %d: template %+v\nkubectl:\n%s\nours:\n%s", seed, tpl, want, got)
		}
	}
	t.Logf("random templates: %d; refused by field: %v", n, refused)
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// richTemplate makes a pod template that uses many of the fields the
// describe printer shows, with the awkward values: long and multi-line
// annotations, escape characters, equal sort keys, empty lists.
func richTemplate(r *rand.Rand) corev1.PodTemplateSpec {
	t := corev1.PodTemplateSpec{}
	t.Labels = someMap(r, "app", "tier", "pod-template-hash")
	if r.IntN(2) == 0 {
		t.Annotations = someMap(r, "a", "kubernetes.io/change-cause", "kubectl.kubernetes.io/last-applied-configuration", "note")
	}
	s := &t.Spec
	s.ServiceAccountName = pick(r, "", "", "builder")
	for i := r.IntN(3) - 1; i > 0; i-- {
		s.InitContainers = append(s.InitContainers, container(r, "init"+strconv.Itoa(i)))
	}
	for i := r.IntN(4); i > 0; i-- {
		s.Containers = append(s.Containers, container(r, "c"+strconv.Itoa(i)))
	}
	for i := r.IntN(4); i > 0; i-- {
		s.Volumes = append(s.Volumes, corev1.Volume{Name: "v" + strconv.Itoa(i), VolumeSource: volumeSource(r)})
	}
	for i := r.IntN(3); i > 0; i-- {
		tsc := corev1.TopologySpreadConstraint{TopologyKey: pick(r, "zone", "zone", "host"), MaxSkew: int32(r.IntN(3)),
			WhenUnsatisfiable: pick(r, corev1.DoNotSchedule, corev1.ScheduleAnyway)}
		if r.IntN(2) == 0 {
			tsc.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": pick(r, "web", "api")}}
		}
		s.TopologySpreadConstraints = append(s.TopologySpreadConstraints, tsc)
	}
	s.PriorityClassName = pick(r, "", "high")
	if r.IntN(3) == 0 {
		s.NodeSelector = someMap(r, "disk", "zone")
	}
	for i := r.IntN(4); i > 0; i-- {
		tol := corev1.Toleration{Key: pick(r, "", "k", "k", "gpu"), Value: pick(r, "", "v"),
			Operator: pick(r, corev1.TolerationOpExists, corev1.TolerationOpEqual, ""),
			Effect:   pick(r, corev1.TaintEffect(""), corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute)}
		if r.IntN(3) == 0 {
			tol.TolerationSeconds = ptr.To(int64(r.IntN(600)))
		}
		s.Tolerations = append(s.Tolerations, tol)
	}
	switch r.IntN(8) {
	case 0:
		s.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To("group")}
	case 1:
		s.SchedulingGroup = &corev1.PodSchedulingGroup{}
	}
	return t
}

func someMap(r *rand.Rand, keys ...string) map[string]string {
	m := map[string]string{}
	for _, k := range keys {
		if r.IntN(2) == 0 {
			m[k] = pick(r, "x", "", "two words", "line1\nline2", "trailing\n", "esc\x1b[31mred", "cr\rlf",
				strings.Repeat("long", 40), strings.Repeat("y", 137), strings.Repeat("z", 138))
		}
	}
	if len(m) == 0 && r.IntN(2) == 0 {
		return nil
	}
	return m
}

func container(r *rand.Rand, name string) corev1.Container {
	c := corev1.Container{Name: name, Image: pick(r, "nginx:1", "", "registry/x@sha256:abc")}
	for i := r.IntN(4); i > 0; i-- {
		c.Ports = append(c.Ports, corev1.ContainerPort{Name: pick(r, "", "http"), ContainerPort: int32(r.IntN(9000)),
			HostPort: int32(pick(r, 0, 0, 8080)), Protocol: pick(r, corev1.ProtocolTCP, corev1.ProtocolUDP, "")})
	}
	switch r.IntN(6) {
	case 0:
		c.SecurityContext = &corev1.SecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
	case 1:
		c.SecurityContext = &corev1.SecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost, LocalhostProfile: ptr.To("p.json")}}
	case 2:
		c.SecurityContext = &corev1.SecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost}}
	case 3:
		c.SecurityContext = &corev1.SecurityContext{}
	}
	if r.IntN(3) == 0 {
		c.Command = []string{"sh", "-c", pick(r, "echo hi", "a\nb")}
	}
	if r.IntN(3) == 0 {
		c.Args = []string{pick(r, "--x", "multi\nline")}
	}
	c.Resources.Limits = resources(r)
	c.Resources.Requests = resources(r)
	c.LivenessProbe, c.ReadinessProbe, c.StartupProbe = probe(r), probe(r), probe(r)
	for i := r.IntN(3); i > 0; i-- {
		e := corev1.EnvFromSource{Prefix: pick(r, "", "P_")}
		switch r.IntN(3) {
		case 0:
			e.ConfigMapRef = &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}, Optional: pick(r, nil, ptr.To(true))}
		case 1:
			e.SecretRef = &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "sec"}, Optional: pick(r, nil, ptr.To(false))}
		}
		c.EnvFrom = append(c.EnvFrom, e)
	}
	for i := r.IntN(5); i > 0; i-- {
		c.Env = append(c.Env, envVar(r, "E"+strconv.Itoa(i)))
	}
	for i := r.IntN(4); i > 0; i-- {
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "m" + strconv.Itoa(i), MountPath: pick(r, "/a", "/a", "/b"),
			ReadOnly: r.IntN(2) == 0, SubPath: pick(r, "", "sub")})
	}
	for i := r.IntN(3) - 1; i > 0; i-- {
		c.VolumeDevices = append(c.VolumeDevices, corev1.VolumeDevice{Name: "d" + strconv.Itoa(i), DevicePath: pick(r, "/dev/x", "/dev/x", "/dev/a")})
	}
	return c
}

func resources(r *rand.Rand) corev1.ResourceList {
	if r.IntN(2) == 0 {
		return nil
	}
	l := corev1.ResourceList{}
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, "nvidia.com/gpu", "hugepages-2Mi"} {
		if r.IntN(2) == 0 {
			l[name] = resource.MustParse(pick(r, "100m", "1", "2.5", "128Mi", "1Gi", "3"))
		}
	}
	return l
}

func probe(r *rand.Rand) *corev1.Probe {
	if r.IntN(2) == 0 {
		return nil
	}
	p := &corev1.Probe{InitialDelaySeconds: int32(r.IntN(5)), TimeoutSeconds: int32(r.IntN(3)), PeriodSeconds: int32(r.IntN(20)),
		SuccessThreshold: int32(r.IntN(2)), FailureThreshold: int32(r.IntN(4))}
	port := pick(r, intstr.FromInt32(8080), intstr.FromString("http"), intstr.FromString(""), intstr.FromInt32(0))
	switch r.IntN(5) {
	case 0:
		p.Exec = &corev1.ExecAction{Command: []string{"cat", pick(r, "/tmp/ok", "a b")}}
	case 1:
		p.HTTPGet = &corev1.HTTPGetAction{Scheme: pick(r, corev1.URISchemeHTTP, corev1.URISchemeHTTPS, ""), Host: pick(r, "", "h", "::1"),
			Port: port, Path: pick(r, "", "/healthz", "/a b?c")}
	case 2:
		p.TCPSocket = &corev1.TCPSocketAction{Host: pick(r, "", "h"), Port: port}
	case 3:
		p.GRPC = &corev1.GRPCAction{Port: int32(r.IntN(9000)), Service: pick(r, nil, ptr.To(""), ptr.To("svc"))}
	}
	return p
}

func envVar(r *rand.Rand, name string) corev1.EnvVar {
	e := corev1.EnvVar{Name: name}
	switch r.IntN(7) {
	case 0, 1:
		e.Value = pick(r, "", "v", "one\ntwo")
	case 2:
		e.ValueFrom = &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}
	case 3:
		div := pick(r, resource.Quantity{}, resource.MustParse("1m"), resource.MustParse("1Mi"), resource.MustParse("2"))
		e.ValueFrom = &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{
			Resource: pick(r, "limits.cpu", "requests.cpu", "limits.memory", "requests.memory", "limits.ephemeral-storage",
				"requests.ephemeral-storage", "limits.hugepages-2Mi", "requests.other"), Divisor: div}}
	case 4:
		e.ValueFrom = &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}, Key: "k",
			Optional: pick(r, nil, ptr.To(true))}}
	case 5:
		e.ValueFrom = &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "c"}, Key: "k"}}
	case 6:
		e.ValueFrom = &corev1.EnvVarSource{FileKeyRef: &corev1.FileKeySelector{VolumeName: "v", Path: "p", Key: "k"}}
	}
	return e
}

func volumeSource(r *rand.Rand) corev1.VolumeSource {
	switch r.IntN(16) {
	case 0:
		return corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var", Type: pick(r, nil, ptr.To(corev1.HostPathDirectory))}}
	case 1:
		return corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: pick(r, corev1.StorageMediumDefault, corev1.StorageMediumMemory),
			SizeLimit: pick(r, nil, ptr.To(resource.MustParse("1Gi")), ptr.To(resource.MustParse("0")))}}
	case 2:
		return corev1.VolumeSource{GCEPersistentDisk: &corev1.GCEPersistentDiskVolumeSource{PDName: "pd", FSType: "ext4", Partition: 1, ReadOnly: true}}
	case 3:
		return corev1.VolumeSource{AWSElasticBlockStore: &corev1.AWSElasticBlockStoreVolumeSource{VolumeID: "vol"}}
	case 4:
		return corev1.VolumeSource{GitRepo: &corev1.GitRepoVolumeSource{Repository: "https://x", Revision: "main"}}
	case 5:
		return corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s", Optional: pick(r, nil, ptr.To(true))}}
	case 6:
		return corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "c"}}}
	case 7:
		return corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "nfs", Path: "/p"}}
	case 8:
		return corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "claim", ReadOnly: r.IntN(2) == 0}}
	case 9:
		return corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{
			{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels"}},
			{Path: "cpu", ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.cpu"}}}}}
	case 10:
		var srcs []corev1.VolumeProjection
		for i := r.IntN(5); i > 0; i-- {
			switch r.IntN(5) {
			case 0:
				srcs = append(srcs, corev1.VolumeProjection{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}}})
			case 1:
				srcs = append(srcs, corev1.VolumeProjection{DownwardAPI: &corev1.DownwardAPIProjection{}})
			case 2:
				srcs = append(srcs, corev1.VolumeProjection{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "c"}, Optional: ptr.To(true)}})
			case 3:
				srcs = append(srcs, corev1.VolumeProjection{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "t", ExpirationSeconds: pick(r, nil, ptr.To[int64](3600))}})
			case 4:
				srcs = append(srcs, corev1.VolumeProjection{ClusterTrustBundle: &corev1.ClusterTrustBundleProjection{Path: "b"}})
			}
		}
		return corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: srcs}}
	case 11:
		attrs := map[string]string{}
		for i := r.IntN(3); i > 0; i-- {
			attrs[pick(r, "a", "b", "c")] = pick(r, "1", strings.Repeat("w", 150))
		}
		return corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "csi.example", FSType: pick(r, nil, ptr.To("xfs")),
			ReadOnly: pick(r, nil, ptr.To(true), ptr.To(false)), VolumeAttributes: attrs}}
	case 12:
		return corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "img:1", PullPolicy: corev1.PullIfNotPresent}}
	case 13:
		return corev1.VolumeSource{ISCSI: &corev1.ISCSIVolumeSource{TargetPortal: "p", IQN: "iqn", Lun: 1}}
	case 14:
		return corev1.VolumeSource{}
	}
	return corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}
}
