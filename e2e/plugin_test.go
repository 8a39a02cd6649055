package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"

	"github.com/deploysync/deploysync/examples/cli"
)

// testPlugin runs kubectl-deploysync's commands against the real
// kube-apiserver (kube-controller-manager's controller rolled the
// Deployment out and stopped mid-rollout, web:2 held unready) and on a file
// of the same objects as `kubectl get deploy,rs,pods -o yaml` writes it:
// every command prints the same on both.
func testPlugin(t *testing.T, cfg *restclient.Config) {
	r := newRun(t, cfg, "plugin", reference)
	runScenario(t, r, scenario{name: "plugin", steps: []step{
		create(newDeployment(4, "web:1")),
		{name: "image web:2, held unready", do: func(r *run) {
			r.driver.hold("web:2")
			r.updateDeployment(func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "web:2" })
		}, until: quietly, bounds: bounds{maxPods: 5, minAvailable: 3}},
	}})
	// Nothing changes from here on: the state read live is the file's.
	r.stopControllerNow()

	kubeconfig := writeKubeconfig(t, cfg)
	file := filepath.Join(t.TempDir(), "state.yaml")
	if err := os.WriteFile(file, r.kubectlGetYAML(t), 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Format(time.RFC3339)
	for _, args := range [][]string{
		{"plan"}, {"plan", "-o", "json"}, {"plan", "-o", "yaml"}, {"status"}, {"status", "-o", "yaml"},
		{"status", "--rule", "kstatus"}, {"status", "--rule", "helm3", "-o", "json"}, {"status", "--rule", "strict"},
		{"diagnose"}, {"diagnose", "-o", "json"}, {"diagnose", "-o", "yaml"}, {"history"}, {"history", "-o", "yaml"},
		{"simulate", "--max-steps", "20"}, {"simulate", "--max-steps", "20", "-o", "json"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			live, liveErr := runPlugin(append(append([]string{}, args...), "deploy/"+dName, "-n", r.ns, "--kubeconfig", kubeconfig, "--now", now)...)
			fromFile, fileErr := runPlugin(append(append([]string{}, args...), "-f", file, "--now", now)...)
			if (liveErr == nil) != (fileErr == nil) {
				t.Fatalf("live error %v, file error %v", liveErr, fileErr)
			}
			if live != fromFile {
				t.Fatalf("live and file answers differ:\nlive:\n%s\nfile:\n%s", live, fromFile)
			}
			if strings.TrimSpace(live) == "" {
				t.Fatalf("no output")
			}
			t.Logf("%s", live)
		})
	}
}

func runPlugin(args ...string) (string, error) {
	var out, errOut bytes.Buffer
	cmd := cli.NewCommand(&out, &errOut, func() time.Time { panic("--now is given") })
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

// kubectlGetYAML is what `kubectl get deploy,rs,pods -o yaml` prints for
// the run's namespace: a v1 List whose items carry apiVersion and kind.
func (r *run) kubectlGetYAML(t *testing.T) []byte {
	t.Helper()
	var items []any
	ds, err := r.client.AppsV1().Deployments(r.ns).List(r.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range ds.Items {
		ds.Items[i].APIVersion, ds.Items[i].Kind = "apps/v1", "Deployment"
		items = append(items, ds.Items[i])
	}
	rss, err := r.client.AppsV1().ReplicaSets(r.ns).List(r.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range rss.Items {
		rss.Items[i].APIVersion, rss.Items[i].Kind = "apps/v1", "ReplicaSet"
		items = append(items, rss.Items[i])
	}
	pods, err := r.client.CoreV1().Pods(r.ns).List(r.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range pods.Items {
		pods.Items[i].APIVersion, pods.Items[i].Kind = "v1", "Pod"
		items = append(items, pods.Items[i])
	}
	b, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeKubeconfig writes a kubeconfig for the test apiserver's client
// configuration, with one context, as kubectl users have.
func writeKubeconfig(t *testing.T, cfg *restclient.Config) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["e2e"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthority: cfg.CAFile, CertificateAuthorityData: cfg.CAData,
		InsecureSkipTLSVerify: cfg.Insecure, TLSServerName: cfg.ServerName}
	kc.AuthInfos["e2e"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken, TokenFile: cfg.BearerTokenFile,
		ClientCertificate: cfg.CertFile, ClientCertificateData: cfg.CertData, ClientKey: cfg.KeyFile, ClientKeyData: cfg.KeyData}
	kc.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: "e2e"}
	kc.CurrentContext = "e2e"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}
