// Command deploysync-reconciler runs the controller-runtime Deployment
// reconciler built on deploysync (package reconciler) against the cluster of
// a kubeconfig (--kubeconfig, or KUBECONFIG, or in-cluster).
//
// kube-controller-manager's own Deployment controller must be off on that
// cluster (--controllers=*,-deployment).
//
// --fix NAME (repeatable, or NAME,NAME) turns on a correction of an upstream
// bug (deploysync.Fixes lists them: ProportionalOverflow,
// StaleDesiredReplicas, UnhealthyFirst); without it the reconciler decides
// as kube-controller-manager does, bugs included. An unknown name stops the
// command before it connects.
package main

import (
	"flag"
	"os"

	"k8s.io/client-go/discovery"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/examples/controller/applier"
	"github.com/deploysync/deploysync/examples/controller/reconciler"
)

func main() {
	leaderElect := flag.Bool("leader-elect", false, "take a Lease before reconciling, so several replicas can run with one active")
	var fixes applier.Fixes
	flag.Var(&fixes, "fix", "turn on a correction of an upstream bug; repeatable or comma-separated; one of: "+applier.KnownFixes())
	opts := zap.Options{}
	opts.BindFlags(flag.CommandLine)
	flag.Parse() // controller-runtime registers --kubeconfig
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	log := ctrl.Log.WithName("deploysync-reconciler")

	config := ctrl.GetConfigOrDie()
	mgr, err := ctrl.NewManager(config, ctrl.Options{
		LeaderElection:   *leaderElect,
		LeaderElectionID: "deploysync-reconciler",
	})
	if err != nil {
		log.Error(err, "cannot create the manager")
		os.Exit(1)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		log.Error(err, "cannot reach the server")
		os.Exit(1)
	}
	minor, serverVersion, err := applier.ServerVersion(dc)
	if err != nil {
		log.Error(err, "cannot decide as the server's minor")
		os.Exit(1)
	}
	log.Info("deciding as the server's Kubernetes minor", "serverVersion", serverVersion, "fixes", fixes.String())
	r := &reconciler.Reconciler{
		SyncOptions: []deploysync.Option{minor},
		Fixes:       fixes,
		Client:      mgr.GetClient(),
		Applier: &applier.Runtime{
			Client:    mgr.GetClient(),
			APIReader: mgr.GetAPIReader(),
			// core/v1 events, as kube-controller-manager records them.
			//lint:ignore SA1019 core/v1 events through record.EventRecorder, as kube-controller-manager records them
			Recorder: mgr.GetEventRecorderFor(applier.Component),
		},
	}
	if err := r.SetupWithManager(mgr); err != nil {
		log.Error(err, "cannot set up the reconciler")
		os.Exit(1)
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "manager stopped")
		os.Exit(1)
	}
}
