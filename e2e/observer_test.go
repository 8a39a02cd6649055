package e2e

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// observer watches one namespace: it knows when anything last changed,
// and checks the rollout invariants on every change it sees.
type observer struct {
	client kubernetes.Interface
	ns     string
	dName  string
	ds     cache.Store
	rss    cache.Store
	pods   cache.Store

	mu         sync.Mutex
	lastChange time.Time
	// seen holds the resourceVersion of the last event delivered for each
	// object ("Kind/name"), set in the same critical section as lastChange.
	seen       map[string]string
	bounds     bounds
	violations []string
	maxSeen    int32 // the largest Σ spec.replicas seen in the current step
}

// bounds are the invariants of a step; zero values check nothing.
type bounds struct {
	// maxPods bounds the sum of spec.replicas of the ReplicaSets the
	// Deployment controls (replicas + maxSurge), as upstream's e2e checks.
	maxPods int32
	// minAvailable bounds from below the pods of the Deployment that are
	// Ready and not terminating (replicas − maxUnavailable), during a
	// rollout from a fully available state.
	minAvailable int32
	// recreate: pods of two templates never exist at once, terminating
	// pods included (the Recreate strategy's promise).
	recreate bool
	// newImage and maxNew: the ReplicaSets of the pod template with image
	// newImage never ask for more than maxNew pods (a rollout limit);
	// checked when newImage is set.
	newImage string
	maxNew   int32
}

func startObserver(client kubernetes.Interface, ns, dName string) (*observer, func()) {
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns))
	o := &observer{client: client, ns: ns, dName: dName, lastChange: time.Now(), seen: map[string]string{},
		ds:   factory.Apps().V1().Deployments().Informer().GetStore(),
		rss:  factory.Apps().V1().ReplicaSets().Informer().GetStore(),
		pods: factory.Core().V1().Pods().Informer().GetStore(),
	}
	for kind, inf := range map[string]cache.SharedIndexInformer{
		"Deployment": factory.Apps().V1().Deployments().Informer(),
		"ReplicaSet": factory.Apps().V1().ReplicaSets().Informer(),
		"Pod":        factory.Core().V1().Pods().Informer(),
	} {
		_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { o.changed(kind, obj) },
			UpdateFunc: func(_, obj any) { o.changed(kind, obj) },
			DeleteFunc: func(obj any) { o.changed(kind, obj) },
		})
	}
	stop := runUntilStopped(func(ctx context.Context) {
		factory.Start(ctx.Done())
		<-ctx.Done()
		factory.Shutdown()
	})
	return o, stop
}

// setBounds starts checking a step's invariants.
func (o *observer) setBounds(b bounds) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.bounds, o.maxSeen = b, 0
}

func (o *observer) changed(kind string, obj any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lastChange = time.Now()
	if m, err := meta.Accessor(obj); err == nil {
		o.seen[kind+"/"+m.GetName()] = m.GetResourceVersion()
	}
	d := o.deployment()
	if d == nil {
		return
	}
	var specSum int32
	for _, rs := range o.controlled(d) {
		specSum += *rs.Spec.Replicas
	}
	o.maxSeen = max(o.maxSeen, specSum)
	if b := o.bounds; b.maxPods > 0 && specSum > b.maxPods {
		o.violations = append(o.violations, fmt.Sprintf("%s: ReplicaSets of %s ask for %d pods, more than %d (replicas + maxSurge)",
			time.Now().Format("15:04:05.000"), d.Name, specSum, b.maxPods))
	}
	if b := o.bounds; b.newImage != "" {
		for _, rs := range o.controlled(d) {
			if rs.Spec.Template.Spec.Containers[0].Image == b.newImage && *rs.Spec.Replicas > b.maxNew {
				o.violations = append(o.violations, fmt.Sprintf("%s: ReplicaSet %s (%s) asks for %d pods, more than the limit %d",
					time.Now().Format("15:04:05.000"), rs.Name, b.newImage, *rs.Spec.Replicas, b.maxNew))
			}
		}
	}
	if o.bounds.recreate {
		if images := o.podImages(d); len(images) > 1 {
			o.violations = append(o.violations, fmt.Sprintf("%s: pods of %s with images %v exist at once",
				time.Now().Format("15:04:05.000"), d.Name, images))
		}
	}
	if b := o.bounds; b.minAvailable > 0 {
		if n := o.readyPods(d); n < b.minAvailable {
			o.violations = append(o.violations, fmt.Sprintf("%s: %d pods of %s available, fewer than %d (replicas − maxUnavailable)",
				time.Now().Format("15:04:05.000"), n, d.Name, b.minAvailable))
		}
	}
}

func (o *observer) deployment() *appsv1.Deployment {
	obj, ok, _ := o.ds.GetByKey(o.ns + "/" + o.dName)
	if !ok {
		return nil
	}
	return obj.(*appsv1.Deployment)
}

