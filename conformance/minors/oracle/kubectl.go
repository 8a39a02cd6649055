package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes/fake"
	restfake "k8s.io/client-go/rest/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/kubectl/pkg/cmd/rollout"
	cmdtesting "k8s.io/kubectl/pkg/cmd/testing"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/describe"
	"k8s.io/kubectl/pkg/polymorphichelpers"
	"k8s.io/kubectl/pkg/scheme"

	"github.com/deploysync/deploysync/conformance/minors"
)

var deploymentKind = schema.GroupKind{Group: "apps", Kind: "Deployment"}

// kubectlAnswers answers op "kubectl" with the kubectl of the minor built
// in: its describe printer, status viewer, and the rollout history and undo
// commands run against a fake apiserver holding the state.
func kubectlAnswers(req minors.Request) minors.Response {
	if req.State == nil {
		return minors.Response{Error: "kubectl without a state"}
	}
	d, rss, err := decodeObjects(req.State)
	if err != nil {
		return minors.Response{Error: err.Error()}
	}
	input, err := encodeState(d, rss, nil, req.State)
	if err != nil {
		return minors.Response{Error: err.Error()}
	}
	k := &minors.Kubectl{}
	k.Describe, k.DescribePanic = describeTemplate(d)
	for _, rev := range req.Revisions {
		a := minors.KubectlRevision{Revision: rev}
		a.Status, a.Done, a.StatusErr = status(d, rev)
		a.History, a.HistoryErr, a.HistoryPanic = history(d, rss, rev)
		undo(&a, d, rss, rev)
		k.Revisions = append(k.Revisions, a)
	}
	return minors.Response{Input: input, Kubectl: k}
}

func describeTemplate(d *appsv1.Deployment) (out, panicked string) {
	defer func() {
		if r := recover(); r != nil {
			out, panicked = "", fmt.Sprint(r)
		}
	}()
	var buf bytes.Buffer
	describe.DescribePodTemplate(d.Spec.Template.DeepCopy(), describe.NewPrefixWriter(&buf))
	return buf.String(), ""
}

// status runs the status viewer on d converted to unstructured, as `kubectl
// rollout status` receives it from its watch.
func status(d *appsv1.Deployment, rev int64) (string, bool, string) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d.DeepCopy())
	if err != nil {
		return "", false, "converting: " + err.Error()
	}
	msg, done, err := (&polymorphichelpers.DeploymentStatusViewer{}).Status(&unstructured.Unstructured{Object: m}, rev)
	return msg, done, errString(err)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// clientset is a fake clientset holding copies of the state. The
// deprecated NewSimpleClientset applies JSON patches as an apiserver does,
// without the field-management layer of NewClientset.
func clientset(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) *fake.Clientset {
	objs := []runtime.Object{d.DeepCopy()}
	for _, rs := range rss {
		objs = append(objs, rs.DeepCopy())
	}
	return fake.NewSimpleClientset(objs...) //nolint:staticcheck // see above
}

// factory is kubectl's test factory whose REST client serves GET of the
// Deployment, which is all the commands' resource builder asks.
func factory(d *appsv1.Deployment) (*cmdtesting.TestFactory, error) {
	codecs := scheme.Codecs.WithoutConversion()
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok {
		return nil, fmt.Errorf("no JSON serializer")
	}
	gv := appsv1.SchemeGroupVersion
	enc := codecs.EncoderForVersion(info.Serializer, gv)
	body, err := runtime.Encode(enc, d.DeepCopy())
	if err != nil {
		return nil, err
	}
	path := "/namespaces/" + d.Namespace + "/deployments/" + d.Name
	tf := cmdtesting.NewTestFactory().WithNamespace(d.Namespace)
	tf.Client = &restfake.RESTClient{
		GroupVersion:         gv,
		NegotiatedSerializer: codecs,
		Client: restfake.CreateHTTPClient(func(req *http.Request) (*http.Response, error) {
			if req.Method == http.MethodGet && req.URL.Path == path {
				return &http.Response{StatusCode: http.StatusOK, Header: cmdtesting.DefaultHeader(), Body: io.NopCloser(bytes.NewReader(body))}, nil
			}
			return nil, fmt.Errorf("the fake apiserver serves only GET %s, not %s %s", path, req.Method, req.URL.Path)
		}),
	}
	return tf, nil
}

