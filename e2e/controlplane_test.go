package e2e

import (
	"testing"

	"github.com/google/uuid"
	"k8s.io/apiserver/pkg/storage/etcd3/testserver"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	restclient "k8s.io/client-go/rest"
	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
)

// startAPIServer starts etcd and a real kube-apiserver for the test, as
// Kubernetes' integration tests do, and returns a client configuration for
// it. A control plane that cannot start fails the test (StartTestServerOrDie
// and RunEtcd call t.Fatal); it is never skipped.
func startAPIServer(t *testing.T) *restclient.Config {
	t.Helper()
	etcd := testserver.RunEtcd(t, nil)
	storage := storagebackend.NewDefaultConfig("/"+uuid.New().String(), nil)
	storage.Transport.ServerList = etcd.Endpoints()
	opts := kubeapiservertesting.NewDefaultTestServerOptions()
	// The end-of-test invariant check scrapes the apiserver's metrics; on a
	// busy machine the scrape times out, and apiserver metrics are not what
	// this test is about.
	opts.DisableInvariantChecks = true
	// The audit log (Deployments, ReplicaSets, Events and pod reads; see
	// auditPolicy in audit_test.go)
	// is how the load test counts each controller's requests from the
	// apiserver's side.
	audit, auditLog := auditFlags(t, t.TempDir())
	srv := kubeapiservertesting.StartTestServerOrDie(t, opts, append([]string{
		"--endpoint-reconciler-type=none",
		"--disable-admission-plugins=ServiceAccount",
	}, audit...), storage)
	t.Cleanup(srv.TearDownFn)
	cfg := restclient.CopyConfig(srv.ClientConfig)
	auditLogs.Store(cfg.Host, auditLog)
	return cfg
}
