package applier

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// strictServer makes a fake clientset keep resourceVersions as an apiserver
// does for Deployments and ReplicaSets: every write gives the object a new
// one, an update must carry the current one (409 Conflict otherwise), the
// status subresource keeps the spec and the main resource keeps the status.
// The plain fake clientset checks none of this.
type strictServer struct {
	cs *fake.Clientset
	mu sync.Mutex
	rv int
}

// The objects are given resourceVersions in place (as if read back from the
// server, so that plans made from them carry them) and stored as copies.
func newStrictServer(objs ...runtime.Object) *strictServer {
	s := &strictServer{rv: 100}
	stored := make([]runtime.Object, len(objs))
	for i, o := range objs {
		m, _ := meta.Accessor(o)
		if m.GetResourceVersion() == "" {
			m.SetResourceVersion(s.next())
		}
		stored[i] = o.DeepCopyObject()
	}
	s.cs = fake.NewClientset(stored...)
	for _, res := range []string{"deployments", "replicasets"} {
		s.cs.PrependReactor("create", res, s.create)
		s.cs.PrependReactor("update", res, s.update)
		s.cs.PrependReactor("patch", res, s.patch)
	}
	return s
}

func (s *strictServer) next() string {
	s.rv++
	return strconv.Itoa(s.rv)
}

func (s *strictServer) create(a k8stesting.Action) (bool, runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	obj := a.(k8stesting.CreateAction).GetObject().DeepCopyObject()
	m, _ := meta.Accessor(obj)
	m.SetResourceVersion(s.next())
	if err := s.cs.Tracker().Create(a.GetResource(), obj, a.GetNamespace()); err != nil {
		return true, nil, err
	}
	return true, obj, nil
}

func (s *strictServer) update(a k8stesting.Action) (bool, runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	obj := a.(k8stesting.UpdateAction).GetObject().DeepCopyObject()
	m, _ := meta.Accessor(obj)
	cur, err := s.cs.Tracker().Get(a.GetResource(), a.GetNamespace(), m.GetName())
	if err != nil {
		return true, nil, err
	}
	cm, _ := meta.Accessor(cur)
	// An empty resourceVersion is an unconditional update, which apps/v1
	// objects allow.
	if m.GetResourceVersion() != "" && m.GetResourceVersion() != cm.GetResourceVersion() {
		return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: a.GetResource().Resource}, m.GetName(),
			fmt.Errorf("the object has been modified: sent resourceVersion %q, stored %q", m.GetResourceVersion(), cm.GetResourceVersion()))
	}
	obj = keepOther(cur, obj, a.GetSubresource() == "status")
	m, _ = meta.Accessor(obj)
	m.SetResourceVersion(s.next())
	if err := s.cs.Tracker().Update(a.GetResource(), obj, a.GetNamespace()); err != nil {
		return true, nil, err
	}
	return true, obj, nil
}

func (s *strictServer) patch(a k8stesting.Action) (bool, runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pa := a.(k8stesting.PatchAction)
	cur, err := s.cs.Tracker().Get(a.GetResource(), a.GetNamespace(), pa.GetName())
	if err != nil {
		return true, nil, err
	}
	orig, _ := json.Marshal(cur)
	patched, err := strategicpatch.StrategicMergePatch(orig, pa.GetPatch(), cur)
	if err != nil {
		return true, nil, apierrors.NewBadRequest(err.Error())
	}
	obj := cur.DeepCopyObject()
	if err := json.Unmarshal(patched, obj); err != nil {
		return true, nil, err
	}
	m, _ := meta.Accessor(obj)
	m.SetResourceVersion(s.next())
	if err := s.cs.Tracker().Update(a.GetResource(), obj, a.GetNamespace()); err != nil {
		return true, nil, err
	}
	return true, obj, nil
}

// keepOther applies what an apiserver's update strategy keeps: a status
// write keeps the stored spec and labels, a main write keeps the stored
// status.
func keepOther(cur, sent runtime.Object, status bool) runtime.Object {
	switch c := cur.(type) {
	case *appsv1.Deployment:
		d := sent.(*appsv1.Deployment)
		if status {
			d.Spec, d.Labels = c.Spec, c.Labels
		} else {
			d.Status = c.Status
		}
		return d
	case *appsv1.ReplicaSet:
		rs := sent.(*appsv1.ReplicaSet)
		if status {
			rs.Spec, rs.Labels = c.Spec, c.Labels
		} else {
			rs.Status = c.Status
		}
		return rs
	}
	return sent
}
