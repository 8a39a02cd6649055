package upstream

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/kubernetes/pkg/controller/deployment"
)

// Input is the state one upstream sync sees: the contents of its informer
// caches, the time and the feature gate.
type Input struct {
	// Deployment is the Deployment to sync.
	Deployment *appsv1.Deployment
	// ReplicaSets is every ReplicaSet in the namespace, in the order the
	// cache lists them (this is the order of adopt and release patches).
	ReplicaSets []*appsv1.ReplicaSet
	// Pods holds pods by the UID of their controlling ReplicaSet; each pod
	// must carry a matching controller ownerReference, since upstream finds
	// pods by ownerReference, not by this map.
	Pods map[types.UID][]*corev1.Pod
	// Now is the time every clock upstream reads returns during the run. It
	// must be set.
	Now time.Time
	// TerminatingReplicas is the value of the feature gate
	// DeploymentReplicaSetTerminatingReplicas (on by default in v1.37).
	TerminatingReplicas bool
	// LaggingCache makes the ReplicaSet lister answer a Get by name with the
	// object as the input gave it, as a cache that has not yet delivered the
	// sync's own adopt and release patches does. By default it answers with
	// the object as the sync's writes left it (see lister.go); the two differ
	// only when the new ReplicaSet's name is held by a ReplicaSet the same
	// sync released (deploysync.WithLaggingCache is the library's side).
	LaggingCache bool
}

// Event is an event upstream recorded on the Deployment.
type Event struct {
	Type, Reason, Message string
}

// Outcome is what one upstream sync intended, replayed as intents on the
// input state (see the package documentation for the replay rules).
//
// Objects in the Outcome went through JSON, as they would through an
// apiserver: timestamps have whole-second precision and are given in UTC.
// Input objects keep the caller's resourceVersion; created objects have none.
type Outcome struct {
	// Deployment is the Deployment after the sync's writes.
	Deployment *appsv1.Deployment
	// ReplicaSets are the ReplicaSets after the sync's writes: the input
	// order with deleted ones removed, then created ones in creation order.
	ReplicaSets []*appsv1.ReplicaSet
	// Events are the recorded events, in order.
	Events []Event
	// Err is what syncDeployment returned.
	Err error
	// RequeueRateLimited reports that the sync called AddRateLimited on its
	// queue (a progress deadline less than a second away).
	RequeueRateLimited bool
	// RequeueAfter is the delay the sync passed to AddAfter, 0 if none.
	RequeueAfter time.Duration
	// Actions is a log of every client and queue call, one line each, for
	// diagnostics; updates show the change they were replayed as.
	Actions []string
}

// Run runs upstream's syncDeployment once on in and reports its intents.
//
// The error is for failures of the runner itself (bad input, a client call
// the runner does not model); upstream's own error is in Outcome.Err.
// Run is not safe for concurrent use: it sets process-wide clocks and the
// feature gate for its duration.
func Run(in Input) (Outcome, error) {
	if in.Deployment == nil {
		return Outcome{}, errors.New("upstream.Run: Input.Deployment is nil")
	}
	if in.Now.IsZero() {
		return Outcome{}, errors.New("upstream.Run: Input.Now is not set")
	}
	if err := setTerminatingReplicasGate(in.TerminatingReplicas); err != nil {
		return Outcome{}, err
	}
	restore := pinClocks(in.Now)
	defer restore()

	st := newStore()
	ctx := context.Background()
	client := newClient(st)
	factory := informers.NewSharedInformerFactory(client, 0)
	dInf := factory.Apps().V1().Deployments()
	rsInf := orderedRSInformer{ReplicaSetInformer: factory.Apps().V1().ReplicaSets(), rank: map[string]int{}}
	if !in.LaggingCache {
		rsInf.current = st.currentReplicaSet
	}
	podInf := factory.Core().V1().Pods()
	dc, err := deployment.NewDeploymentController(ctx, dInf, rsInf, podInf, client)
	if err != nil {
		return Outcome{}, fmt.Errorf("upstream.Run: building the controller: %w", err)
	}
	events := &eventLog{}
	queue := &queueLog{log: &st.actions}
	if err := instrument(dc, events, queue); err != nil {
		return Outcome{}, fmt.Errorf("upstream.Run: %w", err)
	}

	d := in.Deployment.DeepCopy()
	if err := st.add(resDeployments, d, d); err != nil {
		return Outcome{}, fmt.Errorf("upstream.Run: %w", err)
	}
	if err := dInf.Informer().GetIndexer().Add(d); err != nil {
		return Outcome{}, fmt.Errorf("upstream.Run: caching the Deployment: %w", err)
	}
	for i, src := range in.ReplicaSets {
		rs := src.DeepCopy()
		if err := st.add(resReplicaSets, rs, rs); err != nil {
			return Outcome{}, fmt.Errorf("upstream.Run: %w", err)
		}
		rsInf.rank[rs.Namespace+"/"+rs.Name] = i
		if err := rsInf.Informer().GetIndexer().Add(rs); err != nil {
			return Outcome{}, fmt.Errorf("upstream.Run: caching ReplicaSet %s: %w", rs.Name, err)
		}
	}
	podIndexer := podInf.Informer().GetIndexer()
	for _, pods := range in.Pods {
		for _, p := range pods {
			if _, exists, _ := podIndexer.Get(p); exists {
				return Outcome{}, fmt.Errorf("upstream.Run: duplicate pod %s/%s", p.Namespace, p.Name)
			}
			if err := podIndexer.Add(p.DeepCopy()); err != nil {
				return Outcome{}, fmt.Errorf("upstream.Run: caching pod %s: %w", p.Name, err)
			}
		}
	}

	syncErr := callSync(ctx, dc, d.Namespace+"/"+d.Name)
	if p, ok := syncErr.(panicError); ok {
		return Outcome{Actions: st.actions}, fmt.Errorf("upstream.Run: syncDeployment panicked: %v\n%s", p.value, p.stack)
	}

	out := Outcome{
		Events:             events.events,
		Err:                syncErr,
		RequeueRateLimited: queue.rateLimited,
		RequeueAfter:       queue.after,
		Actions:            st.actions,
	}
	if err := st.fill(&out, storeKey{resDeployments, d.Namespace, d.Name}); err != nil {
		return out, fmt.Errorf("upstream.Run: %w", err)
	}
	if len(st.unexpected) > 0 {
		return out, fmt.Errorf("upstream.Run: calls the runner does not model: %s", strings.Join(st.unexpected, "; "))
	}
	return out, nil
}

