package kubectl

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/polymorphichelpers"
	"k8s.io/kubectl/pkg/scheme"
)

// TestMain silences kubectl's logging: its history viewer warns through
// klog about every revision annotation that does not parse.
func TestMain(m *testing.M) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	klog.SetOutput(io.Discard)
	os.Exit(m.Run())
}

var deploymentKind = schema.GroupKind{Group: "apps", Kind: "Deployment"}

// kubectlStatus runs kubectl's Deployment status viewer on d, converted to
// unstructured as `kubectl rollout status` receives it from its watch.
func kubectlStatus(d *appsv1.Deployment, revision int64) (string, bool, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d.DeepCopy())
	if err != nil {
		panic(err)
	}
	return (&polymorphichelpers.DeploymentStatusViewer{}).Status(&unstructured.Unstructured{Object: m}, revision)
}

// client is a fake clientset holding copies of the Deployment and the
// ReplicaSets. The deprecated NewSimpleClientset is used on purpose: its
// tracker applies JSON patches with evanphx/json-patch, as an apiserver
// does, without the field-management layer of NewClientset.
func client(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) *fake.Clientset {
	objs := []runtime.Object{d.DeepCopy()}
	for _, rs := range rss {
		objs = append(objs, rs.DeepCopy())
	}
	return fake.NewSimpleClientset(objs...) //nolint:staticcheck // see above
}

// kubectlHistory is what `kubectl rollout history deployment/NAME
// [--revision=N]` prints on standard output: the history viewer's text,
// printed by the name printer with the operation the command builds.
func kubectlHistory(c *fake.Clientset, d *appsv1.Deployment, revision int64) (string, error) {
	if revision < 0 {
		// The command's Validate, before any call.
		return "", fmt.Errorf("revision must be a positive integer: %v", revision)
	}
	viewer, err := polymorphichelpers.HistoryViewerFor(deploymentKind, c)
	if err != nil {
		panic(err)
	}
	info, err := viewer.ViewHistory(d.Namespace, d.Name, revision)
	if err != nil {
		return "", err
	}
	withRevision := ""
	if revision > 0 {
		withRevision = fmt.Sprintf("with revision #%d", revision)
	}
	flags := genericclioptions.NewPrintFlags("").WithTypeSetter(scheme.Scheme)
	flags.NamePrintFlags.Operation = fmt.Sprintf("%s\n%s", withRevision, info)
	printer, err := flags.ToPrinter()
	if err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	if err := printer.PrintObj(d.DeepCopy(), &buf); err != nil {
		panic(err)
	}
	return buf.String(), nil
}

// undoResult is what kubectl's rollbacker did.
type undoResult struct {
	result    string // its message on success ("rolled back", "skipped rollback (...)")
	err       error
	patch     []byte // the patch it sent, if any
	patchType string
	after     *appsv1.Deployment // the Deployment after the patch, if it applied
}

// kubectlUndo runs kubectl's Deployment rollbacker (what `kubectl rollout
// undo` calls) against a fake clientset holding the state.
func kubectlUndo(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, toRevision int64) undoResult {
	c := client(d, rss)
	rb, err := polymorphichelpers.RollbackerFor(deploymentKind, c)
	if err != nil {
		panic(err)
	}
	var r undoResult
	r.result, r.err = rb.Rollback(d.DeepCopy(), nil, toRevision, cmdutil.DryRunNone)
	for _, a := range c.Actions() {
		if p, ok := a.(k8stesting.PatchAction); ok && a.GetResource().Resource == "deployments" {
			r.patch, r.patchType = p.GetPatch(), string(p.GetPatchType())
		}
	}
	if r.err == nil && r.patch != nil {
		r.after, err = c.AppsV1().Deployments(d.Namespace).Get(context.TODO(), d.Name, metav1.GetOptions{})
		if err != nil {
			panic(err)
		}
	}
	return r
}
