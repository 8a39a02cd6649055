package e2e

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apiserver/pkg/quota/v1/generic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	pkgcontroller "k8s.io/kubernetes/pkg/controller"
	"k8s.io/kubernetes/pkg/controller/deployment"
	"k8s.io/kubernetes/pkg/controller/replicaset"
	"k8s.io/kubernetes/pkg/controller/resourcequota"
	quotainstall "k8s.io/kubernetes/pkg/quota/v1/install"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/deploysync/deploysync/examples/controller/applier"
	"github.com/deploysync/deploysync/examples/controller/controller"
	"github.com/deploysync/deploysync/examples/controller/reconciler"
)

// flavour is a Deployment controller under test: kube-controller-manager's
// (the reference) or one of ours (the candidates).
type flavour struct {
	name string
	// start runs the controller on one namespace until the returned stop
	// is called; stop returns once the controller has stopped.
	start func(t *testing.T, cfg *restclient.Config, ns string) (stop func())
}

var (
	reference = flavour{name: "kcm", start: startUpstreamDeploymentController}
	clientGo  = flavour{name: "client-go", start: startClientGoController}
	ctrlRT    = flavour{name: "controller-runtime", start: startReconciler}
)

// clientFor returns a clientset with a user agent naming the component, and
// no client-side throttling worth the name (the rollouts are small).
func clientFor(t *testing.T, cfg *restclient.Config, agent string) kubernetes.Interface {
	t.Helper()
	c := restclient.CopyConfig(cfg)
	c.QPS, c.Burst = 1000, 1000
	c = restclient.AddUserAgent(c, agent)
	cs, err := kubernetes.NewForConfig(c)
	if err != nil {
		t.Fatalf("client for %s: %v", agent, err)
	}
	return cs
}

// runUntilStopped runs f in a goroutine with a context that stop cancels;
// stop waits for f to return.
func runUntilStopped(f func(ctx context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { f(ctx) })
	return func() { cancel(); wg.Wait() }
}

// startReplicaSetController runs kube-controller-manager's ReplicaSet
// controller on the namespace: every flavour needs pods made for its
// ReplicaSets.
func startReplicaSetController(t *testing.T, cfg *restclient.Config, ns string) (stop func()) {
	return startReplicaSetControllerWith(t, cfg, ns, 2)
}

// startReplicaSetControllerWith is startReplicaSetController with that many
// workers (kube-controller-manager's --concurrent-replicaset-syncs).
func startReplicaSetControllerWith(t *testing.T, cfg *restclient.Config, ns string, workers int) (stop func()) {
	return startReplicaSetControllerWrapped(t, cfg, ns, workers, nil)
}

// startReplicaSetControllerWrapped is startReplicaSetControllerWith with
// wrap, unless nil, around its client's transport: what the controller
// sends and hears, seen from its side.
func startReplicaSetControllerWrapped(t *testing.T, cfg *restclient.Config, ns string, workers int,
	wrap func(http.RoundTripper) http.RoundTripper) (stop func()) {
	c := cfg
	if wrap != nil {
		c = restclient.CopyConfig(cfg)
		c.Wrap(wrap)
	}
	client := clientFor(t, c, "replicaset-controller")
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns))
	return runUntilStopped(func(ctx context.Context) {
		rsc := replicaset.NewReplicaSetController(ctx, factory.Apps().V1().ReplicaSets(), factory.Core().V1().Pods(), client, 500)
		factory.Start(ctx.Done())
		rsc.Run(ctx, workers)
		factory.Shutdown()
	})
}

// startQuotaController runs kube-controller-manager's ResourceQuota
// controller on the namespace, as kube-controller-manager builds it (its
// evaluators, the default update filter, discovery of the quotable
// resources), on informers of that namespace only, with no periodic
// resync and its default 5 workers: it writes a quota's status (hard and
// used) when the quota changes and when an object it counts comes or goes.
func startQuotaController(t *testing.T, cfg *restclient.Config, ns string) (stop func()) {
	client := clientFor(t, cfg, "resourcequota-controller")
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns))
	return runUntilStopped(func(ctx context.Context) {
		discover := client.Discovery().ServerPreferredNamespacedResources
		qc, err := quotainstall.NewQuotaConfigurationForControllers(generic.ListerFuncForResourceFunc(factory.ForResource), factory)
		if err != nil {
			t.Errorf("kube-controller-manager's quota configuration: %v", err)
			return
		}
		started := make(chan struct{})
		rqc, err := resourcequota.NewController(ctx, &resourcequota.ControllerOptions{
			QuotaClient:               client.CoreV1(),
			ResourceQuotaInformer:     factory.Core().V1().ResourceQuotas(),
			ResyncPeriod:              pkgcontroller.NoResyncPeriodFunc,
			InformerFactory:           factory,
			ReplenishmentResyncPeriod: pkgcontroller.NoResyncPeriodFunc,
			DiscoveryFunc:             discover,
			IgnoredResourcesFunc:      qc.IgnoredResources,
			InformersStarted:          started,
			Registry:                  generic.NewRegistry(qc.Evaluators()),
			UpdateFilter:              quotainstall.DefaultUpdateFilter(),
		})
		if err != nil {
			t.Errorf("kube-controller-manager's ResourceQuota controller: %v", err)
			return
		}
		factory.Start(ctx.Done())
		close(started)
		var wg sync.WaitGroup
		wg.Go(func() { rqc.Sync(ctx, discover, 30*time.Second) })
		rqc.Run(ctx, 5) // --concurrent-resource-quota-syncs' default
		wg.Wait()
		factory.Shutdown()
	})
}

