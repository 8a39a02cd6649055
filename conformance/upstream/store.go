package upstream

import (
	"encoding/json"
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clienttesting "k8s.io/client-go/testing"
)

// The resources upstream's Deployment controller writes.
const (
	resDeployments = "deployments"
	resReplicaSets = "replicasets"
)

// storeKey names one stored object.
type storeKey struct {
	resource, namespace, name string
}

// entry is one object in the store.
type entry struct {
	obj     object // current state, carrying an internal resourceVersion
	origRV  string // the caller's resourceVersion, restored in the Outcome
	created bool   // created during the run (its Outcome resourceVersion is empty)
}

// snapshot is a version of an object that upstream could have read: an input
// object or an object returned by a write.
type snapshot struct {
	key storeKey
	obj object
}

// store is the tiny API server behind the fake clientset. It answers every
// client call itself and replays writes as intents (see the package doc).
type store struct {
	objects   map[storeKey]*entry
	rsOrder   []storeKey          // input order, then creation order
	snapshots map[string]snapshot // by internal resourceVersion
	lastRV    int

	actions    []string // one line per client call
	unexpected []string // calls the store does not model
}

func newStore() *store {
	return &store{
		objects:   map[storeKey]*entry{},
		snapshots: map[string]snapshot{},
	}
}

// nextRV mints a fresh internal resourceVersion.
func (s *store) nextRV() string {
	s.lastRV++
	return strconv.Itoa(s.lastRV)
}

// add stores an input object under a fresh internal resourceVersion, which it
// also sets on meta, the copy that goes into the informer cache.
func (s *store) add(resource string, typed runtime.Object, meta interface {
	GetNamespace() string
	GetName() string
	GetResourceVersion() string
	SetResourceVersion(string)
}) error {
	key := storeKey{resource, meta.GetNamespace(), meta.GetName()}
	if _, dup := s.objects[key]; dup {
		return fmt.Errorf("duplicate input %s %s/%s", resource, key.namespace, key.name)
	}
	orig := meta.GetResourceVersion()
	rv := s.nextRV()
	meta.SetResourceVersion(rv)
	o, err := toObject(typed)
	if err != nil {
		return fmt.Errorf("encoding input %s %s/%s: %w", resource, key.namespace, key.name, err)
	}
	s.objects[key] = &entry{obj: copyObject(o), origRV: orig}
	s.snapshots[rv] = snapshot{key: key, obj: o}
	if resource == resReplicaSets {
		s.rsOrder = append(s.rsOrder, key)
	}
	return nil
}

// react is the fake clientset's reactor: it handles every action.
func (s *store) react(action clienttesting.Action) (bool, runtime.Object, error) {
	res := action.GetResource().Resource
	sub := action.GetSubresource()
	ns := action.GetNamespace()
	switch verb := action.GetVerb(); {
	case verb == "get" && sub == "" && (res == resDeployments || res == resReplicaSets):
		return handled(s.get(storeKey{res, ns, action.(clienttesting.GetAction).GetName()}))
	case verb == "create" && sub == "" && res == resReplicaSets:
		return handled(s.create(res, action.(clienttesting.CreateAction).GetObject()))
	case verb == "update" && sub == "" && (res == resReplicaSets || res == resDeployments):
		return handled(s.update(res, action.(clienttesting.UpdateAction).GetObject(), "", []string{"status"}))
	case verb == "update" && sub == "status" && res == resDeployments:
		return handled(s.update(res, action.(clienttesting.UpdateAction).GetObject(), "/status", []string{"spec"}, []string{"metadata", "labels"}))
	case verb == "patch" && sub == "" && res == resReplicaSets:
		a := action.(clienttesting.PatchAction)
		return handled(s.patch(storeKey{res, ns, a.GetName()}, a.GetPatchType(), a.GetPatch()))
	case verb == "delete" && sub == "" && res == resReplicaSets:
		return true, nil, s.delete(storeKey{res, ns, action.(clienttesting.DeleteAction).GetName()})
	}
	name := ""
	if named, ok := action.(interface{ GetName() string }); ok {
		name = named.GetName()
	}
	line := fmt.Sprintf("%s %s%s %s: not modelled by the runner", action.GetVerb(), res, slash(sub), name)
	s.actions = append(s.actions, line)
	s.unexpected = append(s.unexpected, line)
	return true, nil, fmt.Errorf("conformance runner: %s", line)
}

// handled adapts a store method's results to a reactor's.
func handled(obj runtime.Object, err error) (bool, runtime.Object, error) {
	return true, obj, err
}

