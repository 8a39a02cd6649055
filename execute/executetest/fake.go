// Package executetest provides an in-memory [execute.Client] with
// injectable faults, for unit tests of code that performs plans with
// [execute.Plan], as net/http/httptest does for HTTP handlers.
//
// A [Fake] holds Deployments and ReplicaSets as an apiserver stores them:
// every write bumps the object's resourceVersion, an update with another
// resourceVersion is refused with 409 Conflict, a create of a taken name
// with 409 AlreadyExists, a write of a missing object with 404 NotFound,
// and a status update keeps the stored spec (an update, the stored status).
// Faults ([Fault]) make chosen calls fail as a real server or network can:
// a conflict, an internal error, NotFound, or a timeout after the write took
// effect.
//
// It models no more than that: no admission, no validation, no defaulting,
// no generation, no garbage collection, no watch.
package executetest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/execute"
	"github.com/deploysync/deploysync/internal/facts"
)

// Kind is the kind of a [Fault].
type Kind int

const (
	// Conflict answers 409 Conflict, as for a stale resourceVersion; the
	// write does not happen.
	Conflict Kind = iota + 1
	// InternalError answers 500; the write does not happen.
	InternalError
	// NotFound answers 404, as if the object were gone; the write does not
	// happen.
	NotFound
	// TimeoutAfterWrite performs the write, then answers 504 Timeout: the
	// write took effect and the caller cannot know it.
	TimeoutAfterWrite
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case Conflict:
		return "Conflict"
	case InternalError:
		return "InternalError"
	case NotFound:
		return "NotFound"
	case TimeoutAfterWrite:
		return "TimeoutAfterWrite"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Fault makes one call of a [Fake] fail.
type Fault struct {
	// Call is the method whose call fails ("UpdateReplicaSet",
	// "GetDeployment", ...); empty means any write (every method but
	// GetDeployment and Event).
	Call string
	// N is which of the calls Call matches fails, counting from 1.
	N int
	// Kind is how it fails.
	Kind Kind
}

// Event is an event recorded through a [Fake].
type Event struct {
	// Object is "namespace/name" of the Deployment.
	Object                string
	Type, Reason, Message string
}

// Call is one call a [Fake] received.
type Call struct {
	// Method is the [execute.Client] method.
	Method string
	// Namespace and Name name the object.
	Namespace, Name string
	// ResourceVersion is the one the call sent (updates only).
	ResourceVersion string
	// Returned is the resourceVersion of the object the call answered
	// with ("" for an error).
	Returned string
	// Err is what the call returned.
	Err error
}

// Fake is an in-memory [execute.Client]. Make one with [New]; it is safe
// for concurrent use.
type Fake struct {
	mu sync.Mutex
	// deployments and replicaSets are the stored objects by namespace/name;
	// order is the ReplicaSets' creation order, for State.
	deployments map[string]*appsv1.Deployment
	replicaSets map[string]*appsv1.ReplicaSet
	order       []string
	rv          int64
	uids        int
	faults      []Fault
	counts      map[string]int
	calls       []Call
	events      []Event
}

var (
	_          execute.Client = (*Fake)(nil)
	rsResource                = appsv1.Resource("replicasets")
	dResource                 = appsv1.Resource("deployments")
)

// New returns a Fake holding copies of the objects, each given a
// resourceVersion (and a UID if it has none), with the faults to inject.
func New(d []*appsv1.Deployment, rss []*appsv1.ReplicaSet, faults ...Fault) *Fake {
	f := &Fake{deployments: map[string]*appsv1.Deployment{}, replicaSets: map[string]*appsv1.ReplicaSet{},
		faults: faults, counts: map[string]int{}}
	for _, x := range d {
		x = x.DeepCopy()
		f.stamp(&x.ObjectMeta)
		f.deployments[key(x.Namespace, x.Name)] = x
	}
	for _, x := range rss {
		x = x.DeepCopy()
		f.stamp(&x.ObjectMeta)
		f.replicaSets[key(x.Namespace, x.Name)] = x
		f.order = append(f.order, key(x.Namespace, x.Name))
	}
	return f
}

func key(ns, name string) string { return ns + "/" + name }

// stamp gives m the next resourceVersion, and a UID if it has none.
func (f *Fake) stamp(m *metav1.ObjectMeta) {
	f.rv++
	m.ResourceVersion = strconv.FormatInt(f.rv, 10)
	if m.UID == "" {
		f.uids++
		m.UID = types.UID(fmt.Sprintf("deploysynctest-uid-%d", f.uids))
	}
}

// State returns the stored Deployment namespace/name (nil if none) and the
// namespace's ReplicaSets in creation order, as copies: the state a cache
// in sync with this server would give Sync.
func (f *Fake) State(namespace, name string) deploysync.State {
	f.mu.Lock()
	defer f.mu.Unlock()
	var s deploysync.State
	if d, ok := f.deployments[key(namespace, name)]; ok {
		s.Deployment = d.DeepCopy()
	}
	for _, k := range f.order {
		if rs := f.replicaSets[k]; rs.Namespace == namespace {
			s.ReplicaSets = append(s.ReplicaSets, rs.DeepCopy())
		}
	}
	return s
}

// Calls returns every call received so far, in order.
func (f *Fake) Calls() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Call(nil), f.calls...)
}

