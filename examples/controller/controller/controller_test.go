package controller

import (
	"context"
	"errors"
	"sort"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/execute"
)

// TestHandleResult checks how a sync's outcome requeues its key.
func TestHandleResult(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "replicasets"}, "x", errors.New("modified"))
	terminating := &apierrors.StatusError{ErrStatus: metav1.Status{Reason: metav1.StatusReasonForbidden,
		Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause}}}}}
	tests := []struct {
		name        string
		res         execute.Result
		err         error
		failedSoFar int           // rate-limited requeues before this one
		numRequeues int           // the key's rate-limit count after handling
		backAfter   time.Duration // the key is queued again after this long; 0: never
		reason      string
	}{
		{name: "done", reason: "a sync with nothing to look at later forgets the key"},
		{name: "conflict", err: conflict, numRequeues: 1, backAfter: 5 * time.Millisecond,
			reason: "a 409 is retried with rate limiting (5ms for the first failure)"},
		{name: "conflict again", err: conflict, failedSoFar: 3, numRequeues: 4, backAfter: 40 * time.Millisecond,
			reason: "the delay doubles with each failure in a row"},
		{name: "requeue", res: execute.Result{Requeue: true}, numRequeues: 1, backAfter: 5 * time.Millisecond,
			reason: "Result.Requeue (the plan's deadline less than a second away, or its Err) is a rate-limited requeue"},
		{name: "requeue after", res: execute.Result{RequeueAfter: 30 * time.Second}, backAfter: 30 * time.Second,
			reason: "Result.RequeueAfter (the plan's) is AddAfter, and the failure count is reset"},
		{name: "namespace terminating", err: terminating,
			reason: "writes into a terminating namespace are not retried, as upstream"},
		{name: "too many failures", err: conflict, failedSoFar: maxRetries,
			reason: "after 15 failures in a row the key is dropped until its next event"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			clk := clocktesting.NewFakeClock(time.Now())
			q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
				workqueue.TypedRateLimitingQueueConfig[string]{Clock: clk})
			defer q.ShutDown()
			c := &Controller{queue: q}
			for range tt.failedSoFar {
				q.AddRateLimited("ns/web")
			}
			// Drain what those left, so only this result's requeue counts.
			clk.Step(time.Hour)
			for q.Len() > 0 || waitLen(q, 1, 50*time.Millisecond) {
				k, _ := q.Get()
				q.Done(k)
			}
			c.handleResult(context.Background(), "ns/web", tt.res, tt.err)
			if got := q.NumRequeues("ns/web"); got != tt.numRequeues {
				t.Errorf("NumRequeues = %d, want %d (%s)", got, tt.numRequeues, tt.reason)
			}
			if tt.backAfter == 0 {
				clk.Step(time.Hour)
				if waitLen(q, 1, 100*time.Millisecond) {
					t.Errorf("key queued again, want not (%s)", tt.reason)
				}
				return
			}
			clk.Step(tt.backAfter - time.Millisecond)
			if waitLen(q, 1, 50*time.Millisecond) {
				t.Errorf("key back before %v (%s)", tt.backAfter, tt.reason)
			}
			clk.Step(time.Millisecond)
			if !waitLen(q, 1, 5*time.Second) {
				t.Errorf("key not back after %v (%s)", tt.backAfter, tt.reason)
			}
		})
	}
}

// waitLen reports whether the queue reaches n items within d (the delaying
// queue moves items on its own goroutine).
func waitLen(q workqueue.TypedRateLimitingInterface[string], n int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if q.Len() >= n {
			return true
		}
		time.Sleep(time.Millisecond)
	}
	return false
}