func slash(sub string) string {
	if sub == "" {
		return ""
	}
	return "/" + sub
}

func (s *store) get(key storeKey) (runtime.Object, error) {
	e, ok := s.objects[key]
	if !ok {
		s.logf("get %s %s: not found", key.resource, key.name)
		return nil, apierrors.NewNotFound(appsv1.Resource(key.resource), key.name)
	}
	s.logf("get %s %s", key.resource, key.name)
	return typedObject(key.resource, e.obj)
}

// currentReplicaSet is a lister's Get that has seen every write so far. It
// is not a client call, so it is not in the action log.
func (s *store) currentReplicaSet(namespace, name string) (*appsv1.ReplicaSet, error) {
	e, ok := s.objects[storeKey{resReplicaSets, namespace, name}]
	if !ok {
		return nil, apierrors.NewNotFound(appsv1.Resource(resReplicaSets), name)
	}
	o, err := typedObject(resReplicaSets, e.obj)
	if err != nil {
		return nil, err
	}
	return o.(*appsv1.ReplicaSet), nil
}

func (s *store) create(res string, sent runtime.Object) (runtime.Object, error) {
	o, err := toObject(sent)
	if err != nil {
		return nil, s.harnessErr("create %s: %v", res, err)
	}
	key := storeKey{res, metaString(o, "namespace"), metaString(o, "name")}
	// An apiserver validates the name of an object it creates before
	// anything else; v1.33 names a ReplicaSet <deployment>-<hash> without
	// truncating, so a long Deployment name gets 422 here.
	if msgs := apimachineryvalidation.NameIsDNSSubdomain(key.name, false); len(msgs) > 0 {
		var errs field.ErrorList
		for _, msg := range msgs {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), key.name, msg))
		}
		s.logf("create %s %s: invalid name", res, key.name)
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: appsv1.GroupName, Kind: "ReplicaSet"}, key.name, errs)
	}
	if _, exists := s.objects[key]; exists {
		s.logf("create %s %s: already exists", res, key.name)
		return nil, apierrors.NewAlreadyExists(appsv1.Resource(res), key.name)
	}
	rv := s.nextRV()
	setMeta(o, "resourceVersion", rv)
	s.objects[key] = &entry{obj: copyObject(o), created: true}
	s.snapshots[rv] = snapshot{key: key, obj: o}
	if res == resReplicaSets {
		s.rsOrder = append(s.rsOrder, key)
	}
	s.logf("create %s %s: %s", res, key.name, summarizeCreate(o))
	return withRV(sent, rv)
}

// update replays an update as an intent: the change from the version the
// sender read to what it sent, without the protected paths, applied to the
// current object. The sent object is returned with a fresh resourceVersion.
func (s *store) update(res string, sent runtime.Object, sub string, protected ...[]string) (runtime.Object, error) {
	o, err := toObject(sent)
	if err != nil {
		return nil, s.harnessErr("update %s%s: %v", res, sub, err)
	}
	key := storeKey{res, metaString(o, "namespace"), metaString(o, "name")}
	e, ok := s.objects[key]
	if !ok {
		s.logf("update %s%s %s: not found", res, sub, key.name)
		return nil, apierrors.NewNotFound(appsv1.Resource(res), key.name)
	}
	sentRV := metaString(o, "resourceVersion")
	base, ok := s.snapshots[sentRV]
	if !ok || base.key != key {
		return nil, s.harnessErr("update %s%s %s: no version with resourceVersion %q was ever served", res, sub, key.name, sentRV)
	}
	stale := ""
	if !s.servedLatest(key, sentRV) {
		// A real apiserver would answer 409 Conflict here.
		stale = " (stale)"
	}
	diff := mergeDiff(base.obj, o)
	for _, p := range protected {
		dropPath(diff, p...)
	}
	mergeApply(e.obj, diff)
	rv := s.nextRV()
	setMeta(e.obj, "resourceVersion", rv)
	setMeta(o, "resourceVersion", rv)
	s.snapshots[rv] = snapshot{key: key, obj: o}
	s.logf("update %s%s %s%s: %s", res, sub, key.name, stale, compact(diff))
	return withRV(sent, rv)
}

// servedLatest reports whether rv is the most recent version of key that was
// handed out, i.e. whether a real apiserver would have accepted the write.
func (s *store) servedLatest(key storeKey, rv string) bool {
	n, err := strconv.Atoi(rv)
	if err != nil {
		return false
	}
	for v := n + 1; v <= s.lastRV; v++ {
		if snap, ok := s.snapshots[strconv.Itoa(v)]; ok && snap.key == key {
			return false
		}
	}
	return true
}