// Events returns every event recorded so far, in order.
func (f *Fake) Events() []Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Event(nil), f.events...)
}

// fault counts the call and returns the fault injected into it, if any.
func (f *Fake) fault(method string) Kind {
	write := method != "GetDeployment"
	f.counts[method]++
	if write {
		f.counts[""]++
	}
	for _, x := range f.faults {
		if x.Call == method && x.N == f.counts[method] || x.Call == "" && write && x.N == f.counts[""] {
			return x.Kind
		}
	}
	return 0
}

// refuse returns the error of a fault that stops the call, nil for none
// or for TimeoutAfterWrite.
func refuse(k Kind, gr schema.GroupResource, name string) error {
	switch k {
	case Conflict:
		return apierrors.NewConflict(gr, name, fmt.Errorf("injected conflict"))
	case InternalError:
		return apierrors.NewInternalError(fmt.Errorf("injected internal error"))
	case NotFound:
		return apierrors.NewNotFound(gr, name)
	}
	return nil
}

// answer returns the object a call stored, or the error of a
// TimeoutAfterWrite fault (the object stays stored).
func answer[T any](obj *T, k Kind) (*T, error) {
	if err := after(k); err != nil {
		return nil, err
	}
	return obj, nil
}

// after returns the error a call answers once its write took effect.
func after(k Kind) error {
	if k == TimeoutAfterWrite {
		return apierrors.NewTimeoutError("injected timeout after the write took effect", 0)
	}
	return nil
}

func (f *Fake) record(method, ns, name, rv, returned string, err error) {
	f.calls = append(f.calls, Call{Method: method, Namespace: ns, Name: name, ResourceVersion: rv, Returned: returned, Err: err})
}

// version is the resourceVersion a call stored, "" if it stored nothing.
func version(m metav1.Object) string {
	if m == nil || reflect.ValueOf(m).IsNil() {
		return ""
	}
	return m.GetResourceVersion()
}