func startUpstreamDeploymentController(t *testing.T, cfg *restclient.Config, ns string) (stop func()) {
	return startLoggedDeploymentController(t, cfg, ns, nil)
}

// startDeploymentControllerWrapped is startUpstreamDeploymentController
// with wrap, unless nil, around the controller's transport.
func startDeploymentControllerWrapped(t *testing.T, cfg *restclient.Config, ns string, wrap func(http.RoundTripper) http.RoundTripper) (stop func()) {
	if wrap != nil {
		cfg = restclient.CopyConfig(cfg)
		cfg.Wrap(wrap)
	}
	return startLoggedDeploymentController(t, cfg, ns, nil)
}

// startLoggedDeploymentController is startUpstreamDeploymentController
// with log, unless nil, as the controller's contextual logger.
func startLoggedDeploymentController(t *testing.T, cfg *restclient.Config, ns string, log logr.LogSink) (stop func()) {
	client := clientFor(t, cfg, "deployment-controller")
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns))
	return runUntilStopped(func(ctx context.Context) {
		if log != nil {
			ctx = klog.NewContext(ctx, logr.New(log))
		}
		dc, err := deployment.NewDeploymentController(ctx, factory.Apps().V1().Deployments(), factory.Apps().V1().ReplicaSets(),
			factory.Core().V1().Pods(), client)
		if err != nil {
			t.Errorf("kube-controller-manager's deployment controller: %v", err)
			return
		}
		factory.Start(ctx.Done())
		dc.Run(ctx, 2)
		factory.Shutdown()
	})
}

func startClientGoController(t *testing.T, cfg *restclient.Config, ns string) (stop func()) {
	return startClientGoControllerWith(t, cfg, ns, "deploysync-controller", func(*controller.Controller) {})
}

// startClientGoControllerWith starts the client-go controller under the
// user agent agent, set up by configure before it runs.
func startClientGoControllerWith(t *testing.T, cfg *restclient.Config, ns, agent string, configure func(*controller.Controller)) (stop func()) {
	client := clientFor(t, cfg, agent)
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns))
	return runUntilStopped(func(ctx context.Context) {
		broadcaster := record.NewBroadcaster(record.WithContext(ctx))
		broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
		defer broadcaster.Shutdown()
		recorder := broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: applier.Component})
		c, err := controller.New(client, factory.Apps().V1().Deployments(), factory.Apps().V1().ReplicaSets(),
			factory.Core().V1().Pods(), recorder)
		if err != nil {
			t.Errorf("client-go controller: %v", err)
			return
		}
		configure(c)
		factory.Start(ctx.Done())
		c.Run(ctx, 2)
		factory.Shutdown()
	})
}

func startReconciler(t *testing.T, cfg *restclient.Config, ns string) (stop func()) {
	cache := ctrlcache.Options{DefaultNamespaces: map[string]ctrlcache.Config{ns: {}}}
	return runManager(t, newReconcilerManager(t, cfg, cache, 0))
}

// newReconcilerManager returns a controller-runtime manager caching what
// cache selects, with the reconciler registered; its clients (the
// cache's and the reconciler's writes) go through cfg under the user agent
// deploysync-reconciler. workers is the controller's
// MaxConcurrentReconciles (0: controller-runtime's default, one).
func newReconcilerManager(t *testing.T, cfg *restclient.Config, cache ctrlcache.Options, workers int) ctrl.Manager {
	t.Helper()
	c := restclient.CopyConfig(cfg)
	c.QPS, c.Burst = 1000, 1000
	c = restclient.AddUserAgent(c, "deploysync-reconciler")
	mgr, err := ctrl.NewManager(c, ctrl.Options{
		Scheme:                 scheme.Scheme,
		Cache:                  cache,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// Many managers in one process: the same controller name is
		// registered many times.
		Controller: ctrlconfig.Controller{SkipNameValidation: ptr.To(true), MaxConcurrentReconciles: workers},
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
	return mgr
}

// runManager starts mgr until the returned stop is called; stop returns
// once the manager has stopped.
func runManager(t *testing.T, mgr ctrl.Manager) (stop func()) {
	return runUntilStopped(func(ctx context.Context) {
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("controller-runtime manager: %v", err)
		}
	})
}
