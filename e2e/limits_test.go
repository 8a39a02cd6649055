package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/examples/controller/controller"
	"github.com/deploysync/deploysync/examples/controller/limits"
)

// besideKCM is kube-controller-manager's Deployment controller and the
// client-go controller in its limits mode (controller.EnableLimits), both
// on one namespace: the set-up of examples/controller's README, section
// "Limited rollouts beside kube-controller-manager".
var besideKCM = flavour{name: "kcm-and-limits", start: func(t *testing.T, cfg *restclient.Config, ns string) (stop func()) {
	stopKCM := startUpstreamDeploymentController(t, cfg, ns)
	stopOurs := startClientGoControllerWith(t, cfg, ns, "deploysync-limits", func(c *controller.Controller) { c.EnableLimits() })
	return func() { stopOurs(); stopKCM() }
}}

// holdWindow is how long a held rollout is watched for writes.
const holdWindow = 5 * time.Second

// limitedRollout: 10 replicas, RollingUpdate 25%/25% (maxSurge 3,
// maxUnavailable 2), created and rolled out by kube-controller-manager;
// annotated with a limit of 30% (our controller disguises it); rolled to
// web:2, which stops at 3 updated replicas and holds; the limit raised to
// 100%, which completes it; rolled back to web:1 (what kubectl rollout
// undo writes); the annotation removed (the Deployment handed back to
// kube-controller-manager with its own strategy). Throughout: never more
// than 13 pods asked for, never fewer than 8 Ready once available, the new
// template's ReplicaSet never above the limit, and no Deployment status
// written back and forth between the two controllers.
func limitedRollout(t *testing.T, r *run) {
	log := startWriteLog(r.client, r.ns)
	t.Cleanup(log.stop)
	t.Cleanup(func() {
		if t.Failed() {
			dw, rw := log.countSince(0)
			_, returns := log.problems()
			t.Logf("when it failed: %d Deployment writes, %d ReplicaSet writes, %d statuses that came back", dw, rw, returns)
		}
	})
	step := func(name string, b bounds, do func(), until func(*appsv1.Deployment, []appsv1.ReplicaSet) bool) world {
		t.Helper()
		r.obs.setBounds(b)
		start := time.Now()
		mark := log.len()
		do()
		w := r.settle(name, until)
		dw, rw := log.countSince(mark)
		t.Logf("step %q settled in %v: %d Deployment writes, %d ReplicaSet writes; peak Σ spec.replicas %d (bound %d)",
			name, time.Since(start).Round(time.Millisecond), dw, rw, r.obs.peak(), b.maxPods)
		for _, v := range r.obs.takeViolations() {
			t.Errorf("step %q: invariant violated: %s", name, v)
		}
		return w
	}
	annotate := func(v string) func() {
		return func() {
			r.updateDeployment(func(d *appsv1.Deployment) {
				if v == "" {
					delete(d.Annotations, limits.Annotation)
					return
				}
				if d.Annotations == nil {
					d.Annotations = map[string]string{}
				}
				d.Annotations[limits.Annotation] = v
			})
		}
	}
	setImage := func(image string) func() {
		return func() {
			r.updateDeployment(func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = image })
		}
	}
	rollout := func(image string, maxNew int32) bounds {
		return bounds{maxPods: 13, minAvailable: 8, newImage: image, maxNew: maxNew}
	}

	step("create", bounds{maxPods: 13}, func() { r.createDeployment(newDeployment(10, "web:1")) }, complete)
	user := r.get()

	step("annotate 30%", rollout("web:1", 10), annotate("30%"), disguised)
	d := r.get()
	stash, ok, err := limits.Stashed(d)
	if !ok || err != nil {
		t.Fatalf("stash after annotating: %v, %v", ok, err)
	}
	if want := (limits.Stash{Strategy: user.Spec.Strategy, Paused: user.Spec.Paused, ProgressDeadlineSeconds: user.Spec.ProgressDeadlineSeconds}); !equalStash(stash, want) {
		t.Errorf("stash = %+v, want the user's fields %+v", stash, want)
	}

	w := step("image web:2, limit 30%", rollout("web:2", 3), setImage("web:2"), held(3))
	t.Logf("held: %s", describeWorld(w))

	// The hold: nothing at all is written for a while, by either
	// controller (kube-controller-manager's resyncs included: it has
	// none with a resync period of 0, and no event comes).
	before := r.get()
	mark := log.len()
	time.Sleep(holdWindow)
	after := r.get()
	if dw, rw := log.countSince(mark); dw != 0 || rw != 0 || after.ResourceVersion != before.ResourceVersion {
		t.Errorf("while held for %v: %d Deployment writes, %d ReplicaSet writes, resourceVersion %s → %s; want none",
			holdWindow, dw, rw, before.ResourceVersion, after.ResourceVersion)
	} else {
		t.Logf("held for %v: no writes (resourceVersion %s)", holdWindow, after.ResourceVersion)
	}
	if c := deployutil.GetCondition(after.Status, appsv1.DeploymentProgressing); c == nil || c.Reason != deployutil.ReasonRolloutLimited {
		t.Errorf("Progressing after the hold = %+v, want reason %s", c, deployutil.ReasonRolloutLimited)
	}

	step("limit 100%", rollout("web:2", 10), annotate("100%"), and(disguised, complete))

	// kubectl rollout undo refuses a paused Deployment (and this one is
	// paused, as kube-controller-manager sees it); what it would write
	// is the previous revision's template, without its pod-template-hash.
	step("roll back to web:1", rollout("web:1", 10), func() { r.undo() }, and(disguised, hasImage("web:1"), complete))

	step("remove the limit", rollout("web:1", 10), annotate(""), and(handedBack(user), complete))
	final := r.get()
	if final.Spec.Paused != user.Spec.Paused || !equalStrategy(final.Spec.Strategy, user.Spec.Strategy) ||
		*final.Spec.ProgressDeadlineSeconds != *user.Spec.ProgressDeadlineSeconds {
		t.Errorf("handed back: paused %v strategy %+v progressDeadlineSeconds %d; want the user's %v %+v %d",
			final.Spec.Paused, final.Spec.Strategy, *final.Spec.ProgressDeadlineSeconds,
			user.Spec.Paused, user.Spec.Strategy, *user.Spec.ProgressDeadlineSeconds)
	}

	problems, returns := log.problems()
	for _, p := range problems {
		t.Error(p)
	}
	dw, rw := log.countSince(0)
	t.Logf("whole scenario: %d Deployment writes, %d ReplicaSet writes, %d statuses that came back once", dw, rw, returns)
}

