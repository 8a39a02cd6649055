// Command oracle answers the recorder's questions (package minors) with the
// upstream code it is built against: it reads one JSON request a line on
// stdin and writes one JSON response a line on stdout.
//
// In the conformance module it is built against v1.37.2;
// hack/record-minors.sh copies it with packages upstream and minors into a
// scratch module pinned to an older minor and builds it there. It must
// therefore not import the library.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller"
	"k8s.io/kubernetes/pkg/features"

	"github.com/deploysync/deploysync/conformance/minors"
	"github.com/deploysync/deploysync/conformance/upstream"
)

func main() {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	klog.SetOutput(io.Discard)

	if err := serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(1)
	}
}

func serve(r io.Reader, w io.Writer) error {
	gateDefault := utilfeature.DefaultFeatureGate.Enabled(features.DeploymentReplicaSetTerminatingReplicas)
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<20))
	out := bufio.NewWriterSize(w, 1<<20)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		var req minors.Request
		err := dec.Decode(&req)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading a request: %w", err)
		}
		var resp minors.Response
		switch req.Op {
		case "info":
			resp = minors.Response{Version: kubernetesVersion(), GateDefault: gateDefault}
		case "sync":
			resp = sync(req)
		case "hash":
			resp = hash(req)
		case "kubectl":
			resp = kubectlAnswers(req)
		default:
			resp = minors.Response{Error: fmt.Sprintf("unknown op %q", req.Op)}
		}
		if err := enc.Encode(&resp); err != nil {
			return err
		}
		if err := out.Flush(); err != nil {
			return err
		}
	}
}

// kubernetesVersion is the version of k8s.io/kubernetes linked in.
func kubernetesVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, m := range bi.Deps {
		if m.Path == "k8s.io/kubernetes" {
			return m.Version
		}
	}
	return "unknown"
}

// decodeObjects decodes the state's Deployment and ReplicaSets.
func decodeObjects(st *minors.State) (*appsv1.Deployment, []*appsv1.ReplicaSet, error) {
	d := &appsv1.Deployment{}
	if err := json.Unmarshal(st.Deployment, d); err != nil {
		return nil, nil, fmt.Errorf("decoding the Deployment: %v", err)
	}
	var rss []*appsv1.ReplicaSet
	for i, raw := range st.ReplicaSets {
		rs := &appsv1.ReplicaSet{}
		if err := json.Unmarshal(raw, rs); err != nil {
			return nil, nil, fmt.Errorf("decoding ReplicaSet %d: %v", i, err)
		}
		rss = append(rss, rs)
	}
	return d, rss, nil
}

func sync(req minors.Request) minors.Response {
	if req.State == nil {
		return minors.Response{Error: "sync without a state"}
	}
	d, rss, err := decodeObjects(req.State)
	if err != nil {
		return minors.Response{Error: err.Error()}
	}
	var pods map[types.UID][]*corev1.Pod
	if len(req.State.Pods) > 0 {
		pods = map[types.UID][]*corev1.Pod{}
		for uid, list := range req.State.Pods {
			for i, raw := range list {
				p := &corev1.Pod{}
				if err := json.Unmarshal(raw, p); err != nil {
					return minors.Response{Error: fmt.Sprintf("decoding pod %d of %s: %v", i, uid, err)}
				}
				pods[types.UID(uid)] = append(pods[types.UID(uid)], p)
			}
		}
	}
	input, err := encodeState(d, rss, pods, req.State)
	if err != nil {
		return minors.Response{Error: err.Error()}
	}
	resp := minors.Response{Input: input}
	resp.Accepted, resp.Refusal = accepts(d, rss, pods)

	o, err := upstream.Run(upstream.Input{Deployment: d, ReplicaSets: rss, Pods: pods, Now: req.State.Now, TerminatingReplicas: req.Gate})
	if err != nil {
		resp.RunnerError = err.Error()
		return resp
	}
	out := &minors.Outcome{
		RequeueRateLimited: o.RequeueRateLimited,
		RequeueAfter:       o.RequeueAfter,
	}
	if o.Err != nil {
		out.Failed, out.Err = true, o.Err.Error()
	}
	for _, e := range o.Events {
		out.Events = append(out.Events, minors.Event{Type: e.Type, Reason: e.Reason, Message: e.Message})
	}
	if out.Deployment, err = json.Marshal(o.Deployment); err != nil {
		return minors.Response{Error: err.Error()}
	}
	for _, rs := range o.ReplicaSets {
		b, err := json.Marshal(rs)
		if err != nil {
			return minors.Response{Error: err.Error()}
		}
		out.ReplicaSets = append(out.ReplicaSets, b)
	}
	resp.Outcome = out
	return resp
}

// accepts runs the minor's validation, a panic counting as a refusal.
func accepts(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, pods map[types.UID][]*corev1.Pod) (ok bool, refusal string) {
	defer func() {
		if r := recover(); r != nil {
			ok, refusal = false, fmt.Sprintf("validation panicked: %v", r)
		}
	}()
	ok, errs := upstream.Accepts(d, rss, pods)
	if len(errs) > 0 {
		refusal = errs[0].Error()
	}
	return ok, refusal
}

// encodeState re-encodes the decoded state, keeping the pods' grouping.
func encodeState(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, pods map[types.UID][]*corev1.Pod, sent *minors.State) (*minors.State, error) {
	s := &minors.State{Now: sent.Now}
	var err error
	if s.Deployment, err = json.Marshal(d); err != nil {
		return nil, err
	}
	for _, rs := range rss {
		b, err := json.Marshal(rs)
		if err != nil {
			return nil, err
		}
		s.ReplicaSets = append(s.ReplicaSets, b)
	}
	if len(pods) > 0 {
		s.Pods = map[string][]json.RawMessage{}
		for uid, list := range pods {
			for _, p := range list {
				b, err := json.Marshal(p)
				if err != nil {
					return nil, err
				}
				s.Pods[string(uid)] = append(s.Pods[string(uid)], b)
			}
		}
	}
	return s, nil
}

func hash(req minors.Request) minors.Response {
	t := &corev1.PodTemplateSpec{}
	if err := json.Unmarshal(req.Template, t); err != nil {
		return minors.Response{Error: fmt.Sprintf("decoding the template: %v", err)}
	}
	b, err := json.Marshal(t)
	if err != nil {
		return minors.Response{Error: err.Error()}
	}
	return minors.Response{Template: b, Hash: controller.ComputeHash(t, req.CollisionCount)}
}
