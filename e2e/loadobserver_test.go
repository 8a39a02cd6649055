package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/deploysync/deploysync/deployutil"
)

// loadObserver watches every object of the load (label loadLabel) in all
// namespaces. It knows when a flavour's namespaces last changed, and
// checks, on every change it sees, the invariants of the Deployment the
// change belongs to:
//
//   - its ReplicaSets never ask for more pods than its bounds allow
//     (replicas + maxSurge, the largest over the phase's replicas);
//   - for RollingUpdate, its Ready pods that are not terminating never
//     drop below replicas − maxUnavailable (the smallest over the phase);
//   - for Recreate, pods of two templates never exist at once;
//   - no two ReplicaSets it controls have the same template;
//   - no ReplicaSet of the load is without a controller (orphaned).
type loadObserver struct {
	ds, rss, pods cache.Indexer

	mu         sync.Mutex
	lastChange map[string]time.Time  // by flavour (the namespace's prefix)
	bounds     map[string]loadBounds // by namespace/name
	violations []string
	nViolation int
	// violated holds the invariants ("namespace/name kind") violated at
	// the last check: a violation is reported when it starts, not on
	// every event while it lasts.
	violated map[string]bool
}

type loadBounds struct {
	maxPods      int32
	minAvailable int32 // 0: not checked
	recreate     bool
}

const (
	loadLabel  = "e2e-load"
	podsByApp  = "e2e.nsApp"
	maxReports = 40
)

func startLoadObserver(client kubernetes.Interface, flavours []string) (*loadObserver, func()) {
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = loadLabel + "=1" }))
	dInf := factory.Apps().V1().Deployments().Informer()
	rsInf := factory.Apps().V1().ReplicaSets().Informer()
	podInf := factory.Core().V1().Pods().Informer()
	_ = podInf.AddIndexers(cache.Indexers{podsByApp: func(obj any) ([]string, error) {
		p := obj.(*corev1.Pod)
		return []string{p.Namespace + "/" + p.Labels["app"]}, nil
	}})
	o := &loadObserver{ds: dInf.GetIndexer(), rss: rsInf.GetIndexer(), pods: podInf.GetIndexer(),
		lastChange: map[string]time.Time{}, bounds: map[string]loadBounds{}, violated: map[string]bool{}}
	for _, f := range flavours {
		o.lastChange[f] = time.Now()
	}
	for _, inf := range []cache.SharedIndexInformer{dInf, rsInf, podInf} {
		_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { o.changed(obj) },
			UpdateFunc: func(_, obj any) { o.changed(obj) },
			DeleteFunc: func(obj any) { o.changed(obj) },
		})
	}
	stop := runUntilStopped(func(ctx context.Context) {
		factory.Start(ctx.Done())
		<-ctx.Done()
		factory.Shutdown()
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cache.WaitForCacheSync(ctx.Done(), dInf.HasSynced, rsInf.HasSynced, podInf.HasSynced)
	return o, stop
}

// flavourOf is the flavour of a load namespace: load-<flavour>-NN.
func flavourOf(ns string) string {
	s := strings.TrimPrefix(ns, "load-")
	if i := strings.LastIndex(s, "-"); i >= 0 {
		return s[:i]
	}
	return s
}

func (o *loadObserver) setBounds(key string, b loadBounds) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.bounds[key] = b
}

func (o *loadObserver) quietFor(flavour string) time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	return time.Since(o.lastChange[flavour])
}

func (o *loadObserver) lastChangeOf(flavour string) time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.lastChange[flavour]
}

// takeViolations returns the first violations seen since the last call,
// and how many there were in all.
func (o *loadObserver) takeViolations() ([]string, int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	v, n := o.violations, o.nViolation
	o.violations, o.nViolation = nil, 0
	return v, n
}

// holds records whether an invariant holds; a violation is reported when
// it starts.
func (o *loadObserver) holds(key string, ok bool, format string, args ...any) {
	if ok {
		delete(o.violated, key)
		return
	}
	if o.violated[key] {
		return
	}
	o.violated[key] = true
	o.violate(format, args...)
}