func (s *store) patch(key storeKey, pt types.PatchType, data []byte) (runtime.Object, error) {
	if pt != types.StrategicMergePatchType {
		return nil, s.harnessErr("patch %s %s: unexpected patch type %s", key.resource, key.name, pt)
	}
	e, ok := s.objects[key]
	if !ok {
		s.logf("patch %s %s %s: not found", key.resource, key.name, data)
		return nil, apierrors.NewNotFound(appsv1.Resource(key.resource), key.name)
	}
	// The patches upstream sends name the object's UID; an apiserver
	// refuses them as invalid when it does not match.
	if p, err := decodeObject(data); err == nil {
		if uid := metaString(p, "uid"); uid != "" && uid != metaString(e.obj, "uid") {
			s.logf("patch %s %s %s: uid mismatch", key.resource, key.name, data)
			return nil, apierrors.NewInvalid(schema.GroupKind{Group: appsv1.GroupName, Kind: "ReplicaSet"}, key.name, field.ErrorList{
				field.Invalid(field.NewPath("metadata", "uid"), uid, "does not match the stored object"),
			})
		}
	}
	cur, err := json.Marshal(e.obj)
	if err != nil {
		return nil, s.harnessErr("patch %s %s: %v", key.resource, key.name, err)
	}
	patched, err := strategicpatch.StrategicMergePatch(cur, data, appsv1.ReplicaSet{})
	if err != nil {
		s.logf("patch %s %s %s: %v", key.resource, key.name, data, err)
		return nil, apierrors.NewBadRequest(err.Error())
	}
	o, err := decodeObject(patched)
	if err != nil {
		return nil, s.harnessErr("patch %s %s: %v", key.resource, key.name, err)
	}
	rv := s.nextRV()
	setMeta(o, "resourceVersion", rv)
	e.obj = copyObject(o)
	s.snapshots[rv] = snapshot{key: key, obj: o}
	s.logf("patch %s %s: %s", key.resource, key.name, data)
	return typedObject(key.resource, o)
}

func (s *store) delete(key storeKey) error {
	if _, ok := s.objects[key]; !ok {
		s.logf("delete %s %s: not found", key.resource, key.name)
		return apierrors.NewNotFound(appsv1.Resource(key.resource), key.name)
	}
	delete(s.objects, key)
	s.logf("delete %s %s", key.resource, key.name)
	return nil
}

func (s *store) logf(format string, args ...any) {
	s.actions = append(s.actions, fmt.Sprintf(format, args...))
}

// harnessErr records a failure of the runner itself (not of upstream) and
// returns it as the client error upstream sees.
func (s *store) harnessErr(format string, args ...any) error {
	line := fmt.Sprintf(format, args...)
	s.actions = append(s.actions, line)
	s.unexpected = append(s.unexpected, line)
	return fmt.Errorf("conformance runner: %s", line)
}

// withRV returns a copy of a sent object carrying resourceVersion rv: what
// the store hands back for a write (cheaper than decoding the stored JSON).
func withRV(sent runtime.Object, rv string) (runtime.Object, error) {
	out := sent.DeepCopyObject()
	m, err := meta.Accessor(out)
	if err != nil {
		return nil, fmt.Errorf("conformance runner: %w", err)
	}
	m.SetResourceVersion(rv)
	return out, nil
}

// typedObject decodes a stored object into a fresh typed object.
func typedObject(res string, o object) (runtime.Object, error) {
	var out runtime.Object
	switch res {
	case resDeployments:
		out = &appsv1.Deployment{}
	case resReplicaSets:
		out = &appsv1.ReplicaSet{}
	default:
		return nil, fmt.Errorf("conformance runner: no type for resource %q", res)
	}
	if err := fromObject(o, out); err != nil {
		return nil, fmt.Errorf("conformance runner: decoding %s: %w", res, err)
	}
	return out, nil
}

func metaString(o object, key string) string {
	m, _ := o["metadata"].(object)
	s, _ := m[key].(string)
	return s
}

func setMeta(o object, key, value string) {
	m, ok := o["metadata"].(object)
	if !ok {
		m = object{}
		o["metadata"] = m
	}
	m[key] = value
}

// summarizeCreate describes a created object briefly for the action log.
func summarizeCreate(o object) string {
	spec, _ := o["spec"].(object)
	return fmt.Sprintf("replicas=%v", spec["replicas"])
}

// compact renders a merge patch as one line of JSON (keys sorted).
func compact(o object) string {
	data, err := json.Marshal(o)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(data)
}