// precondition refuses a write whose resourceVersion is set and differs
// from the stored one.
func precondition(gr schema.GroupResource, name, sent, stored string) error {
	if sent != "" && sent != stored {
		return apierrors.NewConflict(gr, name, fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again (resourceVersion %s, stored %s)", sent, stored))
	}
	return nil
}

// CreateReplicaSet stores a copy of rs with a new resourceVersion and UID.
func (f *Fake) CreateReplicaSet(_ context.Context, rs *appsv1.ReplicaSet) (out *appsv1.ReplicaSet, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer func() { f.record("CreateReplicaSet", rs.Namespace, rs.Name, "", version(out), err) }()
	k := f.fault("CreateReplicaSet")
	if err := refuse(k, rsResource, rs.Name); err != nil {
		return nil, err
	}
	if _, ok := f.replicaSets[key(rs.Namespace, rs.Name)]; ok {
		return nil, apierrors.NewAlreadyExists(rsResource, rs.Name)
	}
	stored := rs.DeepCopy()
	stored.ResourceVersion, stored.UID = "", ""
	f.stamp(&stored.ObjectMeta)
	f.replicaSets[key(rs.Namespace, rs.Name)] = stored
	f.order = append(f.order, key(rs.Namespace, rs.Name))
	return answer(stored.DeepCopy(), k)
}

// UpdateReplicaSet stores rs's metadata and spec, keeping the stored status.
func (f *Fake) UpdateReplicaSet(_ context.Context, rs *appsv1.ReplicaSet) (out *appsv1.ReplicaSet, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer func() { f.record("UpdateReplicaSet", rs.Namespace, rs.Name, rs.ResourceVersion, version(out), err) }()
	k := f.fault("UpdateReplicaSet")
	if err := refuse(k, rsResource, rs.Name); err != nil {
		return nil, err
	}
	cur, ok := f.replicaSets[key(rs.Namespace, rs.Name)]
	if !ok {
		return nil, apierrors.NewNotFound(rsResource, rs.Name)
	}
	if err := precondition(rsResource, rs.Name, rs.ResourceVersion, cur.ResourceVersion); err != nil {
		return nil, err
	}
	stored := rs.DeepCopy()
	stored.UID = cur.UID
	stored.Status = *cur.Status.DeepCopy()
	f.stamp(&stored.ObjectMeta)
	f.replicaSets[key(rs.Namespace, rs.Name)] = stored
	return answer(stored.DeepCopy(), k)
}

// PatchReplicaSet applies the library's adoption and release patches
// (strategic merge patches of metadata.ownerReferences keyed by UID, with
// metadata.uid, which must be the stored UID or the answer is Invalid).
// Other patches are refused with BadRequest.
func (f *Fake) PatchReplicaSet(_ context.Context, namespace, name string, pt types.PatchType, data []byte) (out *appsv1.ReplicaSet, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer func() { f.record("PatchReplicaSet", namespace, name, "", version(out), err) }()
	k := f.fault("PatchReplicaSet")
	if err := refuse(k, rsResource, name); err != nil {
		return nil, err
	}
	cur, ok := f.replicaSets[key(namespace, name)]
	if !ok {
		return nil, apierrors.NewNotFound(rsResource, name)
	}
	if pt != types.StrategicMergePatchType {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("patch type %q not supported by the fake", pt))
	}
	var p struct {
		Metadata struct {
			UID             types.UID         `json:"uid"`
			OwnerReferences []json.RawMessage `json:"ownerReferences"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if p.Metadata.UID != "" && p.Metadata.UID != cur.UID {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}, name, nil)
	}
	stored := cur.DeepCopy()
	for _, raw := range p.Metadata.OwnerReferences {
		var del struct {
			Patch string    `json:"$patch"`
			UID   types.UID `json:"uid"`
		}
		if err := json.Unmarshal(raw, &del); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		if del.Patch == "delete" {
			stored.OwnerReferences = facts.WithoutOwner(stored.OwnerReferences, del.UID)
			continue
		}
		var ref metav1.OwnerReference
		if err := json.Unmarshal(raw, &ref); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		owner := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: ref.Name, UID: ref.UID}}
		stored.OwnerReferences = facts.WithControllerRef(stored.OwnerReferences, owner)
	}
	f.stamp(&stored.ObjectMeta)
	f.replicaSets[key(namespace, name)] = stored
	return answer(stored.DeepCopy(), k)
}

// DeleteReplicaSet removes the ReplicaSet; a uid that is not the stored
// one is refused with Conflict, as the apiserver's UID precondition.
func (f *Fake) DeleteReplicaSet(_ context.Context, namespace, name string, uid types.UID) (err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer func() { f.record("DeleteReplicaSet", namespace, name, "", "", err) }()
	k := f.fault("DeleteReplicaSet")
	if err := refuse(k, rsResource, name); err != nil {
		return err
	}
	cur, ok := f.replicaSets[key(namespace, name)]
	if !ok {
		return apierrors.NewNotFound(rsResource, name)
	}
	if uid != "" && uid != cur.UID {
		return apierrors.NewConflict(rsResource, name, fmt.Errorf("precondition failed: UID in precondition %s, UID in object meta %s", uid, cur.UID))
	}
	delete(f.replicaSets, key(namespace, name))
	for i, o := range f.order {
		if o == key(namespace, name) {
			f.order = append(f.order[:i], f.order[i+1:]...)
			break
		}
	}
	return after(k)
}

// GetDeployment returns a copy of the stored Deployment. A
// TimeoutAfterWrite fault on it answers a timeout.
func (f *Fake) GetDeployment(_ context.Context, namespace, name string) (out *appsv1.Deployment, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer func() { f.record("GetDeployment", namespace, name, "", version(out), err) }()
	k := f.fault("GetDeployment")
	if err := refuse(k, dResource, name); err != nil {
		return nil, err
	}
	if err := after(k); err != nil {
		return nil, err
	}
	cur, ok := f.deployments[key(namespace, name)]
	if !ok {
		return nil, apierrors.NewNotFound(dResource, name)
	}
	return cur.DeepCopy(), nil
}

// UpdateDeployment stores d's metadata and spec, keeping the stored status.
func (f *Fake) UpdateDeployment(_ context.Context, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	return f.updateDeployment("UpdateDeployment", d, func(sent, cur *appsv1.Deployment) *appsv1.Deployment {
		out := sent.DeepCopy()
		out.Status = *cur.Status.DeepCopy()
		return out
	})
}

// UpdateDeploymentStatus stores d's status and metadata, keeping the stored
// spec and labels (what the status endpoint does with them).
func (f *Fake) UpdateDeploymentStatus(_ context.Context, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	return f.updateDeployment("UpdateDeploymentStatus", d, func(sent, cur *appsv1.Deployment) *appsv1.Deployment {
		out := sent.DeepCopy()
		out.Spec = *cur.Spec.DeepCopy()
		out.Labels = cur.DeepCopy().Labels
		return out
	})
}

func (f *Fake) updateDeployment(method string, d *appsv1.Deployment, merge func(sent, cur *appsv1.Deployment) *appsv1.Deployment) (out *appsv1.Deployment, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer func() { f.record(method, d.Namespace, d.Name, d.ResourceVersion, version(out), err) }()
	k := f.fault(method)
	if err := refuse(k, dResource, d.Name); err != nil {
		return nil, err
	}
	cur, ok := f.deployments[key(d.Namespace, d.Name)]
	if !ok {
		return nil, apierrors.NewNotFound(dResource, d.Name)
	}
	if err := precondition(dResource, d.Name, d.ResourceVersion, cur.ResourceVersion); err != nil {
		return nil, err
	}
	stored := merge(d, cur)
	stored.UID = cur.UID
	f.stamp(&stored.ObjectMeta)
	f.deployments[key(d.Namespace, d.Name)] = stored
	return answer(stored.DeepCopy(), k)
}

// Event records the event.
func (f *Fake) Event(d *appsv1.Deployment, eventType, reason, message string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, Event{Object: key(d.Namespace, d.Name), Type: eventType, Reason: reason, Message: message})
	f.record("Event", d.Namespace, d.Name, "", "", nil)
}
