package cli

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
)

// ReadCluster reads a Deployment, every ReplicaSet of its namespace and the
// pods its selector matches from a cluster, as the controller's caches hold
// them, and makes a Manifest of them as LoadManifest makes one of a file
// (same defaulting, notes and gaps). It only reads: get and list.
// source names the cluster in messages (e.g. its kubeconfig context);
// opts.Namespace and opts.Deployment name the Deployment.
func ReadCluster(ctx context.Context, c kubernetes.Interface, source string, opts ReadOptions) (*Manifest, error) {
	namespace, name := opts.Namespace, opts.Deployment
	d, err := c.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	rss, err := c.AppsV1().ReplicaSets(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: listing the ReplicaSets of %s: %w", source, namespace, err)
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("%s: Deployment %s/%s: spec.selector: %w", source, namespace, name, err)
	}
	pods, err := c.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, fmt.Errorf("%s: listing the pods of %s: %w", source, namespace, err)
	}
	objs := []object{{obj: d, source: "deployment " + name}}
	objs = append(objs, listed("replicasets", rss.Items, func(rs *appsv1.ReplicaSet) runtime.Object { return rs })...)
	objs = append(objs, listed("pods", pods.Items, func(p *corev1.Pod) runtime.Object { return p })...)
	m := newManifest(source, opts.KubernetesVersion)
	if err := m.pick(objs, namespace, name); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	m.Gaps = findGaps(m.Deployment, m.ReplicaSets)
	return m, nil
}

// deploymentArg reads a command's argument as kubectl does for one
// Deployment: NAME, deploy/NAME, deployment/NAME, deployments/NAME or
// deployment.apps/NAME.
func deploymentArg(arg string) (string, error) {
	kind, name, ok := strings.Cut(arg, "/")
	if !ok {
		return arg, nil
	}
	switch strings.ToLower(kind) {
	case "deploy", "deployment", "deployments", "deployment.apps", "deployments.apps":
		if name != "" && !strings.Contains(name, "/") {
			return name, nil
		}
	}
	return "", fmt.Errorf("%q: want a Deployment, as NAME or deploy/NAME", arg)
}
