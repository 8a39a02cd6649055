package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"

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
	// sources maps "Kind namespace/name" to where in the stream it is.
	sources map[string]string
	// version is the minor whose apiserver defaults what never passed one.
	version string
	// label names the Deployment where its name repeats in the stream
	// (NAME#N, as --deployment picks it); "" otherwise.
	label string
}

// name is the Deployment as output names it: NAME, or NAME#N when the
// name repeats in its namespace in the stream.
func (m *Manifest) name() string {
	if m.label != "" {
		return m.label
	}
	return m.Deployment.Name
}

// key is namespace/name (see [Manifest.name]).
func (m *Manifest) key() string { return m.Deployment.Namespace + "/" + m.name() }

// State returns the manifest as a deploysync.State at now.
func (m *Manifest) State(now metav1.Time) deploysync.State {
	return deploysync.State{Deployment: m.Deployment, ReplicaSets: m.ReplicaSets, Pods: m.Pods, Now: now.Time}
}

// ReadOptions choose what a manifest is read for.
type ReadOptions struct {
	// Namespace, when set (kubectl's -n), keeps only the objects of that
	// namespace and gives it to objects that have none.
	Namespace string
	// Deployment names the Deployment to pick among several: NAME, or
	// NAME#N for the Nth Deployment of that name in the stream.
	Deployment string
	// KubernetesVersion is the minor whose apiserver defaults objects that
	// never passed one ("" for the library's default minor).
	KubernetesVersion string
}

// newDecoder returns a strict decoder of apps/v1 and v1 objects: unknown
// fields are errors that name the field, as an apiserver's strict field
// validation (kubectl apply's default) refuses them.
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
	// raw is the object as the stream has it, as JSON (nil for objects
	// read from a cluster).
	raw []byte
}

// LoadManifest reads a file of manifests as `kubectl apply -f` reads it
// (see [ReadManifest]).
func LoadManifest(path string, opts ReadOptions) (*Manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadManifest(f, path, opts)
}

