// Package reconciler is a Deployment controller built on deploysync with
// controller-runtime: a Reconciler that reads the cache, asks
// deploysync.Sync for a plan and performs it with execute.Plan
// through an execute.Client of the applier package.
//
// It watches what kube-controller-manager's Deployment controller watches:
// Deployments; the ReplicaSets they control (Owns); orphan ReplicaSets,
// for the Deployments that could adopt them; and pods, so that a Recreate
// rollout notices its old pods are gone.
package reconciler

import (
	"context"
	"errors"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/examples/controller/applier"
	"github.com/deploysync/deploysync/execute"
)

// Reconciler syncs one Deployment per request.
type Reconciler struct {
	// Client reads the manager's cache.
	Client client.Client
	// Applier performs the plans' API calls ([applier.Runtime] with the
	// manager's client, or [applier.Applier] with a clientset). Reconcile
	// answers AlreadyExists from Client, the cache the plans are made from
	// (see [applier.WithCache]).
	Applier execute.Client
	// SyncOptions are passed to every Sync, such as the server's minor
	// ([applier.ServerVersion]).
	SyncOptions []deploysync.Option
	// Fixes are turned on in every Sync ([deploysync.WithFixes]), beside
	// SyncOptions; with none the reconciler decides as
	// kube-controller-manager does, bugs included. An unknown Fix fails
	// every reconcile: check names first ([applier.Fixes] does for a flag).
	Fixes []deploysync.Fix

	// written maps namespace/name to the resourceVersion of this
	// reconciler's last write of that Deployment, until the cache has it.
	written sync.Map
	// cacheWait bounds the wait for the cache to catch up with a write;
	// zero means a second.
	cacheWait time.Duration
}

// Reconcile syncs the Deployment once. A plan's RequeueAfter is returned as
// such; its Requeue, its Err and failures to apply it are returned as
// errors, which controller-runtime retries with rate limiting. A
// Deployment Sync refuses as invalid is a terminal error.
//
// It first waits, for at most a second, until the cache holds its own last
// write of the Deployment, as the client-go controller does (see
// awaitCache).
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.awaitCache(ctx, req.NamespacedName)
	var d appsv1.Deployment
	if err := r.Client.Get(ctx, req.NamespacedName, &d); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	var rsList appsv1.ReplicaSetList
	if err := r.Client.List(ctx, &rsList, client.InNamespace(d.Namespace)); err != nil {
		return reconcile.Result{}, err
	}
	rss := make([]*appsv1.ReplicaSet, len(rsList.Items))
	for i := range rsList.Items {
		rss[i] = &rsList.Items[i]
	}
	var pods map[types.UID][]*corev1.Pod
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		var err error
		if pods, err = r.podsOf(ctx, d.Namespace, rss); err != nil {
			return reconcile.Result{}, err
		}
	}
	st := deploysync.State{Deployment: &d, ReplicaSets: rss, Pods: pods, Now: metav1.Now().Time}
	opts := r.SyncOptions
	if len(r.Fixes) > 0 {
		opts = append(opts[:len(opts):len(opts)], deploysync.WithFixes(r.Fixes...))
	}
	plan, err := deploysync.Sync(st, opts...)
	if errors.Is(err, deployutil.ErrInvalidInput) {
		return reconcile.Result{}, reconcile.TerminalError(err)
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	res, err := execute.Plan(ctx, applier.WithCache(r.Applier, r.cachedReplicaSet), st, plan)
	if res.Written != nil {
		// Noted for awaitCache.
		r.written.Store(req.NamespacedName, res.Written.ResourceVersion)
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	if res.Requeue {
		return reconcile.Result{}, errors.New("progress deadline less than a second away: sync again")
	}
	return reconcile.Result{RequeueAfter: res.RequeueAfter}, nil
}

// cachedReplicaSet reads a ReplicaSet from the cache, for AlreadyExists.
func (r *Reconciler) cachedReplicaSet(ctx context.Context, ns, name string) (*appsv1.ReplicaSet, error) {
	var rs appsv1.ReplicaSet
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &rs); err != nil {
		return nil, err
	}
	return &rs, nil
}

