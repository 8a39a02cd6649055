package reconciler

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlfake "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/examples/controller/applier"
)

func TestReconcile(t *testing.T) {
	web := deployutil.SetDefaults(&appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "d-uid", Generation: 1},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	})
	mismatched := web.DeepCopy()
	mismatched.Spec.Template.Labels = map[string]string{"app": "other"}
	tests := []struct {
		name     string
		stored   *appsv1.Deployment
		creates  int
		terminal bool
		reason   string
	}{
		{name: "new Deployment", stored: web, creates: 1,
			reason: "no ReplicaSet yet: the plan creates one, the applier sends it"},
		{name: "gone", reason: "a Deployment deleted since the event is not an error"},
		{name: "invalid", stored: mismatched, terminal: true,
			reason: "a selector that does not match the template: Sync refuses, retrying cannot help"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			cache := ctrlfake.NewClientBuilder().WithScheme(scheme.Scheme)
			cs := fake.NewClientset()
			if tt.stored != nil {
				cache = cache.WithObjects(tt.stored.DeepCopy())
				cs = fake.NewClientset(tt.stored.DeepCopy())
			}
			r := &Reconciler{Client: cache.Build(), Applier: &applier.Applier{Client: cs, Recorder: record.NewFakeRecorder(10)}}
			_, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "web"}})
			if got := errors.Is(err, reconcile.TerminalError(nil)); got != tt.terminal || (!tt.terminal && err != nil) {
				t.Fatalf("Reconcile error = %v, want terminal %v (%s)", err, tt.terminal, tt.reason)
			}
			creates := 0
			for _, a := range cs.Actions() {
				if a.GetVerb() == "create" && a.GetResource().Resource == "replicasets" {
					creates++
				}
			}
			if creates != tt.creates {
				t.Errorf("%d replicasets created, want %d (%s)", creates, tt.creates, tt.reason)
			}
		})
	}
}

// stubCache is a cache whose Deployment the test changes; everything else
// comes from the embedded client.
type stubCache struct {
	client.Client
	mu sync.Mutex
	d  *appsv1.Deployment
}

func (c *stubCache) set(d *appsv1.Deployment) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.d = d.DeepCopy()
}

func (c *stubCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if d, ok := obj.(*appsv1.Deployment); ok {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.d.DeepCopyInto(d)
		return nil
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

// TestAwaitCache checks that a reconcile waits for the cache to hold the
// reconciler's last write of the Deployment, and no longer than that.
func TestAwaitCache(t *testing.T) {
	key := types.NamespacedName{Namespace: "ns", Name: "web"}
	withRV := func(rv string) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", ResourceVersion: rv}}
	}
	// setup returns a reconciler whose cache holds the Deployment at
	// cached, after a write the server answered with written.
	setup := func(cached, written string, wait time.Duration) (*Reconciler, *stubCache) {
		c := &stubCache{Client: ctrlfake.NewClientBuilder().WithScheme(scheme.Scheme).Build()}
		c.set(withRV(cached))
		r := &Reconciler{Client: c, cacheWait: wait}
		r.written.Store(key, written)
		return r, c
	}
	returns := func(t *testing.T, r *Reconciler, why string) {
		t.Helper()
		done := make(chan struct{})
		go func() { r.awaitCache(context.Background(), key); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal(why)
		}
	}
	t.Run("waits until the write arrives", func(t *testing.T) {
		r, c := setup("5", "7", time.Minute)
		go func() {
			time.Sleep(20 * time.Millisecond)
			c.set(withRV("7"))
		}()
		r.awaitCache(context.Background(), key)
		var d appsv1.Deployment
		if err := c.Get(context.Background(), key, &d); err != nil || d.ResourceVersion != "7" {
			t.Fatalf("returned with the cache at %q (%v), want resourceVersion 7", d.ResourceVersion, err)
		}
		if _, ok := r.written.Load(key); ok {
			t.Fatal("the record of the write was not consumed")
		}
	})
	t.Run("a newer version in the cache needs no wait", func(t *testing.T) {
		r, _ := setup("9", "7", time.Hour)
		returns(t, r, "awaitCache waited for an older version than the cache holds")
	})
	t.Run("gives up after cacheWait", func(t *testing.T) {
		r, _ := setup("5", "7", 10*time.Millisecond)
		returns(t, r, "awaitCache did not give up")
	})
}

// TestReconcileRecordsItsWrites checks that Reconcile notes the Deployment
// it wrote, as the server answered it (execute.Plan's Result.Written), for the
// next reconcile to wait for.
func TestReconcileRecordsItsWrites(t *testing.T) {
	d := deployutil.SetDefaults(&appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "d-uid", Generation: 1},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	})
	d.ResourceVersion = "3"
	cs := fake.NewClientset(d.DeepCopy())
	cs.PrependReactor("update", "deployments", func(a k8stesting.Action) (bool, runtime.Object, error) {
		out := a.(k8stesting.UpdateAction).GetObject().(*appsv1.Deployment).DeepCopy()
		out.ResourceVersion = "8"
		return true, out, nil
	})
	a := &applier.Applier{Client: cs, Recorder: record.NewFakeRecorder(10)}
	r := &Reconciler{Client: ctrlfake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(d.DeepCopy()).Build(), Applier: a}
	key := types.NamespacedName{Namespace: "ns", Name: "web"}
	if _, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: key}); err != nil {
		t.Fatal(err)
	}
	if v, ok := r.written.Load(key); !ok || v != "8" {
		t.Errorf("recorded write %v (%v), want resourceVersion 8: the status update after the create", v, ok)
	}
}

// TestReconcileWithRuntime wires the reconciler to the controller-runtime
// implementation of execute.Client, as cmd/deploysync-reconciler does,
// on controller-runtime's fake client as both cache and server: a new
// Deployment gets its ReplicaSet and its status, and the status write is
// noted for awaitCache.
func TestReconcileWithRuntime(t *testing.T) {
	d := deployutil.SetDefaults(&appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "d-uid", Generation: 1},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	})
	c := ctrlfake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(d).
		WithStatusSubresource(&appsv1.Deployment{}, &appsv1.ReplicaSet{}).Build()
	r := &Reconciler{Client: c, Applier: &applier.Runtime{Client: c, APIReader: c, Recorder: record.NewFakeRecorder(10)}}
	key := types.NamespacedName{Namespace: "ns", Name: "web"}
	if _, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: key}); err != nil {
		t.Fatal(err)
	}
	var rss appsv1.ReplicaSetList
	if err := c.List(context.Background(), &rss); err != nil || len(rss.Items) != 1 || *rss.Items[0].Spec.Replicas != 2 {
		t.Fatalf("replicasets %v (%v), want one of 2 replicas", rss.Items, err)
	}
	var got appsv1.Deployment
	if err := c.Get(context.Background(), key, &got); err != nil {
		t.Fatal(err)
	}
	if got.Status.ObservedGeneration != 1 {
		t.Errorf("status %+v, want the plan's status written", got.Status)
	}
	if v, ok := r.written.Load(key); !ok || v != got.ResourceVersion {
		t.Errorf("recorded write %v (%v), want the stored resourceVersion %s", v, ok, got.ResourceVersion)
	}
}
