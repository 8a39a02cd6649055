package e2e

import (
	"context"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/scheme"
	restclient "k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/deploysync/deploysync/examples/controller/applier"
	"github.com/deploysync/deploysync/examples/controller/reconciler"
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
	c := restclient.CopyConfig(cfg)
	c.QPS, c.Burst = 1000, 1000
	c = restclient.AddUserAgent(c, "deploysync-reconciler")
	nss := map[string]ctrlcache.Config{}
	for _, ns := range namespaces {
		nss[ns] = ctrlcache.Config{}
	}
	mgr, err := ctrl.NewManager(c, ctrl.Options{
		Scheme:                 scheme.Scheme,
		Cache:                  ctrlcache.Options{DefaultNamespaces: nss},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             ctrlconfig.Controller{SkipNameValidation: ptr.To(true), MaxConcurrentReconciles: loadWorkers},
	})
	if err != nil {
		t.Fatalf("controller-runtime manager: %v", err)
	}
	r := &reconciler.Reconciler{
		Client: mgr.GetClient(),
		Applier: &applier.Applier{
			Client: clientFor(t, cfg, "deploysync-reconciler"),
			//lint:ignore SA1019 core/v1 events through record.EventRecorder, as kube-controller-manager records them
			Recorder: mgr.GetEventRecorderFor(applier.Component),
		},
	}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatalf("setting up the reconciler: %v", err)
	}
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
	stopMgr := runUntilStopped(func(ctx context.Context) {
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("controller-runtime manager: %v", err)
		}
	})
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
