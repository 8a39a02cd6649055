package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	restclient "k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
)

// Timing of the fake kubelet and of settling. Generous timeouts only bound
// how long a broken run may take; nothing is asserted about time.
const (
	readyAfter = 150 * time.Millisecond // a pod becomes Ready this long after it appears
	goneAfter  = 300 * time.Millisecond // a terminating pod is removed this long after deletion
	quiet      = 1500 * time.Millisecond
	settleIn   = 90 * time.Second
	dName      = "web"
)

// run is one scenario with one flavour of Deployment controller, in its own
// namespace.
type run struct {
	t       *testing.T
	ctx     context.Context
	cfg     *restclient.Config
	client  kubernetes.Interface
	ns      string
	flavour flavour
	driver  *podDriver
	obs     *observer
	// stopController stops the Deployment controller under test.
	stopController func()
	// writes are the test's own writes since the last settled step.
	writes []write
	// lost are the Deployment writes of the controller under test that the
	// apiserver refused with a conflict; stepLost holds the Progressing
	// messages of those each step of runScenario met.
	lost     lostWrites
	stepLost [][]string
}

// write is one of the test's own writes, as the server answered it.
type write struct {
	kind, name, resourceVersion string
}

// wrote notes a write the next settle must see the observer receive.
func (r *run) wrote(kind string, m metav1.Object) {
	r.writes = append(r.writes, write{kind, m.GetName(), m.GetResourceVersion()})
}

// unobserved returns the first of the test's writes the observer has not
// been told of yet, or nil.
func (r *run) unobserved() *write {
	for i, w := range r.writes {
		if !r.obs.hasSeen(w.kind, w.name, w.resourceVersion) {
			return &r.writes[i]
		}
	}
	return nil
}

var nsCounter atomic.Int64

// newRun creates a namespace and starts, on it, the ReplicaSet controller,
// the pod driver, the observer and the flavour's Deployment controller.
// Everything stops when the test ends.
func newRun(t *testing.T, cfg *restclient.Config, scenario string, f flavour) *run {
	client := clientFor(t, cfg, "e2e")
	ctx := context.Background()
	ns := fmt.Sprintf("%s-%s-%d", scenario, f.name, nsCounter.Add(1))
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace %s: %v", ns, err)
	}
	r := &run{t: t, ctx: ctx, cfg: cfg, client: client, ns: ns, flavour: f}
	t.Cleanup(startReplicaSetController(t, cfg, ns))
	var stopDriver, stopObs func()
	r.driver, stopDriver = startPodDriver(t, client, ns, readyAfter, goneAfter)
	t.Cleanup(stopDriver)
	r.obs, stopObs = startObserver(client, ns, dName)
	t.Cleanup(stopObs)
	r.startController()
	t.Cleanup(func() { r.stopControllerNow() })
	return r
}

// startController starts the flavour's Deployment controller, recording
// the Deployment writes the apiserver refuses to it with a conflict.
func (r *run) startController() {
	cfg := restclient.CopyConfig(r.cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return conflictRecorder{next: rt, lost: &r.lost} })
	r.stopController = r.flavour.start(r.t, cfg, r.ns)
}

// lostWrites are the Deployment writes (the object or its status) that the
// apiserver answered with 409 Conflict: writes a controller made from a
// cache that had not yet heard of its previous one. Each is recorded by
// the Progressing message it carried ("" when none could be read).
type lostWrites struct {
	mu       sync.Mutex
	messages []string
}

func (l *lostWrites) add(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.messages = append(l.messages, msg)
}

// since returns the messages of the writes lost after the first n.
func (l *lostWrites) since(n int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.messages[min(n, len(l.messages)):])
}

func (l *lostWrites) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.messages)
}

// conflictRecorder notes in lost every Deployment write refused with 409
// Conflict, with the Progressing message of the refused body.
type conflictRecorder struct {
	next http.RoundTripper
	lost *lostWrites
}

