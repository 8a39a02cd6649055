package e2e

import (
	"context"
	"os"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	restclient "k8s.io/client-go/rest"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// crFlavour is the load's third flavour: the controller-runtime
// reconciler (examples/controller/reconciler), with the same faults as
// ours, when DEPLOYSYNC_E2E_RECONCILER=1.
const crFlavour = "cr"

func loadWithReconciler() bool { return os.Getenv("DEPLOYSYNC_E2E_RECONCILER") == "1" }

// startLoadReconciler runs one controller-runtime manager with the
// reconciler on the cr flavour, through cfg (the fault injector's), and
// keeps syncs at the number of reconciles controller-runtime has counted
// for it.
//
// Its cache watches as ours' informers do (and as the reconciler's own
// command, examples/controller/cmd/deploysync-reconciler, does: across
// namespaces): Deployments by the flavour's label, ReplicaSets and pods by
// the load's (in the flavour's namespaces only: namespaces is the load's
// count per flavour), one watch per kind. A cache of the flavour's namespaces
// (DefaultNamespaces) watches each namespace apart: four times the watches
// for the injector to cut. While a cut made the reflector list again after
// its backoff, which grows to 30 s when relists come less than 2 min apart
// (the injector's first cut; see cutAfter), in the all-faulted run of
// 2026-12-02 that cache had 78 watches cut against ours' 23, a
// namespace's ReplicaSets stayed stale long enough for its ten Deployments to fail reconcile after
// reconcile (a create answered AlreadyExists that the cache did not hold),
// and the flavour took 31.7 s and 54.8 s where ours took 5.5 s and 8.2 s.
func startLoadReconciler(t *testing.T, cfg *restclient.Config, namespaces int, syncs *atomic.Int64) (stop func()) {
	byFlavour, err := labels.Parse(flavourLabel + "=" + crFlavour)
	if err != nil {
		t.Fatalf("selector: %v", err)
	}
	ofLoad, err := labels.Parse(loadLabel + "=1")
	if err != nil {
		t.Fatalf("selector: %v", err)
	}
	// The other flavours' ReplicaSets and pods carry the same labels; left
	// in, their events would make reconciles of Deployments the cache does
	// not hold (counted as syncs, doing nothing). A field selector leaves
	// out their namespaces and keeps one watch per kind.
	var others []fields.Selector
	for _, f := range []string{kcmFlavour, oursFlavour} {
		for k := range namespaces {
			others = append(others, fields.OneTermNotEqualSelector("metadata.namespace", loadNamespace(f, k)))
		}
	}
	notOthers := fields.AndSelectors(others...)
	cache := ctrlcache.Options{ByObject: map[client.Object]ctrlcache.ByObject{
		&appsv1.Deployment{}: {Label: byFlavour},
		&appsv1.ReplicaSet{}: {Label: ofLoad, Field: notOthers},
		&corev1.Pod{}:        {Label: ofLoad, Field: notOthers},
	}}
	mgr := newReconcilerManager(t, cfg, cache, loadWorkers)
	base := reconcilesOf("deploysync")
	stopCount := runUntilStopped(func(ctx context.Context) {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				syncs.Store(reconcilesOf("deploysync") - base)
			}
		}
	})
	stopMgr := runManager(t, mgr)
	return func() { stopMgr(); stopCount() }
}

// reconcilesOf sums controller-runtime's controller_runtime_reconcile_total
// for the controller named name, every result.
func reconcilesOf(name string) int64 {
	mfs, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		return 0
	}
	var n float64
	for _, mf := range mfs {
		if mf.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && l.GetValue() == name {
					n += m.GetCounter().GetValue()
				}
			}
		}
	}
	return int64(n)
}