// limitAtOnce: the annotation and the new template in one write, limit
// 10% (1 of 10). Until our controller's disguise lands, the Deployment is
// kube-controller-manager's, which may start the rollout with maxSurge's 3
// new replicas; the limit then brings the new ReplicaSet back to 1 (rule 3
// of deploysync.WithLimits). Checked: the hold at 1 of 10 is reached and
// then nothing is written; never more than 13 pods asked for, never fewer
// than 8 Ready; no status back and forth.
func limitAtOnce(t *testing.T, r *run) {
	log := startWriteLog(r.client, r.ns)
	t.Cleanup(log.stop)
	r.obs.setBounds(bounds{maxPods: 13})
	r.createDeployment(newDeployment(10, "web:1"))
	r.settle("create", complete)
	r.obs.setBounds(bounds{maxPods: 13, minAvailable: 8})
	r.updateDeployment(func(d *appsv1.Deployment) {
		if d.Annotations == nil {
			d.Annotations = map[string]string{}
		}
		d.Annotations[limits.Annotation] = "10%"
		d.Spec.Template.Spec.Containers[0].Image = "web:2"
	})
	w := r.settle("annotation and web:2 at once, limit 10%", held(1))
	for _, v := range r.obs.takeViolations() {
		t.Errorf("invariant violated: %s", v)
	}
	t.Logf("held: %s; the web:2 ReplicaSet asked for at most %d", describeWorld(w), log.peakReplicas("web:2"))
	before := r.get()
	mark := log.len()
	time.Sleep(holdWindow)
	if dw, rw := log.countSince(mark); dw != 0 || rw != 0 || r.get().ResourceVersion != before.ResourceVersion {
		t.Errorf("while held for %v: %d Deployment writes, %d ReplicaSet writes; want none", holdWindow, dw, rw)
	}
	problems, returns := log.problems()
	for _, p := range problems {
		t.Error(p)
	}
	dw, rw := log.countSince(0)
	t.Logf("whole scenario: %d Deployment writes, %d ReplicaSet writes, %d statuses that came back once", dw, rw, returns)
}