func (c conflictRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusConflict || req.Method == http.MethodGet ||
		!strings.Contains(req.URL.Path, "/deployments/") {
		return resp, err
	}
	msg := ""
	if req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			data, err := io.ReadAll(body)
			body.Close()
			// protobuf, clientsets' default, or JSON
			obj, _, derr := scheme.Codecs.UniversalDeserializer().Decode(data, nil, nil)
			if d, ok := obj.(*appsv1.Deployment); err == nil && derr == nil && ok {
				if cond := deployutil.GetCondition(d.Status, appsv1.DeploymentProgressing); cond != nil {
					msg = cond.Message
				}
			}
		}
	}
	c.lost.add(msg)
	return resp, err
}

func (r *run) stopControllerNow() {
	if r.stopController != nil {
		r.stopController()
		r.stopController = nil
	}
}

// newDeployment is the scenarios' Deployment: app=web, one container
// scheduled on a node that does not exist (so deletions are graceful and
// pods terminate as the pod driver says), RollingUpdate 25%/25%.
func newDeployment(replicas int32, image string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: dName},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: podTemplate("web", image),
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromString("25%")),
					MaxUnavailable: ptr.To(intstr.FromString("25%"))}},
		},
	}
}

func podTemplate(app, image string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{
			NodeName:   "no-kubelet",
			Containers: []corev1.Container{{Name: "web", Image: image}},
		},
	}
}

func (r *run) createDeployment(d *appsv1.Deployment) {
	r.t.Helper()
	d = d.DeepCopy()
	d.Namespace = r.ns
	out, err := r.client.AppsV1().Deployments(r.ns).Create(r.ctx, d, metav1.CreateOptions{})
	if err != nil {
		r.t.Fatalf("creating deployment: %v", err)
	}
	r.wrote("Deployment", out)
}