// awaitCache waits, for at most r.cacheWait, until the cache holds this
// reconciler's last write of the Deployment (or a later version). Without
// it, a reconcile that follows its predecessor within milliseconds reads
// the Deployment as it was before that write and its own status write
// fails with a conflict; kube-controller-manager has the same race and
// sometimes loses the write that records Progressing=NewReplicaSetCreated
// (e2e/scenarios_test.go, the Recreate scenario). The decisions are
// unchanged: Sync sees the state the apiserver already has.
func (r *Reconciler) awaitCache(ctx context.Context, key types.NamespacedName) {
	v, ok := r.written.LoadAndDelete(key)
	if !ok {
		return
	}
	want := v.(string)
	wait := r.cacheWait
	if wait == 0 {
		wait = time.Second
	}
	deadline := time.Now().Add(wait)
	for {
		var d appsv1.Deployment
		if err := r.Client.Get(ctx, key, &d); err != nil {
			return
		}
		c, err := resourceversion.CompareResourceVersion(d.ResourceVersion, want)
		if err != nil || c >= 0 || ctx.Err() != nil || time.Now().After(deadline) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// podsOf groups the namespace's pods by controlling ReplicaSet, for the
// given ReplicaSets (every one gets an entry).
func (r *Reconciler) podsOf(ctx context.Context, ns string, rss []*appsv1.ReplicaSet) (map[types.UID][]*corev1.Pod, error) {
	var list corev1.PodList
	if err := r.Client.List(ctx, &list, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	pods := make(map[types.UID][]*corev1.Pod, len(rss))
	for _, rs := range rss {
		pods[rs.UID] = []*corev1.Pod{}
	}
	for i := range list.Items {
		p := &list.Items[i]
		if ref := metav1.GetControllerOfNoCopy(p); ref != nil && ref.Kind == "ReplicaSet" {
			if _, ok := pods[ref.UID]; ok {
				pods[ref.UID] = append(pods[ref.UID], p)
			}
		}
	}
	return pods, nil
}

// SetupWithManager registers the reconciler and its watches.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("deploysync").
		For(&appsv1.Deployment{}).
		Owns(&appsv1.ReplicaSet{}).
		Watches(&appsv1.ReplicaSet{}, handler.EnqueueRequestsFromMapFunc(r.adopters)).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(r.recreateOwner)).
		Complete(r)
}

// adopters maps an orphan ReplicaSet to the Deployments whose selector
// matches its labels (Owns covers the controlled ones).
func (r *Reconciler) adopters(ctx context.Context, obj client.Object) []reconcile.Request {
	if metav1.GetControllerOfNoCopy(obj) != nil || len(obj.GetLabels()) == 0 {
		return nil
	}
	var ds appsv1.DeploymentList
	if err := r.Client.List(ctx, &ds, client.InNamespace(obj.GetNamespace())); err != nil {
		return nil
	}
	var out []reconcile.Request
	for _, d := range ds.Items {
		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err == nil && !sel.Empty() && sel.Matches(labels.Set(obj.GetLabels())) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&d)})
		}
	}
	return out
}

// recreateOwner maps a pod to the Deployment controlling its ReplicaSet,
// if that Deployment rolls out with Recreate.
func (r *Reconciler) recreateOwner(ctx context.Context, obj client.Object) []reconcile.Request {
	ref := metav1.GetControllerOfNoCopy(obj)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return nil
	}
	var rs appsv1.ReplicaSet
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: ref.Name}, &rs); err != nil || rs.UID != ref.UID {
		return nil
	}
	dRef := metav1.GetControllerOfNoCopy(&rs)
	if dRef == nil || dRef.Kind != "Deployment" {
		return nil
	}
	var d appsv1.Deployment
	key := client.ObjectKey{Namespace: rs.Namespace, Name: dRef.Name}
	if err := r.Client.Get(ctx, key, &d); err != nil || d.UID != dRef.UID || d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		return nil
	}
	return []reconcile.Request{{NamespacedName: key}}
}
