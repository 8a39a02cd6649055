package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// podDriver stands in for kubelets: it marks pods Running and Ready some
// time after it first sees them, unless their image is held, and removes
// pods being deleted some time after they started terminating (with no
// kubelet, a scheduled pod deleted with a grace period stays terminating
// until someone force-deletes it).
type podDriver struct {
	client     kubernetes.Interface
	readyAfter time.Duration
	goneAfter  time.Duration

	mu        sync.Mutex
	held      map[string]bool // images whose pods stay unready
	firstSeen map[types.UID]time.Time
	deleting  map[types.UID]time.Time
	readied   map[types.UID]bool
	// workers > 1: step collects the calls under the lock and makes them
	// outside it, that many at once; removed holds the pods whose removal
	// was sent, so that a pod is removed once.
	workers int
	removed map[types.UID]bool
}

// startPodDriver drives the pods of a namespace until the returned stop is
// called.
func startPodDriver(t *testing.T, client kubernetes.Interface, ns string, readyAfter, goneAfter time.Duration) (*podDriver, func()) {
	return startPodDriverWith(t, client, ns, readyAfter, goneAfter, 1, informers.WithNamespace(ns))
}

// startPodDriverWith drives the pods the factory options select, with up
// to workers API calls at once (1: one after the other, under the
// driver's lock, as the scenarios have always run); where names what is
// driven in the log.
func startPodDriverWith(t *testing.T, client kubernetes.Interface, where string, readyAfter, goneAfter time.Duration,
	workers int, opts ...informers.SharedInformerOption) (*podDriver, func()) {
	p := &podDriver{
		client: client, readyAfter: readyAfter, goneAfter: goneAfter,
		held: map[string]bool{}, firstSeen: map[types.UID]time.Time{}, deleting: map[types.UID]time.Time{}, readied: map[types.UID]bool{},
		workers: workers, removed: map[types.UID]bool{},
	}
	stop := runOnPods(t, client, where, 25*time.Millisecond, p.step, opts...)
	return p, stop
}

// hold keeps the pods of an image unready until release.
func (p *podDriver) hold(image string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.held[image] = true
}

func (p *podDriver) release(image string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.held, image)
}

// runOnPods runs step every period on the store of a pod informer (the
// factory options select the pods), from the informer's first sync until
// the returned stop is called; step's errors are logged, naming where.
// The pod drivers of the scenarios, of the load test and of simreal run
// on it.
func runOnPods(t *testing.T, client kubernetes.Interface, where string, period time.Duration,
	step func(context.Context, cache.Store) error, opts ...informers.SharedInformerOption) (stop func()) {
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, opts...)
	inf := factory.Core().V1().Pods().Informer()
	return runUntilStopped(func(ctx context.Context) {
		factory.Start(ctx.Done())
		defer factory.Shutdown()
		if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
			return
		}
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if err := step(ctx, inf.GetStore()); err != nil && ctx.Err() == nil {
					t.Logf("pod driver (%s): %v", where, err)
				}
			}
		}
	})
}

func (p *podDriver) step(ctx context.Context, store cache.Store) error {
	if p.workers > 1 {
		return p.stepParallel(ctx, store)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	for _, o := range store.List() {
		pod := o.(*corev1.Pod)
		if pod.DeletionTimestamp != nil {
			since, ok := p.deleting[pod.UID]
			if !ok {
				p.deleting[pod.UID] = now
				continue
			}
			if now.Sub(since) < p.goneAfter {
				continue
			}
			err := p.client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
				GracePeriodSeconds: ptr.To[int64](0), Preconditions: &metav1.Preconditions{UID: &pod.UID}})
			if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				return err
			}
			continue
		}
		if ready(pod) || p.readied[pod.UID] || p.held[pod.Spec.Containers[0].Image] {
			continue
		}
		since, ok := p.firstSeen[pod.UID]
		if !ok {
			p.firstSeen[pod.UID] = now
			continue
		}
		if now.Sub(since) < p.readyAfter {
			continue
		}
		stamp := metav1.NewTime(now).UTC().Format(time.RFC3339)
		patch := fmt.Sprintf(`{"status":{"phase":"Running","conditions":[`+
			`{"type":"PodScheduled","status":"True","lastTransitionTime":%q},`+
			`{"type":"Initialized","status":"True","lastTransitionTime":%q},`+
			`{"type":"ContainersReady","status":"True","lastTransitionTime":%q},`+
			`{"type":"Ready","status":"True","lastTransitionTime":%q}]}}`, stamp, stamp, stamp, stamp)
		_, err := p.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "status")
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		p.readied[pod.UID] = true
	}
	return nil
}

func ready(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// stepParallel does what step does for many pods: it decides under the
// lock, then calls the API with p.workers calls at once.
func (p *podDriver) stepParallel(ctx context.Context, store cache.Store) error {
	var calls []func() error
	p.mu.Lock()
	now := time.Now()
	for _, o := range store.List() {
		pod := o.(*corev1.Pod)
		if pod.DeletionTimestamp != nil {
			since, ok := p.deleting[pod.UID]
			if !ok {
				p.deleting[pod.UID] = now
				continue
			}
			if now.Sub(since) < p.goneAfter || p.removed[pod.UID] {
				continue
			}
			p.removed[pod.UID] = true
			calls = append(calls, func() error {
				err := p.client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
					GracePeriodSeconds: ptr.To[int64](0), Preconditions: &metav1.Preconditions{UID: &pod.UID}})
				if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
					p.mu.Lock()
					delete(p.removed, pod.UID)
					p.mu.Unlock()
					return err
				}
				return nil
			})
			continue
		}
		if ready(pod) || p.readied[pod.UID] || p.held[pod.Spec.Containers[0].Image] {
			continue
		}
		since, ok := p.firstSeen[pod.UID]
		if !ok {
			p.firstSeen[pod.UID] = now
			continue
		}
		if now.Sub(since) < p.readyAfter {
			continue
		}
		p.readied[pod.UID] = true
		stamp := metav1.NewTime(now).UTC().Format(time.RFC3339)
		patch := fmt.Sprintf(`{"status":{"phase":"Running","conditions":[`+
			`{"type":"PodScheduled","status":"True","lastTransitionTime":%q},`+
			`{"type":"Initialized","status":"True","lastTransitionTime":%q},`+
			`{"type":"ContainersReady","status":"True","lastTransitionTime":%q},`+
			`{"type":"Ready","status":"True","lastTransitionTime":%q}]}}`, stamp, stamp, stamp, stamp)
		calls = append(calls, func() error {
			_, err := p.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "status")
			if err != nil && !apierrors.IsNotFound(err) {
				p.mu.Lock()
				delete(p.readied, pod.UID)
				p.mu.Unlock()
				return err
			}
			return nil
		})
	}
	p.mu.Unlock()
	errs := make(chan error, len(calls))
	sem := make(chan struct{}, p.workers)
	var wg sync.WaitGroup
	for _, call := range calls {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := call(); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}