// updateDeployment changes the Deployment's spec or metadata, retrying on
// conflicts with the controller's writes.
func (r *run) updateDeployment(change func(d *appsv1.Deployment)) {
	r.t.Helper()
	err := wait.PollUntilContextTimeout(r.ctx, 50*time.Millisecond, settleIn, true, func(ctx context.Context) (bool, error) {
		d, err := r.client.AppsV1().Deployments(r.ns).Get(ctx, dName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		change(d)
		out, err := r.client.AppsV1().Deployments(r.ns).Update(ctx, d, metav1.UpdateOptions{})
		if err != nil {
			return false, nil
		}
		r.wrote("Deployment", out)
		return true, nil
	})
	if err != nil {
		r.t.Fatalf("updating deployment: %v", err)
	}
}

func (r *run) patchReplicaSet(name, patch string) {
	r.t.Helper()
	out, err := r.client.AppsV1().ReplicaSets(r.ns).Patch(r.ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil {
		r.t.Fatalf("patching replicaset %s: %v", name, err)
	}
	r.wrote("ReplicaSet", out)
}

// settle waits until the observer has been told of the test's own writes
// since the last settle, the condition holds on the Deployment and its
// ReplicaSets, and nothing in the namespace has changed for a while; then
// it returns the world as the server has it.
//
// The first wait matters for a step whose change neither raises the
// Deployment's generation nor falsifies the condition, such as relabelling
// a ReplicaSet: without it, a poll that runs before the observer's watch
// delivers the change finds the previous step's quiet period still running
// and the world as it was before any controller reacted.
func (r *run) settle(what string, until func(d *appsv1.Deployment, rss []appsv1.ReplicaSet) bool) world {
	r.t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(r.ctx, 100*time.Millisecond, settleIn, true, func(ctx context.Context) (bool, error) {
		d, err := r.client.AppsV1().Deployments(r.ns).Get(ctx, dName, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		rsl, err := r.client.AppsV1().ReplicaSets(r.ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		last = describe(d, rsl.Items)
		if w := r.unobserved(); w != nil {
			last += fmt.Sprintf("; the observer has not yet seen the test's write of %s %s at resourceVersion %s", w.kind, w.name, w.resourceVersion)
			return false, nil
		}
		return d.Status.ObservedGeneration >= d.Generation && statusCurrent(d, rsl.Items) && until(d, rsl.Items) &&
			r.obs.quietFor() >= quiet, nil
	})
	if err != nil {
		r.t.Fatalf("%s: %s did not settle within %v; last seen: %s", r.flavour.name, what, settleIn, last)
	}
	r.writes = nil
	w, err := snapshot(r.ctx, r.client, r.ns, dName)
	if err != nil {
		r.t.Fatalf("snapshot: %v", err)
	}
	return w
}

func describe(d *appsv1.Deployment, rss []appsv1.ReplicaSet) string {
	var b strings.Builder
	s := d.Status
	fmt.Fprintf(&b, "gen %d/%d replicas %d updated %d ready %d available %d;", s.ObservedGeneration, d.Generation,
		s.Replicas, s.UpdatedReplicas, s.ReadyReplicas, s.AvailableReplicas)
	for _, c := range s.Conditions {
		fmt.Fprintf(&b, " %s=%s/%s", c.Type, c.Status, c.Reason)
	}
	for _, rs := range rss {
		fmt.Fprintf(&b, "; rs %s %d/%d", rs.Name, rs.Status.AvailableReplicas, *rs.Spec.Replicas)
	}
	return b.String()
}

// statusCurrent: the ReplicaSet controller has caught up with every
// ReplicaSet the Deployment controls, and the Deployment's status counts
// what they report. A quiet period alone is not enough: after a few
// conflicts in a row a controller's key waits in the rate limiter for
// longer than the quiet period.
func statusCurrent(d *appsv1.Deployment, rss []appsv1.ReplicaSet) bool {
	var replicas, ready, available, updated int32
	for _, rs := range rss {
		ref := metav1.GetControllerOfNoCopy(&rs)
		if ref == nil || ref.UID != d.UID {
			continue
		}
		if rs.Status.ObservedGeneration < rs.Generation || rs.Status.Replicas != *rs.Spec.Replicas {
			return false
		}
		replicas += rs.Status.Replicas
		ready += rs.Status.ReadyReplicas
		available += rs.Status.AvailableReplicas
		if deployutil.EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			updated += rs.Status.Replicas
		}
	}
	s := d.Status
	return s.Replicas == replicas && s.ReadyReplicas == ready && s.AvailableReplicas == available && s.UpdatedReplicas == updated
}

// complete: the rollout is done, every old pod is gone.
func complete(d *appsv1.Deployment, rss []appsv1.ReplicaSet) bool {
	n := *d.Spec.Replicas
	s := d.Status
	c := deployutil.GetCondition(s, appsv1.DeploymentProgressing)
	if s.Replicas != n || s.UpdatedReplicas != n || s.AvailableReplicas != n || c == nil || c.Reason != deployutil.ReasonNewReplicaSetAvailable {
		return false
	}
	if s.TerminatingReplicas != nil && *s.TerminatingReplicas != 0 {
		return false
	}
	var pods int32
	for _, rs := range rss {
		if ref := metav1.GetControllerOfNoCopy(&rs); ref != nil && ref.UID == d.UID {
			pods += rs.Status.Replicas
		}
	}
	return pods == n
}

func progressReason(reason string) func(d *appsv1.Deployment, _ []appsv1.ReplicaSet) bool {
	return func(d *appsv1.Deployment, _ []appsv1.ReplicaSet) bool {
		c := deployutil.GetCondition(d.Status, appsv1.DeploymentProgressing)
		return c != nil && c.Reason == reason
	}
}

// quietly: no condition beyond the observed generation and the quiet period.
func quietly(*appsv1.Deployment, []appsv1.ReplicaSet) bool { return true }

// and combines conditions.
func and(cs ...func(*appsv1.Deployment, []appsv1.ReplicaSet) bool) func(*appsv1.Deployment, []appsv1.ReplicaSet) bool {
	return func(d *appsv1.Deployment, rss []appsv1.ReplicaSet) bool {
		for _, c := range cs {
			if !c(d, rss) {
				return false
			}
		}
		return true
	}
}