func (o *loadObserver) violate(format string, args ...any) {
	o.nViolation++
	if len(o.violations) < maxReports {
		o.violations = append(o.violations, time.Now().Format("15:04:05.000")+": "+fmt.Sprintf(format, args...))
	}
}

func (o *loadObserver) changed(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	var ns, dName string
	switch x := obj.(type) {
	case *appsv1.Deployment:
		ns, dName = x.Namespace, x.Name
	case *appsv1.ReplicaSet:
		ns = x.Namespace
		ref := metav1.GetControllerOfNoCopy(x)
		if ref == nil {
			o.holds(x.Namespace+"/"+x.Name+" orphan", x.DeletionTimestamp != nil, "replicaset %s/%s has no controller", x.Namespace, x.Name)
		} else {
			dName = ref.Name
		}
	case *corev1.Pod:
		ns, dName = x.Namespace, x.Labels["app"]
	default:
		return
	}
	o.lastChange[flavourOf(ns)] = time.Now()
	if dName != "" {
		o.check(ns, dName)
	}
}

// readyPods counts the Deployment's Ready pods that are not terminating.
func (o *loadObserver) readyPods(ns, name string) int32 {
	o.mu.Lock()
	defer o.mu.Unlock()
	pods, _ := o.pods.ByIndex(podsByApp, ns+"/"+name)
	var n int32
	for _, x := range pods {
		if p := x.(*corev1.Pod); p.DeletionTimestamp == nil && ready(p) {
			n++
		}
	}
	return n
}

// check tests the invariants of one Deployment on the observer's stores.
func (o *loadObserver) check(ns, name string) {
	obj, ok, _ := o.ds.GetByKey(ns + "/" + name)
	if !ok {
		return
	}
	d := obj.(*appsv1.Deployment)
	b := o.bounds[ns+"/"+name]
	objs, _ := o.rss.ByIndex(cache.NamespaceIndex, ns)
	var owned []*appsv1.ReplicaSet
	var sum int32
	for _, x := range objs {
		rs := x.(*appsv1.ReplicaSet)
		if ref := metav1.GetControllerOfNoCopy(rs); ref != nil && ref.UID == d.UID {
			owned = append(owned, rs)
			sum += *rs.Spec.Replicas
		}
	}
	key := ns + "/" + name
	o.holds(key+" surge", b.maxPods == 0 || sum <= b.maxPods,
		"ReplicaSets of %s/%s ask for %d pods, more than %d (replicas + maxSurge)", ns, name, sum, b.maxPods)
	dup := ""
	for i := range owned {
		for j := i + 1; j < len(owned); j++ {
			if deployutil.EqualIgnoreHash(&owned[i].Spec.Template, &owned[j].Spec.Template) {
				dup = owned[i].Name + " and " + owned[j].Name
			}
		}
	}
	o.holds(key+" template", dup == "", "%s/%s controls two ReplicaSets with one template: %s", ns, name, dup)
	pods, _ := o.pods.ByIndex(podsByApp, ns+"/"+name)
	if b.minAvailable > 0 {
		var n int32
		for _, x := range pods {
			if p := x.(*corev1.Pod); p.DeletionTimestamp == nil && ready(p) {
				n++
			}
		}
		o.holds(key+" available", n >= b.minAvailable,
			"%d pods of %s/%s ready, fewer than %d (replicas − maxUnavailable)", n, ns, name, b.minAvailable)
	}
	if b.recreate {
		images := map[string]bool{}
		for _, x := range pods {
			images[x.(*corev1.Pod).Spec.Containers[0].Image] = true
		}
		var list []string
		for img := range images {
			list = append(list, img)
		}
		sort.Strings(list)
		o.holds(key+" recreate", len(list) <= 1, "pods of %s/%s with images %v exist at once", ns, name, list)
	}
}
