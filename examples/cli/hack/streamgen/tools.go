package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	restfake "k8s.io/client-go/rest/fake"
	"k8s.io/kubectl/pkg/cmd/clusterinfo"
	"k8s.io/kubectl/pkg/cmd/get"
	cmdtesting "k8s.io/kubectl/pkg/cmd/testing"
	"k8s.io/kubectl/pkg/scheme"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// helmTemplate renders a chart as `helm template RELEASE DIR -n NS
// --include-crds [-f VALUES]` does: a client-only dry-run install, the
// manifest, then every hook with its "# Source:" line.
func helmTemplate(c chart) (string, error) {
	ch, err := loader.Load(c.dir)
	if err != nil {
		return "", err
	}
	vals := map[string]any{}
	for _, f := range c.values {
		v, err := chartutil.ReadValuesFile(f)
		if err != nil {
			return "", err
		}
		vals = chartutil.MergeTables(v.AsMap(), vals)
	}
	install := action.NewInstall(&action.Configuration{})
	install.DryRun, install.DryRunOption = true, "true"
	install.ClientOnly, install.Replace, install.IncludeCRDs = true, true, true
	install.ReleaseName, install.Namespace = c.release, c.namespace
	rel, err := install.RunWithContext(context.Background(), ch, vals)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintln(&b, strings.TrimSpace(rel.Manifest))
	for _, h := range rel.Hooks {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", h.Path, h.Manifest)
	}
	return b.String(), nil
}

// kustomizeBuild is `kustomize build DIR`.
func kustomizeBuild(dir string) (string, error) {
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return "", err
	}
	y, err := m.AsYaml()
	return string(y), err
}

// readState reads a file of the CLI's testdata (our own states) into
// typed objects, lists flattened, in file order.
func readState(path string) ([]runtime.Object, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	infos, err := resource.NewLocalBuilder().WithScheme(scheme.Scheme, scheme.Scheme.PrioritizedVersionsAllGroups()...).
		Stream(bytes.NewReader(b), filepath.Base(path)).Flatten().Do().Infos()
	if err != nil {
		return nil, err
	}
	var out []runtime.Object
	for _, in := range infos {
		out = append(out, in.Object)
	}
	return out, nil
}

// byResource groups objects into the typed lists an apiserver serves, by
// the path of their list in namespace ns.
func byResource(ns string, objs []runtime.Object) (map[string]runtime.Object, error) {
	lists := map[string]runtime.Object{}
	for _, o := range objs {
		if acc, err := meta.Accessor(o); err != nil || acc.GetNamespace() != ns {
			continue
		}
		gvk := o.GetObjectKind().GroupVersionKind()
		listObj, err := scheme.Scheme.New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err != nil {
			return nil, err
		}
		prefix := "/namespaces/" + ns + "/"
		path := prefix + strings.ToLower(gvk.Kind) + "s"
		if l, ok := lists[path]; ok {
			listObj = l
		}
		items, _ := meta.ExtractList(listObj)
		if err := meta.SetList(listObj, append(items, o)); err != nil {
			return nil, err
		}
		lists[path] = listObj
	}
	return lists, nil
}