func (r *run) get() *appsv1.Deployment {
	r.t.Helper()
	d, err := r.client.AppsV1().Deployments(r.ns).Get(r.ctx, dName, metav1.GetOptions{})
	if err != nil {
		r.t.Fatalf("reading the deployment: %v", err)
	}
	return d
}

// undo writes what kubectl rollout undo writes: the template of the
// ReplicaSet of the revision before the current one, without its
// pod-template-hash label.
func (r *run) undo() {
	r.t.Helper()
	r.updateDeployment(func(d *appsv1.Deployment) {
		cur, _ := deployutil.Revision(d)
		var prev *appsv1.ReplicaSet
		var prevRev int64
		for _, rs := range r.controlledReplicaSets() {
			if v, err := deployutil.Revision(&rs); err == nil && v < cur && v > prevRev {
				prev, prevRev = rs.DeepCopy(), v
			}
		}
		if prev == nil {
			r.t.Fatalf("no revision before %d to roll back to", cur)
		}
		tpl := prev.Spec.Template.DeepCopy()
		delete(tpl.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
		d.Spec.Template = *tpl
	})
}

func disguised(d *appsv1.Deployment, _ []appsv1.ReplicaSet) bool { return limits.Disguised(d) }

// held: the new ReplicaSet has n replicas, every replica is available, and
// Progressing says RolloutLimited.
func held(n int32) func(*appsv1.Deployment, []appsv1.ReplicaSet) bool {
	return func(d *appsv1.Deployment, _ []appsv1.ReplicaSet) bool {
		s := d.Status
		c := deployutil.GetCondition(s, appsv1.DeploymentProgressing)
		return limits.Disguised(d) && s.UpdatedReplicas == n && s.Replicas == *d.Spec.Replicas &&
			s.AvailableReplicas == *d.Spec.Replicas && c != nil && c.Reason == deployutil.ReasonRolloutLimited
	}
}

// handedBack: no stash, and the user's strategy, paused and deadline.
func handedBack(user *appsv1.Deployment) func(*appsv1.Deployment, []appsv1.ReplicaSet) bool {
	return func(d *appsv1.Deployment, _ []appsv1.ReplicaSet) bool {
		_, stashed := d.Annotations[limits.StashAnnotation]
		return !stashed && d.Spec.Paused == user.Spec.Paused && equalStrategy(d.Spec.Strategy, user.Spec.Strategy)
	}
}

func equalStrategy(a, b appsv1.DeploymentStrategy) bool {
	return fmt.Sprintf("%s %v", a.Type, describeRU(a.RollingUpdate)) == fmt.Sprintf("%s %v", b.Type, describeRU(b.RollingUpdate))
}

func describeRU(ru *appsv1.RollingUpdateDeployment) string {
	if ru == nil {
		return "-"
	}
	return ru.MaxSurge.String() + "/" + ru.MaxUnavailable.String()
}

func equalStash(a, b limits.Stash) bool {
	return a.Paused == b.Paused && equalStrategy(a.Strategy, b.Strategy) &&
		(a.ProgressDeadlineSeconds == nil) == (b.ProgressDeadlineSeconds == nil) &&
		(a.ProgressDeadlineSeconds == nil || *a.ProgressDeadlineSeconds == *b.ProgressDeadlineSeconds)
}

func describeWorld(w world) string {
	var b strings.Builder
	s := w.Deployment.Status
	fmt.Fprintf(&b, "replicas %d updated %d available %d;", s.Replicas, s.UpdatedReplicas, s.AvailableReplicas)
	for _, c := range s.Conditions {
		fmt.Fprintf(&b, " %s=%s/%s %q", c.Type, c.Status, c.Reason, c.Message)
	}
	for _, rs := range w.ReplicaSets {
		fmt.Fprintf(&b, "; %s (%s) %d", rs.Name, rs.Image, rs.Replicas)
	}
	return b.String()
}

// writeLog records every change of the namespace's Deployments,
// ReplicaSets and pods as its watch delivers it, to count writes and to
// find a Deployment written back and forth.
type writeLog struct {
	mu      sync.Mutex
	entries []logEntry
	stop    func()
}

type logEntry struct {
	kind, name, rv string
	// status (a Deployment's, without times) and disguised, for
	// Deployments.
	status    string
	limited   bool
	disguised bool
	// image and replicas, for ReplicaSets.
	image    string
	replicas int32
}

func startWriteLog(client kubernetes.Interface, ns string) *writeLog {
	l := &writeLog{}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns))
	for kind, inf := range map[string]cache.SharedIndexInformer{
		"Deployment": factory.Apps().V1().Deployments().Informer(),
		"ReplicaSet": factory.Apps().V1().ReplicaSets().Informer(),
		"Pod":        factory.Core().V1().Pods().Informer(),
	} {
		_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { l.add(kind, obj) },
			UpdateFunc: func(_, obj any) { l.add(kind, obj) },
			DeleteFunc: func(obj any) { l.add(kind, obj) },
		})
	}
	l.stop = runUntilStopped(func(ctx context.Context) {
		factory.Start(ctx.Done())
		<-ctx.Done()
		factory.Shutdown()
	})
	factory.WaitForCacheSync(context.Background().Done())
	return l
}