// panicError carries a panic of upstream's out of callSync.
type panicError struct {
	value any
	stack []byte
}

func (p panicError) Error() string { return fmt.Sprint("panic: ", p.value) }

// callSync calls upstream's syncDeployment, turning a panic into a
// panicError: upstream dereferences fields the apiserver would have
// defaulted, such as spec.replicas.
func callSync(ctx context.Context, dc *deployment.DeploymentController, key string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError{value: r, stack: debug.Stack()}
		}
	}()
	return syncDeployment(dc, ctx, key)
}

// newClient returns a fake clientset whose every call is answered by st: its
// reactor comes first and handles everything, so the fake's own object
// tracker is never consulted.
func newClient(st *store) *fake.Clientset {
	client := fake.NewClientset()
	client.PrependReactor("*", "*", st.react)
	return client
}

// instrument swaps the controller's event recorder and queue for recording
// ones, and stops the goroutines the originals started.
func instrument(dc *deployment.DeploymentController, events record.EventRecorder, queue workqueue.TypedRateLimitingInterface[string]) error {
	if _, err := replaceField(dc, "eventRecorder", events); err != nil {
		return err
	}
	old, err := replaceField(dc, "queue", queue)
	if err != nil {
		return err
	}
	if q, ok := old.(workqueue.TypedRateLimitingInterface[string]); ok && q != nil {
		q.ShutDown()
	}
	b, err := ctrlField(dc, "eventBroadcaster")
	if err != nil {
		return err
	}
	if eb, ok := b.Interface().(record.EventBroadcaster); ok && eb != nil {
		eb.Shutdown()
	}
	return nil
}

// fill sets the objects of out from the store.
func (s *store) fill(out *Outcome, dKey storeKey) error {
	e, ok := s.objects[dKey]
	if !ok {
		return fmt.Errorf("the Deployment is no longer stored")
	}
	d := &appsv1.Deployment{}
	if err := s.export(e, d); err != nil {
		return err
	}
	out.Deployment = d
	for _, key := range s.rsOrder {
		e, ok := s.objects[key]
		if !ok {
			continue // deleted
		}
		rs := &appsv1.ReplicaSet{}
		if err := s.export(e, rs); err != nil {
			return err
		}
		out.ReplicaSets = append(out.ReplicaSets, rs)
	}
	return nil
}

// export decodes a stored object into out, restores the caller's
// resourceVersion and puts every timestamp in UTC.
func (s *store) export(e *entry, out metav1.Object) error {
	if err := fromObject(e.obj, out); err != nil {
		return fmt.Errorf("decoding %s: %w", out.GetName(), err)
	}
	if e.created {
		out.SetResourceVersion("")
	} else {
		out.SetResourceVersion(e.origRV)
	}
	timesToUTC(reflect.ValueOf(out))
	return nil
}

var metav1TimeType = reflect.TypeFor[metav1.Time]()

// timesToUTC rewrites every metav1.Time reachable from v through pointers,
// structs and slices in UTC, so outcomes do not depend on the local zone.
func timesToUTC(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			timesToUTC(v.Elem())
		}
	case reflect.Struct:
		if v.Type() == metav1TimeType {
			if v.CanSet() {
				t := v.Addr().Interface().(*metav1.Time)
				if !t.IsZero() {
					t.Time = t.UTC()
				}
			}
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				timesToUTC(v.Field(i))
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			timesToUTC(v.Index(i))
		}
	}
}
