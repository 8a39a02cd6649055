// Package rsupstream runs one sync of kube-controller-manager v1.37.2's
// ReplicaSet controller (k8s.io/kubernetes/pkg/controller/replicaset) on a
// given ReplicaSet, pods and time, with a fake clientset whose reactors
// record every write, and reports what it did: the adoption and release
// patches, the pods created and deleted, the status written, the error it
// returned and how it requeued. The differential test beside it compares
// that with package replicaset of the library.
//
// How it gets at upstream: the controller comes from
// replicaset.NewReplicaSetController on informers that are never started;
// the inputs go straight into their indexers. The pod indexer is wrapped so
// that the controller lists pods in input order (an indexer's order is a
// map's). syncReplicaSet is unexported and reached with go:linkname; the
// clock, the queue, the pod control (for a recorder that drops events) and
// the consistency store (a no-op: nothing was written before) are swapped
// through reflect and unsafe; metav1.Now is pinned by the patched
// apimachinery's NowHook. Run is not safe for concurrent use.
//
// The fields whose names differ between minors are swapped in
// swapMinorFields, one file per shape behind a build tag, so that command
// record (rsupstream/record) builds this package against 1.33 to 1.36 too
// (hack/record-replicaset.sh); TestRecordedMinors checks the library
// against those recordings.
package rsupstream

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	core "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller"
	"k8s.io/kubernetes/pkg/controller/replicaset"
	"k8s.io/kubernetes/pkg/features"
)

//go:linkname syncReplicaSet k8s.io/kubernetes/pkg/controller/replicaset.(*ReplicaSetController).syncReplicaSet
func syncReplicaSet(rsc *replicaset.ReplicaSetController, ctx context.Context, key string) error

// Input is what one sync sees.
type Input struct {
	ReplicaSet *appsv1.ReplicaSet
	// ReplicaSets are the other ReplicaSets of the cache.
	ReplicaSets []*appsv1.ReplicaSet
	// Pods are the cache's pods in list order.
	Pods []*corev1.Pod
	Now  time.Time
	// TerminatingReplicas is the DeploymentReplicaSetTerminatingReplicas gate.
	TerminatingReplicas bool
	// ExpectationsPending makes the controller expect one create it has not
	// observed.
	ExpectationsPending bool
	// FailCreateAt makes the n-th create call (from 1) fail with FailMessage;
	// FailDelete makes the delete of that pod fail with it.
	FailCreateAt int
	FailDelete   string
	FailMessage  string
}

// Outcome is what the sync did.
type Outcome struct {
	Adopted, Released []string
	// Created is the number of create calls that succeeded; CreatedPod the
	// first pod sent.
	Created    int
	CreatedPod *corev1.Pod
	// Deleted is the pods whose delete call was made (sorted: the calls
	// are concurrent).
	Deleted []string
	// Status is the status sent, nil when none was.
	Status *appsv1.ReplicaSetStatus
	Err    string
	// RequeueAfter is the AddAfter duration, nil for none.
	RequeueAfter *time.Duration
}

type queue struct {
	workqueue.TypedRateLimitingInterface[string]
	after *time.Duration
}

func (q *queue) AddAfter(_ string, d time.Duration) { q.after = &d }
func (q *queue) Add(string)                         {}
func (q *queue) AddRateLimited(string)              {}

// orderedIndexer lists ByIndex and Index answers (the owner index of
// 1.34+, the namespace index a 1.33 lister reads) in input order.
type orderedIndexer struct {
	cache.Indexer
	pos map[types.UID]int
}

func (o orderedIndexer) sorted(objs []any, err error) ([]any, error) {
	sort.SliceStable(objs, func(i, j int) bool {
		return o.pos[objs[i].(*corev1.Pod).UID] < o.pos[objs[j].(*corev1.Pod).UID]
	})
	return objs, err
}

func (o orderedIndexer) ByIndex(name, value string) ([]any, error) {
	return o.sorted(o.Indexer.ByIndex(name, value))
}

func (o orderedIndexer) Index(name string, obj any) ([]any, error) {
	return o.sorted(o.Indexer.Index(name, obj))
}