func (o *observer) controlled(d *appsv1.Deployment) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, obj := range o.rss.List() {
		rs := obj.(*appsv1.ReplicaSet)
		if ref := metav1.GetControllerOfNoCopy(rs); ref != nil && ref.UID == d.UID {
			out = append(out, rs)
		}
	}
	return out
}

func (o *observer) readyPods(d *appsv1.Deployment) int32 {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return 0
	}
	var n int32
	for _, obj := range o.pods.List() {
		p := obj.(*corev1.Pod)
		if p.DeletionTimestamp == nil && sel.Matches(labels.Set(p.Labels)) && ready(p) {
			n++
		}
	}
	return n
}

// podImages returns the images of the Deployment's pods, terminating ones
// included.
func (o *observer) podImages(d *appsv1.Deployment) []string {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, obj := range o.pods.List() {
		p := obj.(*corev1.Pod)
		if img := p.Spec.Containers[0].Image; sel.Matches(labels.Set(p.Labels)) && !seen[img] {
			seen[img] = true
			out = append(out, img)
		}
	}
	sort.Strings(out)
	return out
}

// hasSeen reports whether the observer has been told of the object at
// resourceVersion rv or later: only then does its quiet period count from
// after that write.
func (o *observer) hasSeen(kind, name, rv string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	got, ok := o.seen[kind+"/"+name]
	if !ok {
		return false
	}
	c, err := resourceversion.CompareResourceVersion(got, rv)
	return err == nil && c >= 0
}

// quietFor reports how long nothing has changed.
func (o *observer) quietFor() time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	return time.Since(o.lastChange)
}

// peak returns the largest sum of spec.replicas seen since setBounds.
func (o *observer) peak() int32 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.maxSeen
}

// takeViolations returns and forgets the invariant violations seen so far.
func (o *observer) takeViolations() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	v := o.violations
	o.violations = nil
	return v
}

// world is what a settled step looks like, with what varies between runs
// of the same scenario (times, UIDs, resourceVersions) left out.
type world struct {
	Deployment  deploymentView
	ReplicaSets []rsView
	// Events are the distinct reasons of the Deployment's events.
	Events []string
}

type deploymentView struct {
	Generation  int64
	Annotations map[string]string
	Image       string
	Paused      bool
	Status      statusView
}

type statusView struct {
	ObservedGeneration                                                               int64
	Replicas, UpdatedReplicas, ReadyReplicas, AvailableReplicas, UnavailableReplicas int32
	TerminatingReplicas, CollisionCount                                              *int32
	Conditions                                                                       []conditionView // by type
}

type conditionView struct {
	Type, Status, Reason, Message string
}

type rsView struct {
	Name        string
	Controlled  bool // by the Deployment
	Replicas    int32
	Image       string
	Annotations map[string]string
}

// snapshot reads the namespace's state from the server.
func snapshot(ctx context.Context, client kubernetes.Interface, ns, dName string) (world, error) {
	var w world
	d, err := client.AppsV1().Deployments(ns).Get(ctx, dName, metav1.GetOptions{})
	if err != nil {
		return w, err
	}
	s := d.Status
	w.Deployment = deploymentView{Generation: d.Generation, Annotations: d.Annotations, Paused: d.Spec.Paused,
		Image: d.Spec.Template.Spec.Containers[0].Image,
		Status: statusView{ObservedGeneration: s.ObservedGeneration, Replicas: s.Replicas, UpdatedReplicas: s.UpdatedReplicas,
			ReadyReplicas: s.ReadyReplicas, AvailableReplicas: s.AvailableReplicas, UnavailableReplicas: s.UnavailableReplicas,
			TerminatingReplicas: s.TerminatingReplicas, CollisionCount: s.CollisionCount}}
	for _, c := range s.Conditions {
		w.Deployment.Status.Conditions = append(w.Deployment.Status.Conditions,
			conditionView{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message})
	}
	sort.Slice(w.Deployment.Status.Conditions, func(i, j int) bool {
		return w.Deployment.Status.Conditions[i].Type < w.Deployment.Status.Conditions[j].Type
	})
	rsl, err := client.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return w, err
	}
	for _, rs := range rsl.Items {
		ref := metav1.GetControllerOfNoCopy(&rs)
		w.ReplicaSets = append(w.ReplicaSets, rsView{Name: rs.Name, Controlled: ref != nil && ref.UID == d.UID,
			Replicas: *rs.Spec.Replicas, Image: rs.Spec.Template.Spec.Containers[0].Image, Annotations: rs.Annotations})
	}
	sort.Slice(w.ReplicaSets, func(i, j int) bool { return w.ReplicaSets[i].Name < w.ReplicaSets[j].Name })
	evs, err := client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return w, err
	}
	seen := map[string]bool{}
	for _, e := range evs.Items {
		if e.InvolvedObject.Kind == "Deployment" && e.InvolvedObject.Name == dName && !seen[e.Reason] {
			seen[e.Reason] = true
			w.Events = append(w.Events, e.Reason)
		}
	}
	sort.Strings(w.Events)
	return w, nil
}