// ReadManifest reads a stream of manifests as `kubectl apply -f` reads it
// — YAML documents separated by "---" (comments, anchors, a byte order
// mark, CRLF line ends), concatenated JSON objects as `kubectl cluster-info
// dump` writes them, Lists as `kubectl get -o yaml` prints them — and picks
// the Deployment opts.Deployment names, or the only one. name stands for
// the stream in messages.
//
// It keeps the apps/v1 Deployments and ReplicaSets and the v1 Pods; every
// other object, of any group, version or kind, is skipped, and one note
// counts them by kind. A Deployment or ReplicaSet of a version no apiserver
// serves any more (extensions/v1beta1, apps/v1beta1, apps/v1beta2) is an
// error, and so is an unknown field in the objects kept, which an
// apiserver's strict field validation refuses. Errors name the line of the
// stream where the object's document starts (a YAML syntax error its own
// line), and the object.
//
// Without opts.Namespace a Deployment without namespace is in "default".
// It keeps the ReplicaSets of the Deployment's namespace and the pods they
// control. Objects that never passed an apiserver (no metadata.uid) get the
// defaults of opts.KubernetesVersion's apiserver, a UID derived from their
// name and generation 1; objects with a uid that lack the defaults every
// apiserver sets (an edited file) get them too; the Notes say so. Gaps
// lists what the Deployment refers to but the stream lacks.
func ReadManifest(r io.Reader, name string, opts ReadOptions) (*Manifest, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	objs, skipped, err := decodeAll(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	m := newManifest(name, opts.KubernetesVersion)
	if skipped != "" {
		m.note("%s", skipped)
	}
	if err := m.pick(objs, opts.Namespace, opts.Deployment); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	m.Gaps = findGaps(m.Deployment, m.ReplicaSets)
	return m, nil
}

func newManifest(file, version string) *Manifest {
	return &Manifest{File: file, Pods: map[types.UID][]*corev1.Pod{}, sources: map[string]string{}, version: version}
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

// The kinds a manifest keeps.
var (
	deploymentKind = appsv1.SchemeGroupVersion.WithKind("Deployment")
	replicaSetKind = appsv1.SchemeGroupVersion.WithKind("ReplicaSet")
	podKind        = corev1.SchemeGroupVersion.WithKind("Pod")
)

// decodeAll reads the stream (see [readStream]) and decodes the objects a
// manifest keeps into their types. It returns them, and a note counting the
// objects skipped by kind ("" if none).
func decodeAll(b []byte) ([]object, string, error) {
	objs, errs := readStream(b)
	if len(errs) > 0 {
		return nil, "", errors.Join(errs...)
	}
	decoder, err := newDecoder()
	if err != nil {
		return nil, "", err
	}
	var out []object
	var skipped kindCounts
	for _, o := range objs {
		gvk := o.obj.GroupVersionKind()
		switch gvk {
		case deploymentKind, replicaSetKind, podKind:
		default:
			if old := oldAPIVersion(gvk, o.obj.GetName()); old != "" {
				errs = append(errs, fmt.Errorf("%s: %s", o.where(), old))
			} else {
				skipped.add(gvk)
			}
			continue
		}
		raw, err := o.obj.MarshalJSON()
		if err != nil {
			return nil, "", err
		}
		obj, _, err := decoder.Decode(raw, nil, nil)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s %s: %w", o.where(), gvk.Kind, o.obj.GetName(), err))
			continue
		}
		out = append(out, object{obj: obj, source: o.where(), raw: raw})
	}
	if len(errs) > 0 {
		return nil, "", errors.Join(errs...)
	}
	return out, skipped.note(), nil
}

// kindCounts counts objects by kind, in the order first seen.
type kindCounts struct {
	order []schema.GroupVersionKind
	n     map[schema.GroupVersionKind]int
}

func (k *kindCounts) add(gvk schema.GroupVersionKind) {
	if k.n == nil {
		k.n = map[schema.GroupVersionKind]int{}
	}
	if k.n[gvk] == 0 {
		k.order = append(k.order, gvk)
	}
	k.n[gvk]++
}

// note is "skipped 4 objects that are not Deployments, ReplicaSets or Pods:
// 2 Service (v1), 1 ConfigMap (v1), 1 Broker (eventing.knative.dev/v1)".
func (k *kindCounts) note() string {
	if len(k.order) == 0 {
		return ""
	}
	total := 0
	parts := make([]string, len(k.order))
	for i, gvk := range k.order {
		total += k.n[gvk]
		parts[i] = fmt.Sprintf("%d %s (%s)", k.n[gvk], gvk.Kind, gvk.GroupVersion())
	}
	what := "objects that are not Deployments, ReplicaSets or Pods"
	if total == 1 {
		what = "object that is not a Deployment, ReplicaSet or Pod"
	}
	return fmt.Sprintf("skipped %d %s: %s", total, what, strings.Join(parts, ", "))
}

// oldAPIVersion returns a message for a Deployment or ReplicaSet of an API
// version apiservers no longer serve, or "" for anything else.
func oldAPIVersion(gvk schema.GroupVersionKind, name string) string {
	switch gvk.Kind {
	case "Deployment", "ReplicaSet":
	default:
		return ""
	}
	switch gv := gvk.GroupVersion().String(); gv {
	case "extensions/v1beta1", "apps/v1beta1", "apps/v1beta2":
		return fmt.Sprintf("%s %s is %s: apps/v1 only: convert it with kubectl convert or change apiVersion to apps/v1 (apps/v1 also requires spec.selector, and its defaults differ)",
			gvk.Kind, name, gv)
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

// pick chooses the Deployment and keeps what belongs to it. name is
// NAME, or NAME#N for the Nth Deployment of that name (in the namespace,
// if one is given), counted in stream order.
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
	picked, err := m.pickDeployment(objs, namespace, name)
	if err != nil {
		return err
	}
	deployments := []object{picked}
	d := deployments[0].obj.(*appsv1.Deployment)
	if d.Namespace == "" {
		d.Namespace = "default"
		m.note("Deployment %s has no namespace: using %q (set another with -n)", d.Name, d.Namespace)
	}
	if m.Deployment, err = m.defaultDeployment(d, picked.source); err != nil {
		return err
	}
	var pods []object
	for _, o := range objs {
		switch x := o.obj.(type) {
		case *appsv1.ReplicaSet:
			if x.Namespace == "" {
				x.Namespace = d.Namespace
			}
			if x.Namespace == d.Namespace {
				rs, err := m.defaultReplicaSet(x, o.source)
				if err != nil {
					return err
				}
				m.ReplicaSets = append(m.ReplicaSets, rs)
			}
		case *corev1.Pod:
			pods = append(pods, o)
		}
	}
	m.groupPods(pods)
	return nil
}

// pickDeployment chooses the Deployment name picks (NAME or NAME#N) among
// objs, of the namespace if one is given.
func (m *Manifest) pickDeployment(objs []object, namespace, name string) (object, error) {
	name, nth, err := splitNth(name)
	if err != nil {
		return object{}, err
	}
	var deployments []object
	for _, o := range objs {
		d, ok := o.obj.(*appsv1.Deployment)
		if ok && (name == "" || d.Name == name) && (namespace == "" || d.Namespace == namespace || d.Namespace == "") {
			deployments = append(deployments, o)
		}
	}
	in := ""
	if namespace != "" {
		in = " in namespace " + namespace
	}
	switch {
	case len(deployments) == 0 && name != "":
		return object{}, fmt.Errorf("no Deployment named %q%s", name, in)
	case len(deployments) == 0:
		return object{}, fmt.Errorf("no Deployment in the file%s", in)
	case nth > len(deployments):
		return object{}, fmt.Errorf("--deployment %s#%d: the file has %d Deployments named %s%s", name, nth, len(deployments), name, in)
	case nth > 0:
		return deployments[nth-1], nil
	case len(deployments) > 1:
		return object{}, chooseOne(deployments, in)
	}
	return deployments[0], nil
}

// splitNth reads --deployment NAME or NAME#N (N from 1).
func splitNth(s string) (string, int, error) {
	name, n, ok := strings.Cut(s, "#")
	if !ok {
		return s, 0, nil
	}
	i, err := strconv.Atoi(n)
	if err != nil || i < 1 || name == "" {
		return "", 0, fmt.Errorf("--deployment %q: want NAME, or NAME#N for the Nth Deployment of that name in the file (N from 1)", s)
	}
	return name, i, nil
}

// chooseOne is the error for a stream of several Deployments: it names
// each so that --deployment (and -n) can pick it, NAME#N where a name
// repeats in a namespace, with the line where each starts.
func chooseOne(deployments []object, in string) error {
	namespaces := map[string]bool{}
	seen := map[string]int{}
	repeated := false
	var names []string
	for _, o := range deployments {
		d := o.obj.(*appsv1.Deployment)
		namespaces[d.Namespace] = true
		n := d.Name
		if d.Namespace != "" {
			n = d.Namespace + "/" + d.Name
		}
		seen[n]++
		if seen[n] > 1 {
			repeated = true
		}
		names = append(names, fmt.Sprintf("%s#%d (%s)", n, seen[n], o.source))
	}
	for i, o := range deployments {
		d := o.obj.(*appsv1.Deployment)
		n := d.Name
		if d.Namespace != "" {
			n = d.Namespace + "/" + d.Name
		}
		if seen[n] == 1 { // a name of its own: no #N
			names[i] = n
			if repeated {
				names[i] += " (" + o.source + ")"
			}
		}
	}
	how := "choose one with --deployment"
	if len(namespaces) > 1 {
		how = "choose one with -n and --deployment"
	}
	if repeated {
		how += " (NAME#N for the Nth of a repeated name; kubectl apply would apply each in turn, the last one winning)"
	}
	return fmt.Errorf("%d Deployments%s (%s): %s", len(deployments), in, strings.Join(names, ", "), how)
}

func (m *Manifest) note(format string, args ...any) {
	m.Notes = append(m.Notes, fmt.Sprintf(format, args...))
}

// neverSeen reports whether an object never passed an apiserver, which sets
// metadata.uid on every object it stores.
func neverSeen(meta *metav1.ObjectMeta) bool { return meta.UID == "" }

func (m *Manifest) defaultDeployment(d *appsv1.Deployment, src string) (*appsv1.Deployment, error) {
	m.sources["Deployment "+d.Namespace+"/"+d.Name] = src
	dd, err := apiserverDefaults(m.version, d)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	if !neverSeen(&d.ObjectMeta) {
		use, err := m.storedDefaults("Deployment", d.Namespace, d.Name, src, d, dd)
		if err != nil || !use {
			return d, err
		}
		return dd, nil
	}
	d = dd
	d.UID = types.UID(d.Name + "-uid")
	if d.Generation == 0 {
		d.Generation = 1
	}
	m.note("Deployment %s/%s (%s) has no metadata.uid, so it never passed an apiserver: filled in the defaults of the Kubernetes %s apiserver for every unset field, uid %q, generation %d",
		d.Namespace, d.Name, src, minorName(m.version), d.UID, d.Generation)
	return d, nil
}

func (m *Manifest) defaultReplicaSet(rs *appsv1.ReplicaSet, src string) (*appsv1.ReplicaSet, error) {
	m.sources["ReplicaSet "+rs.Namespace+"/"+rs.Name] = src
	dr, err := apiserverReplicaSetDefaults(m.version, rs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	if !neverSeen(&rs.ObjectMeta) {
		use, err := m.storedDefaults("ReplicaSet", rs.Namespace, rs.Name, src, rs, dr)
		if err != nil || !use {
			return rs, err
		}
		return dr, nil
	}
	rs = dr
	rs.UID = types.UID(rs.Name + "-uid")
	if rs.Generation == 0 {
		rs.Generation = 1
	}
	m.note("ReplicaSet %s/%s (%s) has no metadata.uid, so it never passed an apiserver: filled in the defaults of the Kubernetes %s apiserver for every unset field, uid %q, generation %d",
		rs.Namespace, rs.Name, src, minorName(m.version), rs.UID, rs.Generation)
	return rs, nil
}

// storedDefaults reports whether to use defaulted instead of given, an
// object that has a metadata.uid, so it was read from an apiserver. A
// stored object has every default, so defaulting changes nothing and given
// is used; a file edited after it was read (a field
// removed, such as a container's terminationMessagePath) gets what an
// apiserver would set again, with a note naming the fields. If defaulting
// would remove a field (one whose feature gate is off by default, which
// the registry drops on create but keeps on update once in use), the file
// is taken as it is, with a note.
func (m *Manifest) storedDefaults(kind, ns, name, src string, given, defaulted any) (bool, error) {
	added, removed, err := jsonDelta(given, defaulted)
	if err != nil {
		return false, fmt.Errorf("%s: %s %s/%s: %w", src, kind, ns, name, err)
	}
	switch {
	case len(removed) > 0:
		m.note("%s %s/%s (%s) has a metadata.uid, and the Kubernetes %s apiserver's defaults would drop %s (fields whose feature gate is off by default): taken as the file has it",
			kind, ns, name, src, minorName(m.version), listPaths(removed))
		return false, nil
	case len(added) > 0:
		m.note("%s %s/%s (%s) has a metadata.uid but lacks defaults every apiserver sets (%s): was the file edited? Filled in the defaults of the Kubernetes %s apiserver for every unset field",
			kind, ns, name, src, listPaths(added), minorName(m.version))
		return true, nil
	}
	return false, nil
}

// jsonDelta compares two objects as JSON, leaf by leaf (an empty object or
// list is a leaf): added are the paths b has and a lacks, removed the
// paths a has and b lacks; a leaf both have with different values (such as
// a quantity in canonical form) is added.
func jsonDelta(a, b any) (added, removed []string, err error) {
	la, err := leaves(a)
	if err != nil {
		return nil, nil, err
	}
	lb, err := leaves(b)
	if err != nil {
		return nil, nil, err
	}
	for p, v := range lb {
		if w, ok := la[p]; !ok || w != v {
			added = append(added, p)
		}
	}
	for p, v := range la {
		if _, ok := lb[p]; ok {
			continue
		}
		// An empty object or list that defaulting filled in is not gone.
		if (v == "{}" || v == "[]" || v == "null") && hasUnder(lb, p) {
			continue
		}
		removed = append(removed, p)
	}
	slices.Sort(added)
	slices.Sort(removed)
	return added, removed, nil
}

// leaves flattens an object's JSON to its leaves: path → the leaf's JSON.
func leaves(obj any) (map[string]string, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	out := map[string]string{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if len(x) > 0 {
				for k, e := range x {
					if path == "" {
						walk(k, e)
					} else {
						walk(path+"."+k, e)
					}
				}
				return
			}
		case []any:
			if len(x) > 0 {
				for i, e := range x {
					walk(fmt.Sprintf("%s[%d]", path, i), e)
				}
				return
			}
		}
		b, _ := json.Marshal(v)
		out[path] = string(b)
	}
	walk("", v)
	return out, nil
}

// hasUnder reports whether some leaf lies under path.
func hasUnder(leaves map[string]string, path string) bool {
	for p := range leaves {
		if strings.HasPrefix(p, path+".") || strings.HasPrefix(p, path+"[") {
			return true
		}
	}
	return false
}

// listPaths names up to five paths, then how many more.
func listPaths(paths []string) string {
	const shown = 5
	if len(paths) <= shown {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:shown], ", "), len(paths)-shown)
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
