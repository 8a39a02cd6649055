// Command deploysync-controller runs a Deployment controller built on
// deploysync in the classic client-go pattern (package controller) against
// the cluster of a kubeconfig (--kubeconfig, else $KUBECONFIG, else
// ~/.kube/config, as kubectl looks for it), or in-cluster without one.
//
// kube-controller-manager's own Deployment controller must be off on that
// cluster (--controllers=*,-deployment), or both will act on every
// Deployment. With --limits it is the other way round: the controller runs
// beside kube-controller-manager's and syncs only the Deployments annotated
// deploysync.dev/max-updated, with that limit (package limits).
//
// --fix NAME (repeatable, or NAME,NAME) turns on a correction of an upstream
// bug (deploysync.Fixes lists them: ProportionalOverflow,
// StaleDesiredReplicas, UnhealthyFirst); without it the controller decides
// as kube-controller-manager does, bugs included. An unknown name stops the
// command before it connects.
//
// Usage:
//
//	deploysync-controller [--kubeconfig FILE] [--workers N] [--namespace NS]
//	                      [--leader-elect [--leader-elect-namespace NS]] [--limits]
//	                      [--fix NAME[,NAME]]...
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/deploysync/deploysync/examples/controller/applier"
	"github.com/deploysync/deploysync/examples/controller/controller"
	"github.com/deploysync/deploysync/examples/controller/limits"
)

func main() {
	klog.InitFlags(nil)
	kubeconfig := flag.String("kubeconfig", "", "path to a kubeconfig; empty: $KUBECONFIG, then ~/.kube/config, then the in-cluster configuration")
	workers := flag.Int("workers", 5, "number of Deployments synced at once")
	namespace := flag.String("namespace", "", "only sync Deployments of this namespace (default: all)")
	leaderElect := flag.Bool("leader-elect", false, "take a Lease before syncing, so several replicas can run with one active")
	leaseNamespace := flag.String("leader-elect-namespace", "kube-system", "namespace of the leader election Lease")
	leaseName := flag.String("leader-elect-name", "deploysync-controller", "name of the leader election Lease")
	limited := flag.Bool("limits", false, "run beside kube-controller-manager's Deployment controller: sync only Deployments annotated "+limits.Annotation+", with that limit")
	var fixes applier.Fixes
	flag.Var(&fixes, "fix", "turn on a correction of an upstream bug; repeatable or comma-separated; one of: "+applier.KnownFixes())
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *kubeconfig, *workers, *namespace, *leaderElect, *leaseNamespace, *leaseName, *limited, fixes); err != nil {
		fmt.Fprintln(os.Stderr, "deploysync-controller:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig string, workers int, namespace string, leaderElect bool, leaseNamespace, leaseName string, limited bool,
	fixes applier.Fixes) error {
	// kubectl's loading rules: the flag, else $KUBECONFIG, else
	// ~/.kube/config; with none of them, the in-cluster configuration.
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	config, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	// Decide as the server's minor: its pod-template-hash names the
	// ReplicaSets kube-controller-manager of that minor would name.
	minor, serverVersion, err := applier.ServerVersion(client.Discovery())
	if err != nil {
		return err
	}
	klog.FromContext(ctx).Info("Deciding as the server's Kubernetes minor", "serverVersion", serverVersion, "fixes", fixes.String())
	start := func(ctx context.Context) {
		factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(namespace))
		broadcaster := record.NewBroadcaster(record.WithContext(ctx))
		broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
		defer broadcaster.Shutdown()
		recorder := broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: applier.Component})
		c, err := controller.New(client, factory.Apps().V1().Deployments(), factory.Apps().V1().ReplicaSets(),
			factory.Core().V1().Pods(), recorder)
		if err != nil {
			klog.FromContext(ctx).Error(err, "Cannot build the controller")
			return
		}
		c.SetSyncOptions(minor)
		c.SetFixes(fixes...)
		if limited {
			c.EnableLimits()
		}
		factory.Start(ctx.Done())
		defer factory.Shutdown()
		c.Run(ctx, workers)
	}
	if !leaderElect {
		start(ctx)
		return nil
	}
	host, err := os.Hostname()
	if err != nil {
		return err
	}
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: leaseNamespace, Name: leaseName},
		Client:     client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: host + "_" + uuid.NewString()},
	}
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock:            lock,
		ReleaseOnCancel: true,
		LeaseDuration:   15 * time.Second,
		RenewDeadline:   10 * time.Second,
		RetryPeriod:     2 * time.Second,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: start,
			OnStoppedLeading: func() { klog.FromContext(ctx).Info("Leadership lost or released") },
		},
	})
	if ctx.Err() == nil {
		return fmt.Errorf("lost the leader election Lease %s/%s", leaseNamespace, leaseName)
	}
	return nil
}
