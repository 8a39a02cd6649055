package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/examples/controller/applier"
	"github.com/deploysync/deploysync/examples/controller/limits"
	"github.com/deploysync/deploysync/execute"
)

// maxRetries is how many times in a row a key may fail before it is dropped
// (upstream's value). The next event on the Deployment enqueues it again.
const maxRetries = 15

// podsByControllerUID indexes pods by the UID of their controlling
// ReplicaSet, the grouping State.Pods wants.
const podsByControllerUID = "deploysync.controllerUID"

// Controller syncs Deployments with deploysync.
type Controller struct {
	client   execute.Client
	dLister  appslisters.DeploymentLister
	rsLister appslisters.ReplicaSetLister
	pods     cache.Indexer
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[string]
	now      func() time.Time

	// written maps namespace/name to the resourceVersion of this
	// controller's last write of that Deployment, until the cache has it.
	written sync.Map
	// cacheWait bounds the wait for the cache to catch up with a write.
	cacheWait time.Duration

	// wg counts the running workers, so Run returns only after they stop.
	wg sync.WaitGroup
	// syncOptions are passed to every Sync (see SetSyncOptions).
	syncOptions []deploysync.Option
	// fixes are turned on in every Sync (see SetFixes).
	fixes []deploysync.Fix

	// limited is set by EnableLimits; limitedClient writes the plans of
	// limited Deployments (see package limits).
	limited       bool
	limitedClient execute.Client
}

// SetSyncOptions sets the options of every Sync, such as the server's
// minor ([applier.ServerVersion]). Call it before Run.
func (c *Controller) SetSyncOptions(opts ...deploysync.Option) { c.syncOptions = opts }

// SetFixes turns on corrections of upstream bugs in every Sync
// ([deploysync.WithFixes]), beside the options of SetSyncOptions; with none
// (the default) the controller decides as kube-controller-manager does,
// bugs included. Call it before Run. An unknown Fix fails every sync: check
// names first ([applier.Fixes] does for a flag).
func (c *Controller) SetFixes(fixes ...deploysync.Fix) { c.fixes = slices.Clone(fixes) }

// New wires a controller to the informers (not yet started: it adds its
// event handlers and a pod index) and to a client and a recorder for its
// writes and events. The recorder's component should be
// [applier.Component].
func New(client kubernetes.Interface, dInformer appsinformers.DeploymentInformer, rsInformer appsinformers.ReplicaSetInformer,
	podInformer coreinformers.PodInformer, recorder record.EventRecorder) (*Controller, error) {
	c := &Controller{
		dLister:  dInformer.Lister(),
		rsLister: rsInformer.Lister(),
		pods:     podInformer.Informer().GetIndexer(),
		synced: []cache.InformerSynced{
			dInformer.Informer().HasSynced, rsInformer.Informer().HasSynced, podInformer.Informer().HasSynced,
		},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "deploysync"}),
		now:       time.Now,
		cacheWait: time.Second,
	}
	// AlreadyExists is answered from the lister, as upstream answers it.
	base := &applier.Applier{Client: client, Recorder: recorder}
	cached := func(_ context.Context, ns, name string) (*appsv1.ReplicaSet, error) {
		return c.rsLister.ReplicaSets(ns).Get(name)
	}
	c.client = applier.WithCache(base, cached)
	c.limitedClient = applier.WithCache(limits.Client{Client: base, Now: func() time.Time { return c.now() }}, cached)
	if err := podInformer.Informer().AddIndexers(cache.Indexers{podsByControllerUID: indexByControllerUID}); err != nil {
		return nil, fmt.Errorf("adding the pod index: %w", err)
	}
	handlers := []struct {
		informer cache.SharedIndexInformer
		funcs    cache.ResourceEventHandlerFuncs
	}{
		{dInformer.Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc:    c.enqueue,
			UpdateFunc: func(_, cur any) { c.enqueue(cur) },
			DeleteFunc: c.enqueue,
		}},
		{rsInformer.Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc:    c.addReplicaSet,
			UpdateFunc: c.updateReplicaSet,
			DeleteFunc: c.deleteReplicaSet,
		}},
		{podInformer.Informer(), cache.ResourceEventHandlerFuncs{
			DeleteFunc: c.deletePod,
		}},
	}
	for _, h := range handlers {
		if _, err := h.informer.AddEventHandler(h.funcs); err != nil {
			return nil, fmt.Errorf("adding event handlers: %w", err)
		}
	}
	return c, nil
}

func indexByControllerUID(obj any) ([]string, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, nil
	}
	ref := metav1.GetControllerOfNoCopy(pod)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return nil, nil
	}
	return []string{string(ref.UID)}, nil
}

// Run waits for the informers' caches, then runs workers until ctx is done,
// and returns once they have stopped.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	logger := klog.FromContext(ctx)
	logger.Info("Starting deploysync controller")
	defer logger.Info("Shutting down deploysync controller")
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return
	}
	for range workers {
		c.wg.Go(func() { wait.UntilWithContext(ctx, c.worker, time.Second) })
	}
	<-ctx.Done()
	c.queue.ShutDown()
	c.wg.Wait()
}

func (c *Controller) worker(ctx context.Context) {
	for c.processNextWorkItem(ctx) {
	}
}

// processNextWorkItem takes one key from the queue, syncs it and requeues it
// as the result asks. It returns false when the queue is shutting down.
func (c *Controller) processNextWorkItem(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	res, err := c.Sync(ctx, key)
	c.handleResult(ctx, key, res, err)
	return true
}

