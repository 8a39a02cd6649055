package revision

import (
	"fmt"
	"math"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/kversion"
)

// UndescribedError is returned by [DescribeTemplate] (and so by
// [HistoryText] with a revision) for a pod template that uses a field the
// describe printer here does not render as kubectl does. Rather than print
// something different, it refuses. Those fields are:
//
//   - volumes of the in-tree drivers other than hostPath, emptyDir,
//     gcePersistentDisk, awsElasticBlockStore, gitRepo, secret, configMap,
//     nfs, persistentVolumeClaim, downwardAPI, projected, csi and image (for
//     example iscsi, rbd, cephfs, azureFile, ephemeral);
//   - a downward-API environment variable from a hugepages-* resource;
//   - fields on which kubectl itself crashes: a Localhost seccomp profile
//     without localhostProfile, a gRPC probe without service, a projected
//     service account token without expirationSeconds, a scheduling group
//     without podGroupName.
type UndescribedError struct {
	// Field is the path of the field, for example
	// "spec.volumes[0].iscsi".
	Field string
}

// Error names the field of the template that is not rendered.
func (e *UndescribedError) Error() string {
	return fmt.Sprintf("describing the pod template: %s is not rendered as kubectl renders it", e.Field)
}

// DescribeTemplate returns the text kubectl's describe printer writes for a
// pod template, as `kubectl rollout history --revision=N` shows it: "Pod
// Template:", then its labels, annotations (except
// kubectl.kubernetes.io/last-applied-configuration; long or multi-line
// values folded as kubectl folds them), service account, init containers
// and containers (image, ports, host ports, seccomp profile, command,
// arguments, limits, requests, probes, environment, mounts, devices),
// volumes, topology spread constraints, priority class, node selectors,
// tolerations and scheduling group. Fields are separated by tabs, not
// aligned (kubectl prints this text without a tabwriter), and escape and
// carriage-return characters are escaped as kubectl escapes them ("^[",
// `\r`). It returns an [*UndescribedError] for the few fields it does not
// render. t is not modified (kubectl sorts mounts and constraints in place;
// here copies are sorted).
func DescribeTemplate(t *corev1.PodTemplateSpec) (string, error) {
	return describeTemplate(kversion.Newest, t)
}

// describeTemplate is DescribeTemplate as the kubectl of minor m prints it
// (see DescribeTemplateFor).
func describeTemplate(m kversion.Minor, t *corev1.PodTemplateSpec) (string, error) {
	p := &printer{minor: m}
	p.template(t)
	if p.err != nil {
		return "", p.err
	}
	return escaper.Replace(p.b.String()), nil
}

// escaper is kubectl's terminal escaping of describe output.
var escaper = strings.NewReplacer("\x1b", "^[", "\r", `\r`)

type printer struct {
	b     strings.Builder
	err   error
	minor kversion.Minor // the kubectl printed as
}

// w writes at an indentation level of two spaces per level.
func (p *printer) w(level int, format string, args ...any) {
	p.b.WriteString(strings.Repeat("  ", level))
	fmt.Fprintf(&p.b, format, args...)
}

func (p *printer) undescribed(field string) {
	if p.err == nil {
		p.err = &UndescribedError{Field: field}
	}
}

func (p *printer) template(t *corev1.PodTemplateSpec) {
	p.w(0, "Pod Template:\n")
	p.labels("  Labels", t.Labels)
	if len(t.Annotations) > 0 {
		p.annotations("  Annotations", t.Annotations)
	}
	s := &t.Spec
	if s.ServiceAccountName != "" {
		p.w(1, "Service Account:\t%s\n", s.ServiceAccountName)
	}
	if len(s.InitContainers) > 0 {
		p.containers("Init Containers", "spec.initContainers", s.InitContainers)
	}
	p.containers("Containers", "spec.containers", s.Containers)
	p.volumes(s.Volumes)
	p.spreadConstraints(s.TopologySpreadConstraints)
	if s.PriorityClassName != "" {
		p.w(1, "Priority Class Name:\t%s\n", s.PriorityClassName)
	}
	p.labels("  Node-Selectors", s.NodeSelector)
	p.tolerations(s.Tolerations)
	if s.SchedulingGroup != nil && p.minor.AtLeast(kversion.V1_36) { // a field kubectl 1.35 and older do not decode
		if s.SchedulingGroup.PodGroupName == nil {
			p.undescribed("spec.schedulingGroup.podGroupName")
			return
		}
		p.w(0, "  SchedulingGroup:\n")
		p.w(1, "PodGroupName:\t%s\n", *s.SchedulingGroup.PodGroupName)
	}
}

