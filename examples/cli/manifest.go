package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
)

// Manifest is what a file holds for one Deployment: the Deployment, the
// ReplicaSets of its namespace and their pods, each remembered with the
// document it came from so that errors can point at it.
type Manifest struct {
	// File is the path the objects were read from.
	File        string
	Deployment  *appsv1.Deployment
	ReplicaSets []*appsv1.ReplicaSet
	// Pods are keyed by the UID of their controlling ReplicaSet.
	Pods map[types.UID][]*corev1.Pod
	// Notes say what was assumed or filled in (defaults, skipped objects).
	Notes []string
	// Gaps say what the Deployment's status, conditions or revision refer to
	// that the file lacks (see [Manifest.Partial]).
	Gaps []string
	// sources maps "Kind namespace/name" to the document it came from.
	sources map[string]string
}

// State returns the manifest as a deploysync.State at now.
func (m *Manifest) State(now metav1.Time) deploysync.State {
	return deploysync.State{Deployment: m.Deployment, ReplicaSets: m.ReplicaSets, Pods: m.Pods, Now: now.Time}
}

// newDecoder returns a strict decoder of apps/v1 and v1 objects: unknown
// and duplicate fields are errors that name the field.
var newDecoder = sync.OnceValues(func() (runtime.Decoder, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{appsv1.AddToScheme, corev1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	return serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer(), nil
})

// object is a decoded object and where it came from.
type object struct {
	obj    runtime.Object
	source string
}

// LoadManifest reads a file of YAML or JSON documents — several documents
// separated by "---", or a v1 List as `kubectl get deploy,rs,pods -o yaml`
// prints it — and picks the Deployment named deployment (or the only one).
// A namespace other than "" (kubectl's -n) keeps only the objects of that
// namespace and gives it to objects that have none; without it a
// Deployment without namespace is in "default". It keeps the ReplicaSets
// of the Deployment's namespace and the pods they control. Objects that
// never passed an apiserver (no metadata.uid) get its defaults
// (deployutil.SetDefaults, deployutil.SetReplicaSetDefaults), a UID derived
// from their name and generation 1; objects with a uid that lack the
// defaults every apiserver sets (an edited file) get them too; the Notes say
// so. Gaps lists what the Deployment refers to but the file lacks. Only
// apps/v1 Deployments and ReplicaSets are read. Errors name the file, the
// document and the field.
func LoadManifest(path, namespace, deployment string) (*Manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadManifest(f, path, namespace, deployment)
}

// ReadManifest is LoadManifest on a reader; name stands for the file in
// messages.
func ReadManifest(r io.Reader, name, namespace, deployment string) (*Manifest, error) {
	objs, err := decodeAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	m := &Manifest{File: name, Pods: map[types.UID][]*corev1.Pod{}, sources: map[string]string{}}
	if err := m.pick(objs, namespace, deployment); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	m.Gaps = findGaps(m.Deployment, m.ReplicaSets)
	return m, nil
}

// Partial returns a message saying what the file lacks and the command that
// fetches it, or "" when nothing the Deployment refers to is missing.
func (m *Manifest) Partial() string {
	if len(m.Gaps) == 0 {
		return ""
	}
	d := m.Deployment
	var b strings.Builder
	fmt.Fprintf(&b, "%s holds only part of Deployment %s/%s:\n", m.File, d.Namespace, d.Name)
	for _, g := range m.Gaps {
		fmt.Fprintf(&b, "  - %s\n", g)
	}
	fmt.Fprintf(&b, "  The controller would not see the missing ReplicaSets: an answer from this file is about another state.\n")
	fmt.Fprintf(&b, "  Fetch the Deployment with its ReplicaSets and pods:\n    %s > state.yaml", FetchCommand(d))
	return b.String()
}

func decodeAll(r io.Reader) ([]object, error) {
	yr := utilyaml.NewYAMLReader(bufio.NewReader(r))
	var out []object
	for doc := 1; ; doc++ {
		raw, err := yr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", doc, err)
		}
		if len(bytes.TrimSpace(stripComments(raw))) == 0 {
			doc--
			continue
		}
		src := fmt.Sprintf("document %d", doc)
		objs, err := decode(raw, src)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
}

// stripComments drops comment lines and document markers ("---", "..."),
// so a document of comments only (as `helm template` prints one for every
// template that renders to nothing) counts as empty.
func stripComments(b []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(b, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if string(t) == "---" || string(t) == "..." {
			continue
		}
		if len(t) > 0 && t[0] != '#' {
			out = append(out, line...)
			out = append(out, '\n')
		}
	}
	return out
}

func decode(raw []byte, src string) ([]object, error) {
	decoder, err := newDecoder()
	if err != nil {
		return nil, err
	}
	obj, _, err := decoder.Decode(raw, nil, nil)
	if err != nil {
		if old := oldAPIVersion(raw); old != "" {
			return nil, fmt.Errorf("%s: %s", src, old)
		}
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	var items []runtime.RawExtension
	switch l := obj.(type) {
	case *corev1.List:
		items = l.Items
	case *appsv1.DeploymentList:
		return listed(src, l.Items, func(x *appsv1.Deployment) runtime.Object { return x }), nil
	case *appsv1.ReplicaSetList:
		return listed(src, l.Items, func(x *appsv1.ReplicaSet) runtime.Object { return x }), nil
	case *corev1.PodList:
		return listed(src, l.Items, func(x *corev1.Pod) runtime.Object { return x }), nil
	default:
		return []object{{obj: obj, source: src}}, nil
	}
	var out []object
	for i, it := range items {
		isrc := fmt.Sprintf("%s, items[%d]", src, i)
		objs, err := decode(it.Raw, isrc)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

// oldAPIVersion returns a message for a Deployment or ReplicaSet of an API
// version apiservers no longer serve, or "" for anything else.
func oldAPIVersion(raw []byte) string {
	var head struct {
		metav1.TypeMeta `json:",inline"`
		Metadata        struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if utilyaml.Unmarshal(raw, &head) != nil {
		return ""
	}
	switch head.Kind {
	case "Deployment", "ReplicaSet":
	default:
		return ""
	}
	switch head.APIVersion {
	case "extensions/v1beta1", "apps/v1beta1", "apps/v1beta2":
		return fmt.Sprintf("%s %s is %s: apps/v1 only: convert it with kubectl convert or change apiVersion to apps/v1 (apps/v1 also requires spec.selector, and its defaults differ)",
			head.Kind, head.Metadata.Name, head.APIVersion)
	}
	return ""
}

func listed[T any](src string, items []T, obj func(*T) runtime.Object) []object {
	out := make([]object, len(items))
	for i := range items {
		out[i] = object{obj: obj(&items[i]), source: fmt.Sprintf("%s, items[%d]", src, i)}
	}
	return out
}

func (m *Manifest) pick(objs []object, namespace, name string) error {
	if namespace != "" {
		kept := objs[:0:0]
		for _, o := range objs {
			acc, err := meta.Accessor(o.obj)
			if err != nil {
				kept = append(kept, o)
				continue
			}
			switch acc.GetNamespace() {
			case "":
				acc.SetNamespace(namespace)
				kept = append(kept, o)
			case namespace:
				kept = append(kept, o)
			}
		}
		objs = kept
	}
	var deployments []object
	for _, o := range objs {
		if d, ok := o.obj.(*appsv1.Deployment); ok && (name == "" || d.Name == name) {
			deployments = append(deployments, o)
		}
	}
	in := ""
	if namespace != "" {
		in = " in namespace " + namespace
	}
	switch {
	case len(deployments) == 0 && name != "":
		return fmt.Errorf("no Deployment named %q%s", name, in)
	case len(deployments) == 0:
		return fmt.Errorf("no Deployment in the file%s", in)
	case len(deployments) > 1:
		var names []string
		namespaces := map[string]bool{}
		for _, o := range deployments {
			d := o.obj.(*appsv1.Deployment)
			namespaces[d.Namespace] = true
			if d.Namespace != "" {
				names = append(names, d.Namespace+"/"+d.Name)
			} else {
				names = append(names, d.Name)
			}
		}
		how := "choose one with --deployment"
		if len(namespaces) > 1 {
			how = "choose one with -n and --deployment"
		}
		return fmt.Errorf("%d Deployments%s (%s): %s", len(deployments), in, strings.Join(names, ", "), how)
	}
	d := deployments[0].obj.(*appsv1.Deployment)
	if d.Namespace == "" {
		d.Namespace = "default"
		m.note("Deployment %s has no namespace: using %q (set another with -n)", d.Name, d.Namespace)
	}
	m.Deployment = m.defaultDeployment(d, deployments[0].source)
	var pods []object
	for _, o := range objs {
		switch x := o.obj.(type) {
		case *appsv1.Deployment:
		case *appsv1.ReplicaSet:
			if x.Namespace == "" {
				x.Namespace = d.Namespace
			}
			if x.Namespace == d.Namespace {
				m.ReplicaSets = append(m.ReplicaSets, m.defaultReplicaSet(x, o.source))
			}
		case *corev1.Pod:
			pods = append(pods, o)
		default:
			what := fmt.Sprintf("%T", o.obj)
			if gvk := o.obj.GetObjectKind().GroupVersionKind(); gvk.Kind != "" {
				what = gvk.Kind
			}
			if acc, err := meta.Accessor(o.obj); err == nil {
				what += " " + acc.GetName()
			}
			m.note("%s: ignoring %s", o.source, what)
		}
	}
	m.groupPods(pods)
	return nil
}

func (m *Manifest) note(format string, args ...any) {
	m.Notes = append(m.Notes, fmt.Sprintf(format, args...))
}

// neverSeen reports whether an object never passed an apiserver, which sets
// metadata.uid on every object it stores.
func neverSeen(meta *metav1.ObjectMeta) bool { return meta.UID == "" }

func (m *Manifest) defaultDeployment(d *appsv1.Deployment, src string) *appsv1.Deployment {
	m.sources["Deployment "+d.Namespace+"/"+d.Name] = src
	if !neverSeen(&d.ObjectMeta) {
		if missing := missingDeploymentDefaults(d); len(missing) > 0 {
			d = deployutil.SetDefaults(d)
			m.note("Deployment %s/%s (%s) has a metadata.uid but lacks defaults every apiserver sets (%s): was the file edited? Filled in the apiserver's defaults for every unset field",
				d.Namespace, d.Name, src, strings.Join(missing, ", "))
		}
		return d
	}
	d = deployutil.SetDefaults(d)
	d.UID = types.UID(d.Name + "-uid")
	if d.Generation == 0 {
		d.Generation = 1
	}
	m.note("Deployment %s/%s (%s) has no metadata.uid, so it never passed an apiserver: filled in the apiserver's defaults for every unset field, uid %q, generation %d",
		d.Namespace, d.Name, src, d.UID, d.Generation)
	return d
}

// missingDeploymentDefaults names the spec fields an apiserver always sets
// that a Deployment lacks.
func missingDeploymentDefaults(d *appsv1.Deployment) []string {
	s := &d.Spec
	var out []string
	if s.Replicas == nil {
		out = append(out, "spec.replicas")
	}
	if s.Strategy.Type == "" {
		out = append(out, "spec.strategy.type")
	}
	if s.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType || s.Strategy.Type == "" {
		if ru := s.Strategy.RollingUpdate; ru == nil || ru.MaxSurge == nil || ru.MaxUnavailable == nil {
			out = append(out, "spec.strategy.rollingUpdate")
		}
	}
	if s.RevisionHistoryLimit == nil {
		out = append(out, "spec.revisionHistoryLimit")
	}
	if s.ProgressDeadlineSeconds == nil {
		out = append(out, "spec.progressDeadlineSeconds")
	}
	return out
}

func (m *Manifest) defaultReplicaSet(rs *appsv1.ReplicaSet, src string) *appsv1.ReplicaSet {
	m.sources["ReplicaSet "+rs.Namespace+"/"+rs.Name] = src
	if !neverSeen(&rs.ObjectMeta) {
		if rs.Spec.Replicas == nil {
			rs = deployutil.SetReplicaSetDefaults(rs)
			m.note("ReplicaSet %s/%s (%s) has a metadata.uid but lacks spec.replicas, which every apiserver sets: was the file edited? Filled in the apiserver's defaults for every unset field",
				rs.Namespace, rs.Name, src)
		}
		return rs
	}
	rs = deployutil.SetReplicaSetDefaults(rs)
	rs.UID = types.UID(rs.Name + "-uid")
	if rs.Generation == 0 {
		rs.Generation = 1
	}
	m.note("ReplicaSet %s/%s (%s) has no metadata.uid, so it never passed an apiserver: filled in the apiserver's defaults for every unset field, uid %q, generation %d",
		rs.Namespace, rs.Name, src, rs.UID, rs.Generation)
	return rs
}

// groupPods keys pods by the UID of their controlling ReplicaSet; pods of
// no ReplicaSet in the manifest are skipped with a note.
func (m *Manifest) groupPods(pods []object) {
	byUID := map[types.UID]*appsv1.ReplicaSet{}
	for _, rs := range m.ReplicaSets {
		byUID[rs.UID] = rs
	}
	skipped := 0
	for _, o := range pods {
		p := o.obj.(*corev1.Pod)
		if p.Namespace == "" {
			p.Namespace = m.Deployment.Namespace
		}
		m.sources["Pod "+p.Namespace+"/"+p.Name] = o.source
		ref := metav1.GetControllerOfNoCopy(p)
		if ref == nil || ref.Kind != "ReplicaSet" || byUID[ref.UID] == nil || p.Namespace != m.Deployment.Namespace {
			skipped++
			continue
		}
		m.Pods[ref.UID] = append(m.Pods[ref.UID], p)
	}
	if skipped > 0 {
		m.note("skipped %d pods not controlled by a ReplicaSet of the file", skipped)
	}
}

// Explain turns an error of Sync into one that names the file and the
// document of the object at fault.
func (m *Manifest) Explain(err error) error {
	var ie *deployutil.InputError
	if !errors.As(err, &ie) {
		return err
	}
	if src, ok := m.sources[ie.Object]; ok {
		return fmt.Errorf("%s: %s: %w", m.File, src, err)
	}
	return fmt.Errorf("%s: %w", m.File, err)
}
