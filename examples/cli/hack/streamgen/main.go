// Command streamgen writes the generated streams of the CLI's stream
// corpus (examples/cli/testdata/streams): manifests as real tools print
// them, from inputs written for this corpus. Helm's own library renders the
// charts of charts/ as `helm template` does, kustomize's krusty builds the
// kustomizations of kustomize/ as `kustomize build` does, and kubectl's own
// commands print the states of examples/cli/testdata as `kubectl get
// deploy,rs,pods -o yaml|json` and `kubectl cluster-info dump` print them,
// served by a fake apiserver. It is its own module so that Helm and
// kustomize stay out of the CLI's dependencies.
//
//	go run . -out ../../testdata/streams
//
// TestCorpusUpToDate runs it into a temporary directory and compares.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	out := flag.String("out", "../../testdata/streams", "directory of the corpus")
	flag.Parse()
	files, err := generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "streamgen:", err)
		os.Exit(1)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(*out, name), []byte(body), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "streamgen:", err)
			os.Exit(1)
		}
	}
	fmt.Printf("wrote %d streams to %s\n", len(files), *out)
}

// generate returns every generated stream by file name.
func generate() (map[string]string, error) {
	out := map[string]string{}
	for _, c := range charts {
		s, err := helmTemplate(c)
		if err != nil {
			return nil, fmt.Errorf("helm template %s: %w", c.file, err)
		}
		out[c.file] = s
	}
	for _, k := range kustomizations {
		s, err := kustomizeBuild(filepath.Join("kustomize", k))
		if err != nil {
			return nil, fmt.Errorf("kustomize build %s: %w", k, err)
		}
		out["kustomize-"+k+".yaml"] = s
	}
	for _, st := range states {
		objs, err := readState(filepath.Join("..", "..", "testdata", st.file))
		if err != nil {
			return nil, err
		}
		for _, format := range []string{"yaml", "json"} {
			s, err := kubectlGet(st.namespace, objs, format)
			if err != nil {
				return nil, fmt.Errorf("kubectl get %s -o %s: %w", st.file, format, err)
			}
			out[fmt.Sprintf("get-%s.%s", st.name, format)] = s
		}
	}
	for _, d := range dumps {
		var all []any
		for _, f := range d.files {
			objs, err := readState(filepath.Join("..", "..", "testdata", f))
			if err != nil {
				return nil, err
			}
			for _, o := range objs {
				all = append(all, o)
			}
		}
		s, err := clusterInfoDump(d.namespaces, all, d.logs)
		if err != nil {
			return nil, fmt.Errorf("kubectl cluster-info dump %s: %w", d.name, err)
		}
		out["dump-"+d.name+".json"] = s
	}
	return out, nil
}

// chart is one `helm template` run.
type chart struct {
	file, dir, release, namespace string
	values                        []string
}

var charts = []chart{
	{file: "helm-shop.yaml", dir: "charts/shop", release: "shop", namespace: "default"},
	{file: "helm-shop-prod.yaml", dir: "charts/shop", release: "shop", namespace: "prod", values: []string{"charts/shop/values-prod.yaml"}},
	{file: "helm-events.yaml", dir: "charts/events", release: "events", namespace: "eventing"},
	{file: "helm-worker.yaml", dir: "charts/worker", release: "jobs", namespace: "jobs"},
	{file: "helm-worker-recreate.yaml", dir: "charts/worker", release: "jobs", namespace: "jobs", values: []string{"charts/worker/values-recreate.yaml"}},
}

var kustomizations = []string{"base", "prod", "staging", "generators"}

// state is a file of examples/cli/testdata printed by kubectl get.
type state struct{ name, file, namespace string }

var states = []state{
	{"rollout", "rollout.yaml", "shop"},
	{"complete", "complete.yaml", "store"},
	{"stuck", "stuck.yaml", "shop"},
	{"recreate", "recreate.yaml", "shop"},
	{"paused", "paused.yaml", "shop"},
	{"midrollout", "midrollout.yaml", "news"},
	{"stale", "stale.yaml", "jobs"},
	{"namespaces-blue", "namespaces.yaml", "blue"},
}

// dump is one `kubectl cluster-info dump` run.
type dump struct {
	name       string
	files      []string
	namespaces []string
	// logs: the pods' logs too (stdout), as the command prints them
	// without --output-directory; else the JSON files of one namespace
	// concatenated, as `cat DIR/NS/*.json` gives them.
	logs bool
}

var dumps = []dump{
	{name: "shop", files: []string{"rollout.yaml"}, namespaces: []string{"shop"}, logs: true},
	{name: "shop-files", files: []string{"stuck.yaml"}, namespaces: []string{"shop"}},
	{name: "two-namespaces", files: []string{"namespaces.yaml"}, namespaces: []string{"blue", "green"}},
}