func field(rsc *replicaset.ReplicaSetController, name string) reflect.Value {
	f := reflect.ValueOf(rsc).Elem().FieldByName(name)
	if !f.IsValid() {
		panic("ReplicaSetController has no field " + name)
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

var gate *bool

func setGate(on bool) error {
	if gate != nil && *gate == on {
		return nil
	}
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{string(features.DeploymentReplicaSetTerminatingReplicas): on}); err != nil {
		return err
	}
	gate = &on
	return nil
}

// Run runs one syncReplicaSet on in.
func Run(in Input) (Outcome, error) {
	var out Outcome
	if err := setGate(in.TerminatingReplicas); err != nil {
		return out, err
	}
	metav1.NowHook = func() time.Time { return in.Now }
	defer func() { metav1.NowHook = nil }()

	objs := []runtime.Object{in.ReplicaSet.DeepCopy()}
	client := fake.NewSimpleClientset(objs...)
	var mu sync.Mutex
	var creates atomic.Int64
	fail := errors.New(in.FailMessage)
	client.PrependReactor("create", "pods", func(a core.Action) (bool, runtime.Object, error) {
		n := int(creates.Add(1))
		if n == in.FailCreateAt {
			return true, nil, fail
		}
		pod := a.(core.CreateAction).GetObject().(*corev1.Pod)
		mu.Lock()
		defer mu.Unlock()
		out.Created++
		if out.CreatedPod == nil {
			out.CreatedPod = pod.DeepCopy()
		}
		return true, pod, nil
	})
	client.PrependReactor("delete", "pods", func(a core.Action) (bool, runtime.Object, error) {
		name := a.(core.DeleteAction).GetName()
		mu.Lock()
		out.Deleted = append(out.Deleted, name)
		mu.Unlock()
		if name == in.FailDelete {
			return true, nil, fail
		}
		return true, nil, nil
	})
	byName := map[string]*corev1.Pod{}
	for _, p := range in.Pods {
		if p.Namespace == in.ReplicaSet.Namespace {
			byName[p.Name] = p
		}
	}
	client.PrependReactor("patch", "pods", func(a core.Action) (bool, runtime.Object, error) {
		pa := a.(core.PatchAction)
		mu.Lock()
		defer mu.Unlock()
		if slices.Contains(pa.GetPatch(), '$') {
			out.Released = append(out.Released, pa.GetName())
		} else {
			out.Adopted = append(out.Adopted, pa.GetName())
		}
		return true, byName[pa.GetName()].DeepCopy(), nil
	})
	client.PrependReactor("update", "replicasets", func(a core.Action) (bool, runtime.Object, error) {
		ua := a.(core.UpdateAction)
		if ua.GetSubresource() != "status" {
			return true, nil, fmt.Errorf("unexpected update of replicasets")
		}
		rs := ua.GetObject().(*appsv1.ReplicaSet).DeepCopy()
		out.Status = &rs.Status
		return true, rs, nil
	})

	factory := informers.NewSharedInformerFactory(client, 0)
	rsInf, podInf := factory.Apps().V1().ReplicaSets(), factory.Core().V1().Pods()
	ctx := context.Background()
	rsc := replicaset.NewReplicaSetController(ctx, rsInf, podInf, client, replicaset.BurstReplicas)
	if err := rsInf.Informer().GetIndexer().Add(in.ReplicaSet); err != nil {
		return out, err
	}
	for _, rs := range in.ReplicaSets {
		if rs.Namespace == in.ReplicaSet.Namespace && rs.Name == in.ReplicaSet.Name {
			continue
		}
		if err := rsInf.Informer().GetIndexer().Add(rs); err != nil {
			return out, err
		}
	}
	pos := map[types.UID]int{}
	for i, p := range in.Pods {
		pos[p.UID] = i
		if err := podInf.Informer().GetIndexer().Add(p); err != nil {
			return out, err
		}
	}
	swapMinorFields(rsc, orderedIndexer{podInf.Informer().GetIndexer(), pos}, in.Now)
	q := &queue{}
	field(rsc, "queue").Set(reflect.ValueOf(workqueue.TypedRateLimitingInterface[string](q)))
	field(rsc, "podControl").Set(reflect.ValueOf(controller.PodControlInterface(controller.RealPodControl{KubeClient: client, Recorder: &record.FakeRecorder{}})))
	key := in.ReplicaSet.Namespace + "/" + in.ReplicaSet.Name
	if in.ExpectationsPending {
		exp := field(rsc, "expectations").Interface().(*controller.UIDTrackingControllerExpectations)
		if err := exp.ExpectCreations(klog.Background(), key, 1); err != nil {
			return out, err
		}
	}
	if err := syncReplicaSet(rsc, ctx, key); err != nil {
		out.Err = err.Error()
	}
	sort.Strings(out.Deleted)
	out.RequeueAfter = q.after
	return out, nil
}
