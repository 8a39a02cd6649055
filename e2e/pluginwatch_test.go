package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	restclient "k8s.io/client-go/rest"

	"github.com/deploysync/deploysync/examples/cli"
)

// testPluginWatch runs status --watch against the real kube-apiserver while
// kube-controller-manager's controller rolls the Deployment out: held at
// web:2 unready, the strict rule waits and --timeout ends it with
// cli.ExitNotDone; released, the watch prints each change and ends with the
// strict rule's done line and exit 0 once the controller has finished. It
// also checks status -A and diagnose -A: the rows of the run's namespace
// read from the whole cluster equal those of the namespace's file.
func testPluginWatch(t *testing.T, cfg *restclient.Config) {
	r := newRun(t, cfg, "plugin-watch", reference)
	b := bounds{maxPods: 5, minAvailable: 3}
	runScenario(t, r, scenario{name: "plugin-watch", steps: []step{
		create(newDeployment(4, "web:1")),
		{name: "image web:2, held unready", do: func(r *run) {
			r.driver.hold("web:2")
			r.updateDeployment(func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "web:2" })
		}, until: quietly, bounds: b},
	}})
	kubeconfig := writeKubeconfig(t, cfg)
	live := []string{"deploy/" + dName, "-n", r.ns, "--kubeconfig", kubeconfig}

	t.Run("all namespaces", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "state.yaml")
		if err := os.WriteFile(file, r.kubectlGetYAML(t), 0o644); err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC().Format(time.RFC3339)
		for _, args := range [][]string{{"status", "--rule", "strict"}, {"status", "--rule", "kstatus"}, {"diagnose", "--now", now}} {
			liveOut, _ := runPlugin(append(append([]string{}, args...), "-A", "-o", "json", "--kubeconfig", kubeconfig)...)
			fileOut, _ := runPlugin(append(append([]string{}, args...), "-A", "-o", "json", "-f", file)...)
			got, want := rowsOf(t, liveOut, r.ns), rowsOf(t, fileOut, r.ns)
			if len(want) != 1 {
				t.Fatalf("%v: %d rows of namespace %s in the file's answer, want 1:\n%s", args, len(want), r.ns, fileOut)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%v -A: the cluster's rows of %s differ from the file's:\nlive: %s\nfile: %s", args, r.ns, got, want)
			}
		}
	})

	// Held: nothing changes, so --timeout ends the watch, not done.
	out, err := runPlugin(append([]string{"status", "--watch", "--rule", "strict", "--interval", "100ms", "--timeout", "1s"}, live...)...)
	var e *cli.ExitError
	if !errors.As(err, &e) || e.Code != cli.ExitNotDone {
		t.Fatalf("held at web:2: error %v, want exit code %d; output:\n%s", err, cli.ExitNotDone, out)
	}
	if !strings.HasPrefix(out, "strict waiting") || strings.Count(out, "strict ") != 1 {
		t.Errorf("held at web:2: want one waiting verdict, got:\n%s", out)
	}

	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := runPlugin(append([]string{"status", "--watch", "--rule", "strict", "--interval", "100ms", "--timeout", "3m"}, live...)...)
		done <- result{out, err}
	}()
	time.Sleep(500 * time.Millisecond) // a few reads of the held state first
	runScenario(t, r, scenario{name: "plugin-watch", steps: []step{
		{name: "release web:2", do: func(r *run) { r.driver.release("web:2") }, until: complete, bounds: b},
	}})
	var res result
	select {
	case res = <-done:
	case <-time.After(3 * time.Minute):
		t.Fatal("status --watch did not end after the rollout completed")
	}
	if res.err != nil {
		t.Fatalf("status --watch --rule strict: %v, want exit 0; output:\n%s", res.err, res.out)
	}
	lines := strings.Split(strings.TrimSpace(res.out), "\n")
	var verdicts []string
	for _, l := range lines {
		if strings.HasPrefix(l, "strict ") {
			verdicts = append(verdicts, l)
		}
	}
	if len(verdicts) < 2 || !strings.HasPrefix(verdicts[0], "strict waiting") ||
		!strings.HasPrefix(verdicts[len(verdicts)-1], `strict done: deployment "web" rolled out`) {
		t.Errorf("want waiting verdicts then the done line, got:\n%s", res.out)
	}
	for i := 1; i < len(lines); i++ {
		if lines[i] == lines[i-1] && strings.HasPrefix(lines[i], "strict ") {
			t.Errorf("line %d repeats the verdict before it: %s", i+1, lines[i])
		}
	}
	t.Logf("status --watch --rule strict printed %d verdicts:\n%s", len(verdicts), res.out)
}

// rowsOf returns the rows of a -A -o json answer whose deployment is in
// namespace ns, each as compact JSON.
func rowsOf(t *testing.T, out, ns string) []string {
	t.Helper()
	var rows []json.RawMessage
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	var got []string
	for _, raw := range rows {
		var row struct {
			Deployment string `json:"deployment"`
		}
		if err := json.Unmarshal(raw, &row); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(row.Deployment, ns+"/") {
			var b bytes.Buffer
			if err := json.Compact(&b, raw); err != nil {
				t.Fatal(err)
			}
			got = append(got, b.String())
		}
	}
	return got
}