func (c *Controller) handleResult(ctx context.Context, key string, res execute.Result, err error) {
	logger := klog.FromContext(ctx)
	switch {
	case err == nil:
		c.queue.Forget(key)
	case apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		c.queue.Forget(key)
		return
	case c.queue.NumRequeues(key) < maxRetries:
		logger.V(2).Info("Error syncing deployment; retrying", "deployment", key, "err", err)
		c.queue.AddRateLimited(key)
		return
	default:
		logger.Info("Dropping deployment out of the queue", "deployment", key, "err", err)
		c.queue.Forget(key)
		utilruntime.HandleErrorWithContext(ctx, err, "Dropping deployment out of the queue", "deployment", key)
		return
	}
	switch {
	case res.Requeue:
		c.queue.AddRateLimited(key)
	case res.RequeueAfter > 0:
		c.queue.AddAfter(key, res.RequeueAfter)
	}
}

// Sync syncs the Deployment with the key namespace/name once: it waits
// until the cache holds its own last write of the Deployment (see
// awaitCache), reads the listers, asks deploysync.Sync for a plan and
// performs it with execute.Plan. It returns execute.Plan's result (what
// was done, how to requeue) and the first failure (the plan's Err
// included). A Deployment that is gone, or one Sync refuses as invalid, is
// not an error: retrying would not help, and the next change of the object
// enqueues it again. After EnableLimits, only limited Deployments are
// synced, each as EnableLimits says.
func (c *Controller) Sync(ctx context.Context, key string) (execute.Result, error) {
	logger := klog.FromContext(ctx)
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return execute.Result{}, err
	}
	c.awaitCache(ctx, key, ns, name)
	d, err := c.dLister.Deployments(ns).Get(name)
	if apierrors.IsNotFound(err) {
		logger.V(4).Info("Deployment has been deleted", "deployment", key)
		return execute.Result{}, nil
	}
	if err != nil {
		return execute.Result{}, err
	}
	if c.limited {
		return c.syncLimited(ctx, key, d)
	}
	return c.syncWith(ctx, key, d, c.client, c.syncOptions...)
}

// syncWith is one Sync of d (the lister's, or a view of it) with the given
// options, performed through client.
func (c *Controller) syncWith(ctx context.Context, key string, d *appsv1.Deployment, client execute.Client, opts ...deploysync.Option) (execute.Result, error) {
	logger := klog.FromContext(ctx)
	rss, err := c.rsLister.ReplicaSets(d.Namespace).List(labels.Everything())
	if err != nil {
		return execute.Result{}, err
	}
	var pods map[types.UID][]*corev1.Pod
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		if pods, err = c.podsOf(rss); err != nil {
			return execute.Result{}, err
		}
	}
	if len(c.fixes) > 0 {
		opts = append(opts[:len(opts):len(opts)], deploysync.WithFixes(c.fixes...))
	}
	st := deploysync.State{Deployment: d, ReplicaSets: rss, Pods: pods, Now: c.now()}
	plan, err := deploysync.Sync(st, opts...)
	if errors.Is(err, deployutil.ErrInvalidInput) {
		logger.Error(err, "Deployment not synced", "deployment", key)
		return execute.Result{}, nil
	}
	if err != nil {
		return execute.Result{}, err
	}
	logger.V(4).Info("Applying plan", "deployment", key, "plan", plan.String())
	res, err := execute.Plan(ctx, client, st, plan)
	if res.Written != nil {
		c.written.Store(key, res.Written.ResourceVersion)
	}
	return res, err
}

// podsOf groups the cached pods by the UID of their controlling ReplicaSet,
// for the given ReplicaSets only (every one gets an entry).
func (c *Controller) podsOf(rss []*appsv1.ReplicaSet) (map[types.UID][]*corev1.Pod, error) {
	pods := make(map[types.UID][]*corev1.Pod, len(rss))
	for _, rs := range rss {
		objs, err := c.pods.ByIndex(podsByControllerUID, string(rs.UID))
		if err != nil {
			return nil, err
		}
		list := make([]*corev1.Pod, 0, len(objs))
		for _, o := range objs {
			if p := o.(*corev1.Pod); p.Namespace == rs.Namespace {
				list = append(list, p)
			}
		}
		pods[rs.UID] = list
	}
	return pods, nil
}

// awaitCache waits, for at most c.cacheWait, until the Deployment cache
// holds this controller's last write of the Deployment key (or a later
// version). Without it, a sync that follows its predecessor within
// milliseconds reads the Deployment as it was before that write, and its
// own status write fails with a conflict. Upstream's controller has the
// same race and sometimes loses the write that records
// Progressing=NewReplicaSetCreated to it (e2e/scenarios_test.go measures
// it); ours avoids the race rather than reproduce its odds. The decisions
// are unchanged: Sync sees the state the apiserver already has.
func (c *Controller) awaitCache(ctx context.Context, key, ns, name string) {
	v, ok := c.written.LoadAndDelete(key)
	if !ok {
		return
	}
	want := v.(string)
	deadline := time.Now().Add(c.cacheWait)
	for {
		d, err := c.dLister.Deployments(ns).Get(name)
		if err != nil {
			return
		}
		cmp, err := resourceversion.CompareResourceVersion(d.ResourceVersion, want)
		if err != nil || cmp >= 0 || ctx.Err() != nil || time.Now().After(deadline) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}