// labels prints a map as "title:\tk=v" lines, keys sorted; continuation
// lines start with a tab.
func (p *printer) labels(title string, m map[string]string) {
	p.w(0, "%s:\t", title)
	if len(m) == 0 {
		p.b.WriteString("<none>\n")
		return
	}
	for i, k := range sortedKeys(m, "") {
		if i != 0 {
			p.b.WriteString("\t")
		}
		fmt.Fprintf(&p.b, "%s=%s\n", k, m[k])
	}
}

// maxAnnotationLen is where kubectl folds and shortens annotation values.
const maxAnnotationLen = 140

func (p *printer) annotations(title string, m map[string]string) {
	p.w(0, "%s:\t", title)
	keys := sortedKeys(m, deployutil.LastAppliedConfigAnnotation)
	if len(keys) == 0 {
		p.b.WriteString("<none>\n")
		return
	}
	for i, k := range keys {
		if i != 0 {
			p.b.WriteString("\t")
		}
		v := strings.TrimSuffix(m[k], "\n")
		if len(v)+len(k)+2 > maxAnnotationLen || strings.Contains(v, "\n") {
			fmt.Fprintf(&p.b, "%s:\n", k)
			for _, s := range strings.Split(v, "\n") {
				if len(s) > maxAnnotationLen-2 {
					s = s[:maxAnnotationLen-2] + "..."
				}
				fmt.Fprintf(&p.b, "\t  %s\n", s)
			}
			continue
		}
		fmt.Fprintf(&p.b, "%s: %s\n", k, v)
	}
}