func (l *writeLog) add(kind string, obj any) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	e := logEntry{kind: kind, name: m.GetName(), rv: m.GetResourceVersion()}
	if d, ok := obj.(*appsv1.Deployment); ok {
		e.status = statusKey(d.Status)
		_, e.limited = d.Annotations[limits.Annotation]
		e.disguised = limits.Disguised(d)
	}
	if rs, ok := obj.(*appsv1.ReplicaSet); ok {
		e.image, e.replicas = rs.Spec.Template.Spec.Containers[0].Image, *rs.Spec.Replicas
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, e)
}

func statusKey(s appsv1.DeploymentStatus) string {
	var b strings.Builder
	fmt.Fprintf(&b, "gen %d r %d u %d rd %d a %d ua %d;", s.ObservedGeneration, s.Replicas, s.UpdatedReplicas,
		s.ReadyReplicas, s.AvailableReplicas, s.UnavailableReplicas)
	for _, c := range s.Conditions {
		fmt.Fprintf(&b, " %s=%s/%s %q", c.Type, c.Status, c.Reason, c.Message)
	}
	return b.String()
}

func (l *writeLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

// countSince counts the Deployment and ReplicaSet changes after the
// first mark entries.
func (l *writeLog) countSince(mark int) (deployments, replicaSets int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.entries[mark:] {
		switch e.kind {
		case "Deployment":
			deployments++
		case "ReplicaSet":
			replicaSets++
		}
	}
	return deployments, replicaSets
}

// peakReplicas returns the most replicas a ReplicaSet of the image asked
// for.
func (l *writeLog) peakReplicas(image string) int32 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var peak int32
	for _, e := range l.entries {
		if e.kind == "ReplicaSet" && e.image == image {
			peak = max(peak, e.replicas)
		}
	}
	return peak
}

// problems finds, in the whole log:
//   - Deployment statuses written back and forth: within a run of
//     Deployment changes with no ReplicaSet or pod change in between, a
//     status that comes back after another one twice (A, B, A, B: two
//     controllers taking turns). One return can be a controller whose
//     ReplicaSet cache lags its Deployment cache for a moment; it is
//     counted in returns, not reported;
//   - a Deployment that carries the limit and has been disguised, seen
//     without its disguise (kube-controller-manager would have rolled it
//     out, and no write of ours may carry the view).
func (l *writeLog) problems() (out []string, returns int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var run []logEntry // the Deployment changes since the last ReplicaSet or pod change
	runReturns := 0
	wasDisguised := false
	for _, e := range l.entries {
		if e.kind != "Deployment" {
			run, runReturns = nil, 0
			continue
		}
		if n := len(run); n > 0 && run[n-1].status != e.status {
			for _, p := range run[:n-1] {
				if p.status == e.status {
					returns++
					runReturns++
					if runReturns == 2 {
						out = append(out, fmt.Sprintf("deployment status written back and forth with no ReplicaSet or pod change: %q again at rv %s (first at rv %s)",
							e.status, e.rv, p.rv))
					}
					break
				}
			}
		}
		run = append(run, e)
		if e.limited && wasDisguised && !e.disguised {
			out = append(out, fmt.Sprintf("deployment with a limit seen without its disguise at rv %s", e.rv))
		}
		wasDisguised = wasDisguised || e.disguised
		if !e.limited {
			wasDisguised = false
		}
	}
	return out, returns
}