// kubectlGet is `kubectl get deployments,replicasets,pods -n NS -o FORMAT`
// (the test factory has no discovery for the short names) against a fake
// apiserver that serves the objects, run by kubectl's own get command.
func kubectlGet(ns string, objs []runtime.Object, format string) (string, error) {
	lists, err := byResource(ns, objs)
	if err != nil {
		return "", err
	}
	codec := scheme.Codecs.LegacyCodec(scheme.Scheme.PrioritizedVersionsAllGroups()...)
	tf := cmdtesting.NewTestFactory().WithNamespace(ns)
	defer tf.Cleanup()
	var unexpected error
	tf.UnstructuredClient = &restfake.RESTClient{
		NegotiatedSerializer: resource.UnstructuredPlusDefaultContentConfig().NegotiatedSerializer,
		Client: restfake.CreateHTTPClient(func(req *http.Request) (*http.Response, error) {
			l, ok := lists[req.URL.Path]
			if !ok {
				l = &metav1.List{} // the kind has no objects here
				switch {
				case strings.HasSuffix(req.URL.Path, "/deployments"), strings.HasSuffix(req.URL.Path, "/replicasets"), strings.HasSuffix(req.URL.Path, "/pods"):
				default:
					unexpected = fmt.Errorf("unexpected request %s", req.URL)
				}
				empty, _ := scheme.Scheme.New(listKindOf(req.URL.Path))
				if empty != nil {
					l = empty
				}
			}
			return &http.Response{StatusCode: http.StatusOK, Header: cmdtesting.DefaultHeader(), Body: cmdtesting.ObjBody(codec, l)}, nil
		}),
	}
	tf.ClientConfigVal = cmdtesting.DefaultClientConfig()
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	cmd := get.NewCmdGet("kubectl", tf, streams)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	if err := cmd.Flags().Set("output", format); err != nil {
		return "", err
	}
	// Run as kubectl's own tests run it (an error would exit the program
	// through cmdutil.CheckErr, with its message).
	cmd.Run(cmd, []string{"deployments,replicasets,pods"})
	if unexpected != nil {
		return "", unexpected
	}
	if errOut.Len() > 0 {
		return "", errors.New(errOut.String())
	}
	return out.String(), nil
}

// listKindOf is the list kind served at a path of kubectlGet.
func listKindOf(path string) schema.GroupVersionKind {
	switch {
	case strings.HasSuffix(path, "/deployments"):
		return appsv1.SchemeGroupVersion.WithKind("DeploymentList")
	case strings.HasSuffix(path, "/replicasets"):
		return appsv1.SchemeGroupVersion.WithKind("ReplicaSetList")
	}
	return corev1.SchemeGroupVersion.WithKind("PodList")
}

// clusterInfoDump is `kubectl cluster-info dump --namespaces NS,...` run by
// kubectl's own dump code over a fake clientset holding the objects. With
// logs it is the command's stdout, the pods' logs among the JSON (each log
// request fails here: the corpus has no kubelet); without, the files it
// writes with --output-directory for each namespace, concatenated in the
// order `cat` takes them (deployments, events, pods, replicasets, ...).
func clusterInfoDump(namespaces []string, objs []any, logs bool) (string, error) {
	var typed []runtime.Object
	for _, o := range objs {
		typed = append(typed, o.(runtime.Object))
	}
	client := fake.NewClientset(typed...)
	var out bytes.Buffer
	printFlags := genericclioptions.NewPrintFlags("").WithTypeSetter(scheme.Scheme).WithDefaultOutput("json")
	printer, err := printFlags.ToPrinter()
	if err != nil {
		return "", err
	}
	o := &clusterinfo.ClusterInfoDumpOptions{
		PrintFlags: printFlags, PrintObj: printer.PrintObj, Namespaces: namespaces, Timeout: 20 * time.Second,
		CoreClient: client.CoreV1(), AppsClient: client.AppsV1(),
		LogsForObject: func(genericclioptions.RESTClientGetter, runtime.Object, runtime.Object, time.Duration, bool) (map[corev1.ObjectReference]rest.ResponseWrapper, error) {
			return nil, errors.New("the corpus has no kubelet to read logs from")
		},
		IOStreams: genericiooptions.IOStreams{Out: &out, ErrOut: io.Discard},
	}
	var dir string
	if !logs {
		dir, err = os.MkdirTemp("", "dump")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(dir)
		o.OutputDir = dir
	}
	if err := o.Run(); err != nil {
		return "", err
	}
	if logs {
		return out.String(), nil
	}
	var b strings.Builder
	for _, ns := range namespaces {
		files, err := filepath.Glob(filepath.Join(dir, ns, "*.json"))
		if err != nil {
			return "", err
		}
		for _, f := range files {
			body, err := os.ReadFile(f)
			if err != nil {
				return "", err
			}
			b.Write(body)
		}
	}
	return b.String(), nil
}