func sortedKeys(m map[string]string, skip string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != skip {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func (p *printer) containers(label, path string, cs []corev1.Container) {
	none := ""
	if len(cs) == 0 {
		none = " <none>"
	}
	p.w(0, "  %s:%s\n", label, none)
	for i := range cs {
		p.container(&cs[i], fmt.Sprintf("%s[%d]", path, i))
	}
}

func (p *printer) container(c *corev1.Container, path string) {
	p.w(1, " %v:\n", c.Name)
	p.w(2, "Image:\t%s\n", c.Image)
	ports, hostPorts := make([]string, 0, len(c.Ports)), make([]string, 0, len(c.Ports))
	for _, port := range c.Ports {
		ports = append(ports, p.portString(port.ContainerPort, port))
		hostPorts = append(hostPorts, p.portString(port.HostPort, port))
	}
	p.plural("Port", strings.Join(ports, ", "))
	p.plural("Host Port", strings.Join(hostPorts, ", "))
	if sc := c.SecurityContext; sc != nil && sc.SeccompProfile != nil {
		p.w(2, "SeccompProfile:\t%s\n", sc.SeccompProfile.Type)
		if sc.SeccompProfile.Type == corev1.SeccompProfileTypeLocalhost {
			if sc.SeccompProfile.LocalhostProfile == nil {
				p.undescribed(path + ".securityContext.seccompProfile.localhostProfile")
				return
			}
			p.w(3, "LocalhostProfile:\t%s\n", *sc.SeccompProfile.LocalhostProfile)
		}
	}
	p.lines("Command", c.Command)
	p.lines("Args", c.Args)
	p.resources(c.Resources.Limits, "Limits")
	p.resources(c.Resources.Requests, "Requests")
	for _, pr := range []struct {
		name  string
		probe *corev1.Probe
		field string
	}{{"Liveness", c.LivenessProbe, "livenessProbe"}, {"Readiness", c.ReadinessProbe, "readinessProbe"}, {"Startup", c.StartupProbe, "startupProbe"}} {
		if pr.probe == nil {
			continue
		}
		if pr.probe.Exec == nil && pr.probe.HTTPGet == nil && pr.probe.TCPSocket == nil && pr.probe.GRPC != nil && pr.probe.GRPC.Service == nil {
			p.undescribed(path + "." + pr.field + ".grpc.service")
			return
		}
		p.w(2, "%s:\t%s\n", pr.name, probeString(p.minor, pr.probe))
	}
	if len(c.EnvFrom) > 0 {
		p.envFrom(c.EnvFrom)
	}
	p.env(c, path)
	p.mounts(c)
}

func (p *printer) portString(n int32, port corev1.ContainerPort) string {
	s := fmt.Sprintf("%d/%s", n, port.Protocol)
	if port.Name != "" && p.minor.AtLeast(kversion.V1_34) { // kubectl 1.33 prints no port name
		s = fmt.Sprintf("%s (%s)", s, port.Name)
	}
	return s
}

// plural prints "Ports:" when the list has a comma, else "Port:" (with
// <none> for an empty list).
func (p *printer) plural(name, list string) {
	if strings.Contains(list, ",") {
		p.w(2, "%ss:\t%s\n", name, list)
		return
	}
	if list == "" {
		list = "<none>"
	}
	p.w(2, "%s:\t%s\n", name, list)
}

func (p *printer) lines(title string, items []string) {
	if len(items) == 0 {
		return
	}
	p.w(2, "%s:\n", title)
	for _, it := range items {
		for _, s := range strings.Split(it, "\n") {
			p.w(3, "%s\n", s)
		}
	}
}

func (p *printer) resources(list corev1.ResourceList, title string) {
	if len(list) == 0 {
		return
	}
	p.w(2, "%s:\n", title)
	names := make([]string, 0, len(list))
	for n := range list {
		names = append(names, string(n))
	}
	sort.Strings(names)
	for _, n := range names {
		q := list[corev1.ResourceName(n)]
		p.w(3, "%s:\t%s\n", n, q.String())
	}
}

func probeString(m kversion.Minor, pr *corev1.Probe) string {
	format := "delay=%ds timeout=%ds period=%ds successThreshold=%d failureThreshold=%d"
	if !m.AtLeast(kversion.V1_37) { // kubectl 1.36 and older
		format = "delay=%ds timeout=%ds period=%ds #success=%d #failure=%d"
	}
	attrs := fmt.Sprintf(format, pr.InitialDelaySeconds, pr.TimeoutSeconds, pr.PeriodSeconds, pr.SuccessThreshold, pr.FailureThreshold)
	switch {
	case pr.Exec != nil:
		return fmt.Sprintf("exec %v %s", pr.Exec.Command, attrs)
	case pr.HTTPGet != nil:
		h := pr.HTTPGet
		u := &url.URL{Scheme: strings.ToLower(string(h.Scheme)), Host: h.Host, Path: h.Path}
		if port := h.Port.String(); port != "" {
			u.Host = net.JoinHostPort(h.Host, port)
		}
		return fmt.Sprintf("http-get %s %s", u.String(), attrs)
	case pr.TCPSocket != nil:
		return fmt.Sprintf("tcp-socket %s:%s %s", pr.TCPSocket.Host, pr.TCPSocket.Port.String(), attrs)
	case pr.GRPC != nil:
		return fmt.Sprintf("grpc <pod>:%d %s %s", pr.GRPC.Port, *pr.GRPC.Service, attrs)
	}
	return "unknown " + attrs
}

func (p *printer) envFrom(list []corev1.EnvFromSource) {
	p.w(2, "Environment Variables from:\n")
	for _, e := range list {
		from, name, optional := "", "", false
		switch {
		case e.ConfigMapRef != nil:
			from, name, optional = "ConfigMap", e.ConfigMapRef.Name, isTrue(e.ConfigMapRef.Optional)
		case e.SecretRef != nil:
			from, name, optional = "Secret", e.SecretRef.Name, isTrue(e.SecretRef.Optional)
		}
		if e.Prefix == "" {
			p.w(3, "%s\t%s\tOptional: %t\n", name, from, optional)
		} else {
			p.w(3, "%s\t%s with prefix '%s'\tOptional: %t\n", name, from, e.Prefix, optional)
		}
	}
}

func isTrue(b *bool) bool { return b != nil && *b }

func (p *printer) env(c *corev1.Container, path string) {
	if len(c.Env) == 0 {
		p.w(2, "Environment:\t<none>\n")
	} else {
		p.w(2, "Environment:\n")
	}
	for i, e := range c.Env {
		vf := e.ValueFrom
		switch {
		case vf == nil:
			for j, s := range strings.Split(e.Value, "\n") {
				if j == 0 {
					p.w(3, "%s:\t%s\n", e.Name, s)
				} else {
					p.w(3, "\t%s\n", s)
				}
			}
		case vf.FieldRef != nil:
			// kubectl resolves field references only for a pod, not for a
			// template: the value is empty.
			p.w(3, "%s:\t%s (%s:%s)\n", e.Name, "", vf.FieldRef.APIVersion, vf.FieldRef.FieldPath)
		case vf.ResourceFieldRef != nil:
			v, ok := resourceFieldValue(vf.ResourceFieldRef, c)
			if !ok {
				p.undescribed(fmt.Sprintf("%s.env[%d].valueFrom.resourceFieldRef", path, i))
				return
			}
			r := vf.ResourceFieldRef.Resource
			if v == "0" && (r == "limits.cpu" || r == "limits.memory") {
				v = "node allocatable"
			}
			p.w(3, "%s:\t%s (%s)\n", e.Name, v, r)
		case vf.SecretKeyRef != nil:
			p.w(3, "%s:\t<set to the key '%s' in secret '%s'>\tOptional: %t\n", e.Name, vf.SecretKeyRef.Key, vf.SecretKeyRef.Name, isTrue(vf.SecretKeyRef.Optional))
		case vf.ConfigMapKeyRef != nil:
			p.w(3, "%s:\t<set to the key '%s' of config map '%s'>\tOptional: %t\n", e.Name, vf.ConfigMapKeyRef.Key, vf.ConfigMapKeyRef.Name, isTrue(vf.ConfigMapKeyRef.Optional))
		}
		// kubectl prints nothing for other sources (fileKeyRef).
	}
}

// resourceFieldValue is the value kubectl shows for a resourceFieldRef of
// the container: the resource divided by the divisor (default 1), rounded
// up; "" for a resource it does not know. ok is false for hugepages, which
// is not rendered here.
func resourceFieldValue(f *corev1.ResourceFieldSelector, c *corev1.Container) (string, bool) {
	divisor := resource.MustParse("1")
	if zero := (resource.Quantity{}); zero.Cmp(f.Divisor) != 0 {
		divisor = f.Divisor
	}
	ceil := func(a, b int64) string { return strconv.FormatInt(int64(math.Ceil(float64(a)/float64(b))), 10) }
	lim, req := c.Resources.Limits, c.Resources.Requests
	switch f.Resource {
	case "limits.cpu":
		return ceil(lim.Cpu().MilliValue(), divisor.MilliValue()), true
	case "requests.cpu":
		return ceil(req.Cpu().MilliValue(), divisor.MilliValue()), true
	case "limits.memory":
		return ceil(lim.Memory().Value(), divisor.Value()), true
	case "requests.memory":
		return ceil(req.Memory().Value(), divisor.Value()), true
	case "limits.ephemeral-storage":
		return ceil(lim.StorageEphemeral().Value(), divisor.Value()), true
	case "requests.ephemeral-storage":
		return ceil(req.StorageEphemeral().Value(), divisor.Value()), true
	}
	for _, prefix := range []string{"requests.", "limits."} {
		if name, ok := strings.CutPrefix(f.Resource, prefix); ok && strings.HasPrefix(name, corev1.ResourceHugePagesPrefix) {
			return "", false
		}
	}
	return "", true
}

func (p *printer) mounts(c *corev1.Container) {
	none := ""
	if len(c.VolumeMounts) == 0 {
		none = "\t<none>"
	}
	p.w(2, "Mounts:%s\n", none)
	mounts := append([]corev1.VolumeMount(nil), c.VolumeMounts...)
	sort.Sort(byMountPath(mounts))
	for _, m := range mounts {
		flags := []string{"rw"}
		if m.ReadOnly {
			flags[0] = "ro"
		}
		if m.SubPath != "" {
			flags = append(flags, fmt.Sprintf("path=%q", m.SubPath))
		}
		p.w(3, "%s from %s (%s)\n", m.MountPath, m.Name, strings.Join(flags, ","))
	}
	if len(c.VolumeDevices) > 0 {
		// kubectl's "<none>" here is the mounts' (a quirk it has).
		p.w(2, "Devices:%s\n", none)
		devices := append([]corev1.VolumeDevice(nil), c.VolumeDevices...)
		sort.Sort(byDevicePath(devices))
		for _, d := range devices {
			p.w(3, "%s from %s\n", d.DevicePath, d.Name)
		}
	}
}

// The sorts are kubectl's, with sort.Sort on the same input order, so equal
// keys end in the same order.
type byMountPath []corev1.VolumeMount

func (l byMountPath) Len() int           { return len(l) }
func (l byMountPath) Swap(i, j int)      { l[i], l[j] = l[j], l[i] }
func (l byMountPath) Less(i, j int) bool { return l[i].MountPath < l[j].MountPath }

type byDevicePath []corev1.VolumeDevice

func (l byDevicePath) Len() int           { return len(l) }
func (l byDevicePath) Swap(i, j int)      { l[i], l[j] = l[j], l[i] }
func (l byDevicePath) Less(i, j int) bool { return l[i].DevicePath < l[j].DevicePath }

func (p *printer) spreadConstraints(list []corev1.TopologySpreadConstraint) {
	if len(list) == 0 {
		return
	}
	tscs := append([]corev1.TopologySpreadConstraint(nil), list...)
	sort.Slice(tscs, func(i, j int) bool { return tscs[i].TopologyKey < tscs[j].TopologyKey })
	p.w(0, "  Topology Spread Constraints:\t")
	for i, t := range tscs {
		if i != 0 {
			p.b.WriteString("  \t")
		}
		fmt.Fprintf(&p.b, "%s:%v when max skew %d is exceeded", t.TopologyKey, t.WhenUnsatisfiable, t.MaxSkew)
		if t.LabelSelector != nil {
			fmt.Fprintf(&p.b, " for selector %s", metav1.FormatLabelSelector(t.LabelSelector))
		}
		p.b.WriteString("\n")
	}
}

func (p *printer) tolerations(list []corev1.Toleration) {
	p.w(0, "  Tolerations:\t")
	if len(list) == 0 {
		p.b.WriteString("<none>\n")
		return
	}
	ts := append([]corev1.Toleration(nil), list...)
	sort.Slice(ts, func(i, j int) bool { return ts[i].Key < ts[j].Key })
	for i, t := range ts {
		if i != 0 {
			p.b.WriteString("\t")
		}
		p.b.WriteString(t.Key)
		if t.Value != "" {
			fmt.Fprintf(&p.b, "=%s", t.Value)
		}
		if t.Effect != "" {
			fmt.Fprintf(&p.b, ":%s", t.Effect)
		}
		if t.Operator == corev1.TolerationOpExists && t.Value == "" {
			if t.Key != "" || t.Effect != "" {
				p.b.WriteString(" op=Exists")
			} else {
				p.b.WriteString("op=Exists")
			}
		}
		if t.TolerationSeconds != nil {
			fmt.Fprintf(&p.b, " for %ds", *t.TolerationSeconds)
		}
		p.b.WriteString("\n")
	}
}
