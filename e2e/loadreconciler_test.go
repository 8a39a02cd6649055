package e2e

import (
	"context"
	"os"
	"sync/atomic"
	"testing"
	"time"

	restclient "k8s.io/client-go/rest"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// crFlavour is the load's third flavour: the controller-runtime
// reconciler (examples/controller/reconciler), with the same faults as
// ours, when DEPLOYSYNC_E2E_RECONCILER=1.
const crFlavour = "cr"

func loadWithReconciler() bool { return os.Getenv("DEPLOYSYNC_E2E_RECONCILER") == "1" }

// startLoadReconciler runs one controller-runtime manager with the
// reconciler on the namespaces given, through cfg (the fault injector's),
// and keeps syncs at the number of reconciles controller-runtime has
// counted for it.
func startLoadReconciler(t *testing.T, cfg *restclient.Config, namespaces []string, syncs *atomic.Int64) (stop func()) {
	mgr := newReconcilerManager(t, cfg, namespaces, loadWorkers)
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