// TestHandlers checks which Deployments an event wakes.
func TestHandlers(t *testing.T) {
	web := dep("web", "d-web", map[string]string{"app": "web"}, appsv1.RollingUpdateDeploymentStrategyType)
	web2 := dep("web2", "d-web2", map[string]string{"app": "web"}, appsv1.RollingUpdateDeploymentStrategyType)
	batch := dep("batch", "d-batch", map[string]string{"app": "batch"}, appsv1.RecreateDeploymentStrategyType)
	owned := rs("web-1", "rs-1", map[string]string{"app": "web"}, web)
	orphanRS := rs("stray", "rs-2", map[string]string{"app": "web"}, nil)
	batchRS := rs("batch-1", "rs-3", map[string]string{"app": "batch"}, batch)
	staleRef := rs("web-old", "rs-4", map[string]string{"app": "web"}, dep("web", "an-older-web", nil, ""))
	relabeled := orphanRS.DeepCopy()
	relabeled.ResourceVersion, relabeled.Labels = "2", map[string]string{"app": "batch"}
	released := owned.DeepCopy()
	released.ResourceVersion, released.OwnerReferences = "2", nil
	deleting := owned.DeepCopy()
	deleting.DeletionTimestamp = ptr.To(metav1.Now())

	tests := []struct {
		name   string
		event  func(c *Controller)
		want   []string
		reason string
	}{
		{name: "add owned", event: func(c *Controller) { c.addReplicaSet(owned) }, want: []string{"ns/web"},
			reason: "a controlled ReplicaSet wakes its controller only"},
		{name: "add orphan", event: func(c *Controller) { c.addReplicaSet(orphanRS) }, want: []string{"ns/web", "ns/web2"},
			reason: "an orphan wakes every Deployment whose selector matches its labels"},
		{name: "add with stale ref", event: func(c *Controller) { c.addReplicaSet(staleRef) },
			reason: "a controller reference whose UID is not the cached Deployment's resolves to nothing"},
		{name: "add being deleted", event: func(c *Controller) { c.addReplicaSet(deleting) }, want: []string{"ns/web"},
			reason: "a ReplicaSet first seen while being deleted is handled as a deletion"},
		{name: "resync", event: func(c *Controller) { c.updateReplicaSet(owned, owned) },
			reason: "an update with the same resourceVersion is a resync and wakes nobody"},
		{name: "orphan relabeled", event: func(c *Controller) { c.updateReplicaSet(orphanRS, relabeled) }, want: []string{"ns/batch"},
			reason: "an orphan whose labels changed wakes the Deployments matching its new labels"},
		{name: "released", event: func(c *Controller) { c.updateReplicaSet(owned, released) }, want: []string{"ns/web", "ns/web2"},
			reason: "the old controller is woken, and the now-orphan's candidates (web again, web2)"},
		{name: "delete owned", event: func(c *Controller) { c.deleteReplicaSet(cache.DeletedFinalStateUnknown{Key: "ns/web-1", Obj: owned}) },
			want: []string{"ns/web"}, reason: "a deletion (even from a tombstone) wakes the controller"},
		{name: "delete orphan", event: func(c *Controller) { c.deleteReplicaSet(orphanRS) },
			reason: "nobody cares about an orphan's deletion"},
		{name: "pod of a Recreate Deployment", event: func(c *Controller) { c.deletePod(pod(batchRS)) }, want: []string{"ns/batch"},
			reason: "Recreate waits for old pods to be gone, so a pod deletion wakes it"},
		{name: "pod of a RollingUpdate Deployment", event: func(c *Controller) { c.deletePod(pod(owned)) },
			reason: "RollingUpdate does not look at pods"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			c := newTestController(t, []*appsv1.Deployment{web, web2, batch}, []*appsv1.ReplicaSet{owned, orphanRS, batchRS, staleRef})
			tt.event(c)
			var got []string
			for c.queue.Len() > 0 {
				k, _ := c.queue.Get()
				got = append(got, k)
				c.queue.Done(k)
			}
			sort.Strings(got)
			if !equalStrings(got, tt.want) {
				t.Errorf("queued %v, want %v (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

func newTestController(t *testing.T, ds []*appsv1.Deployment, rss []*appsv1.ReplicaSet) *Controller {
	t.Helper()
	f := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	c, err := New(fake.NewClientset(), f.Apps().V1().Deployments(), f.Apps().V1().ReplicaSets(), f.Core().V1().Pods(), record.NewFakeRecorder(10))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if err := f.Apps().V1().Deployments().Informer().GetIndexer().Add(d); err != nil {
			t.Fatal(err)
		}
	}
	for _, rs := range rss {
		if err := f.Apps().V1().ReplicaSets().Informer().GetIndexer().Add(rs); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(c.queue.ShutDown)
	return c
}

func dep(name string, uid types.UID, sel map[string]string, strategy appsv1.DeploymentStrategyType) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: uid},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: sel},
			Strategy: appsv1.DeploymentStrategy{Type: strategy}},
	}
}

func rs(name string, uid types.UID, labels map[string]string, owner *appsv1.Deployment) *appsv1.ReplicaSet {
	r := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: uid, Labels: labels, ResourceVersion: "1"}}
	if owner != nil {
		r.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(owner, appsv1.SchemeGroupVersion.WithKind("Deployment"))}
	}
	return r
}

func pod(owner *appsv1.ReplicaSet) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: owner.Name + "-p", Namespace: "ns",
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(owner, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}}}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestAwaitCache checks that a sync waits for the cache to hold the
// controller's last write of the Deployment, and no longer than that.
func TestAwaitCache(t *testing.T) {
	withRV := func(rv string) *appsv1.Deployment {
		d := dep("web", "d1", map[string]string{"app": "web"}, appsv1.RollingUpdateDeploymentStrategyType)
		d.ResourceVersion = rv
		return d
	}
	// setup returns a controller whose cache holds the Deployment at
	// cached, after a write the server answered with written.
	setup := func(t *testing.T, cached, written string, wait time.Duration) (*Controller, cache.Indexer) {
		t.Helper()
		f := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
		c, err := New(fake.NewClientset(), f.Apps().V1().Deployments(), f.Apps().V1().ReplicaSets(), f.Core().V1().Pods(), record.NewFakeRecorder(10))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.queue.ShutDown)
		idx := f.Apps().V1().Deployments().Informer().GetIndexer()
		if err := idx.Add(withRV(cached)); err != nil {
			t.Fatal(err)
		}
		c.cacheWait = wait
		c.written.Store("ns/web", written)
		return c, idx
	}
	t.Run("waits until the write arrives", func(t *testing.T) {
		c, idx := setup(t, "5", "7", time.Minute)
		go func() {
			time.Sleep(20 * time.Millisecond)
			_ = idx.Update(withRV("7"))
		}()
		c.awaitCache(context.Background(), "ns/web", "ns", "web")
		d, err := c.dLister.Deployments("ns").Get("web")
		if err != nil || d.ResourceVersion != "7" {
			t.Fatalf("returned with the cache at %v (%v), want resourceVersion 7", d, err)
		}
		if _, ok := c.written.Load("ns/web"); ok {
			t.Fatal("the record of the write was not consumed")
		}
	})
	t.Run("a newer version in the cache needs no wait", func(t *testing.T) {
		c, _ := setup(t, "9", "7", time.Hour)
		done := make(chan struct{})
		go func() { c.awaitCache(context.Background(), "ns/web", "ns", "web"); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("awaitCache waited for an older version than the cache holds")
		}
	})
	t.Run("gives up after cacheWait", func(t *testing.T) {
		c, _ := setup(t, "5", "7", 10*time.Millisecond)
		done := make(chan struct{})
		go func() { c.awaitCache(context.Background(), "ns/web", "ns", "web"); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("awaitCache did not give up")
		}
	})
}