// history runs `kubectl rollout history deployment/NAME [--revision N]`.
func history(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, rev int64) (out, cmdErr, panicked string) {
	defer func() {
		if r := recover(); r != nil {
			out, cmdErr, panicked = "", "", fmt.Sprint(r)
		}
	}()
	c := clientset(d, rss)
	polymorphichelpers.HistoryViewerFn = func(genericclioptions.RESTClientGetter, *meta.RESTMapping) (polymorphichelpers.HistoryViewer, error) {
		return polymorphichelpers.HistoryViewerFor(deploymentKind, c)
	}
	tf, err := factory(d)
	if err != nil {
		return "", "factory: " + err.Error(), ""
	}
	defer tf.Cleanup()
	streams, _, stdout, _ := genericiooptions.NewTestIOStreams()
	o := rollout.NewRolloutHistoryOptions(streams)
	o.Revision = rev
	// The command's flags, as NewCmdRolloutHistory adds them.
	cmd := &cobra.Command{}
	o.PrintFlags.AddFlags(cmd)
	if err := o.Complete(tf, cmd, []string{"deployment/" + d.Name}); err != nil {
		return stdout.String(), err.Error(), ""
	}
	if err := o.Validate(); err != nil {
		return stdout.String(), err.Error(), ""
	}
	err = o.Run()
	return stdout.String(), errString(err), ""
}

// undo runs `kubectl rollout undo deployment/NAME [--to-revision N]` and
// records what it printed, returned and patched.
func undo(a *minors.KubectlRevision, d *appsv1.Deployment, rss []*appsv1.ReplicaSet, rev int64) {
	defer func() {
		if r := recover(); r != nil {
			*a = minors.KubectlRevision{Revision: a.Revision, Status: a.Status, Done: a.Done, StatusErr: a.StatusErr,
				History: a.History, HistoryErr: a.HistoryErr, HistoryPanic: a.HistoryPanic, UndoPanic: fmt.Sprint(r)}
		}
	}()
	c := clientset(d, rss)
	polymorphichelpers.RollbackerFn = func(genericclioptions.RESTClientGetter, *meta.RESTMapping) (polymorphichelpers.Rollbacker, error) {
		return polymorphichelpers.RollbackerFor(deploymentKind, c)
	}
	tf, err := factory(d)
	if err != nil {
		a.UndoErr = "factory: " + err.Error()
		return
	}
	defer tf.Cleanup()
	streams, _, stdout, stderr := genericiooptions.NewTestIOStreams()
	o := rollout.NewRolloutUndoOptions(streams)
	o.ToRevision = rev
	// From 1.36 the command names itself in its warning by the parent's
	// name, "kubectl" for the kubectl binary; older minors lack the field.
	if f := reflect.ValueOf(o).Elem().FieldByName("CmdBaseName"); f.IsValid() {
		f.SetString("kubectl")
	}
	// The command's flags, as NewCmdRolloutUndo adds them.
	cmd := &cobra.Command{}
	cmdutil.AddDryRunFlag(cmd)
	o.PrintFlags.AddFlags(cmd)
	err = o.Complete(tf, cmd, []string{"deployment/" + d.Name})
	if err == nil {
		err = o.Validate()
	}
	if err == nil {
		err = o.RunUndo()
	}
	a.UndoOut, a.UndoErrOut, a.UndoErr = stdout.String(), stderr.String(), errString(err)
	patched := false
	for _, act := range c.Actions() {
		if p, ok := act.(k8stesting.PatchAction); ok && act.GetResource().Resource == "deployments" {
			a.UndoPatch, a.UndoPatchType = string(p.GetPatch()), string(p.GetPatchType())
			patched = true
		}
	}
	if patched && err == nil {
		after, err := c.AppsV1().Deployments(d.Namespace).Get(context.TODO(), d.Name, metav1.GetOptions{})
		if err != nil {
			a.UndoErr = "reading the patched Deployment: " + err.Error()
			return
		}
		if a.UndoAfter, err = json.Marshal(after); err != nil {
			a.UndoErr = err.Error()
		}
	}
}
