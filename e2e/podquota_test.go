package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/diagnose"
	"github.com/deploysync/deploysync/simulate"
)

// testPodQuota holds diagnose's advice for a full pod quota to the real
// control plane: a Deployment of 4 replicas (maxSurge 1, maxUnavailable 0)
// in a namespace whose ResourceQuota allows exactly its 4 pods (the status
// kube-controller-manager's ResourceQuota controller writes, the refusal
// the apiserver's admission plugin's). The image change's surge pod is
// refused and, with maxUnavailable 0, nothing moves. diagnose.Rollout on
// the live state must say so and name both ways out; each is then taken
// in its own namespace, and the rollout must complete: the quota raised
// by maxSurge, or maxSurge 0 with maxUnavailable 1 and the quota as it is.
func testPodQuota(t *testing.T, cfg *restclient.Config) {
	for _, way := range []struct {
		name string
		fix  func(ctx context.Context, t *testing.T, c *podQuotaRun)
	}{
		{"raise the quota", func(ctx context.Context, t *testing.T, c *podQuotaRun) {
			q, err := c.client.CoreV1().ResourceQuotas(c.ns).Get(ctx, "pods", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			q.Spec.Hard[corev1.ResourcePods] = *resource.NewQuantity(5, resource.DecimalSI)
			if _, err := c.client.CoreV1().ResourceQuotas(c.ns).Update(ctx, q, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}},
		{"roll with maxSurge 0", func(ctx context.Context, t *testing.T, c *podQuotaRun) {
			patch := `{"spec":{"strategy":{"rollingUpdate":{"maxSurge":0,"maxUnavailable":1}}}}`
			if _, err := c.client.AppsV1().Deployments(c.ns).Patch(ctx, dName, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(strings.ReplaceAll(way.name, " ", "-"), func(t *testing.T) {
			t.Parallel()
			c := startPodQuotaRun(t, cfg)
			ctx := context.Background()
			unblock := c.stalled(ctx, t)
			for _, want := range []string{"quota pods is full (4 of 4 pods)", "with maxUnavailable 0 no old pod goes", "cannot move",
				"raise the quota's pods by 1", "set maxSurge 0 and maxUnavailable at least 1"} {
				if !strings.Contains(unblock, want) {
					t.Errorf("diagnose on the stalled rollout: %q lacks %q", unblock, want)
				}
			}
			start := time.Now()
			way.fix(ctx, t, c)
			waitSimReal(t, c.client, c.ns, "the rollout after the fix ("+way.name+")", simulate.Complete, 2*time.Minute)
			t.Logf("%s: the rollout completed %v after the fix", way.name, time.Since(start).Round(time.Millisecond))
		})
	}
}

// podQuotaRun is one namespace of testPodQuota with its controllers.
type podQuotaRun struct {
	client kubernetes.Interface
	ns     string
}

func startPodQuotaRun(t *testing.T, cfg *restclient.Config) *podQuotaRun {
	ctx := context.Background()
	client := clientFor(t, cfg, "podquota")
	ns := fmt.Sprintf("podquota-%d", nsCounter.Add(1))
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace %s: %v", ns, err)
	}
	_, stopDrv := startPodDriver(t, client, ns, 500*time.Millisecond, time.Second)
	t.Cleanup(stopDrv)
	t.Cleanup(startReplicaSetController(t, cfg, ns))
	t.Cleanup(startUpstreamDeploymentController(t, cfg, ns))
	t.Cleanup(startQuotaController(t, cfg, ns))
	d := newDeployment(4, "nginx:1.27")
	d.Namespace = ns
	surge, unavailable := intstr.FromInt32(1), intstr.FromInt32(0)
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}}
	if _, err := client.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating deployment: %v", err)
	}
	waitSimReal(t, client, ns, "the steady state", simulate.Complete, 2*time.Minute)
	createPodQuota(t, ctx, client, ns, 4)
	return &podQuotaRun{client: client, ns: ns}
}

// stalled changes the image, waits until the Deployment reports the
// ReplicaSet controller's ReplicaFailure, and returns what
// diagnose.Rollout says to do about it on the live state.
func (c *podQuotaRun) stalled(ctx context.Context, t *testing.T) string {
	patch := `{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.28"}]}}}}`
	if _, err := c.client.AppsV1().Deployments(c.ns).Patch(ctx, dName, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("changing the image: %v", err)
	}
	var d *appsv1.Deployment
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		d, err = c.client.AppsV1().Deployments(c.ns).Get(ctx, dName, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		cond := deployutil.GetCondition(d.Status, appsv1.DeploymentReplicaFailure)
		return cond != nil && cond.Status == corev1.ConditionTrue, nil
	})
	if err != nil {
		t.Fatalf("no ReplicaFailure on the Deployment a minute after the image change: %v", err)
	}
	unblock, err := diagnoseLive(ctx, c.client, d, diagnose.ReplicaFailure)
	switch {
	case err != nil:
		t.Fatalf("diagnose.Rollout: %v", err)
	case unblock == "":
		t.Fatalf("diagnose.Rollout named no ReplicaFailure on the stalled rollout")
	}
	t.Logf("the cluster's refusal: %s; diagnose: %s", deployutil.GetCondition(d.Status, appsv1.DeploymentReplicaFailure).Message, unblock)
	return unblock
}

// podQuotaName names the pod quota of the tests.
const podQuotaName = "pods"

// createPodQuota puts a ResourceQuota of n pods on ns and returns once the
// quota controller has counted the namespace's pods: when the apiserver
// refuses a dry-run pod past them (n pods being there).
func createPodQuota(t *testing.T, ctx context.Context, client kubernetes.Interface, ns string, n int64) {
	t.Helper()
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: podQuotaName, Namespace: ns},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: *resource.NewQuantity(n, resource.DecimalSI)}}}
	if _, err := client.CoreV1().ResourceQuotas(ns).Create(ctx, q, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the pod quota: %v", err)
	}
	start := time.Now()
	probe := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: ns},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "probe"}}}}
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().Pods(ns).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return apierrors.IsForbidden(err) && strings.Contains(err.Error(), "exceeded quota"), nil
	})
	if err != nil {
		t.Fatalf("the pod quota of %d does not refuse another pod: %v", n, err)
	}
	t.Logf("the pod quota of %d refuses another pod in %s %v after its create", n, ns, time.Since(start).Round(time.Millisecond))
}

// quotaLag measures the pod quota's replenishment on the cluster: the time
// from a pod's removal (its delete event) to the quota controller's status
// write that no longer counts it (used pods lower), which is when the
// apiserver's ResourceQuota admission has room again. The simulator's
// world frees the room at the pod's end (simulate.WithPodQuota).
type quotaLag struct {
	mu        sync.Mutex
	removed   []time.Time // pod delete events, as the test's watch sees them
	decreased []time.Time // quota status writes with fewer pods used
	stop      context.CancelFunc
}

// startQuotaLag watches ns's pods and its quota named podQuotaName until
// the returned value's stop.
func startQuotaLag(t *testing.T, client kubernetes.Interface, ns string) *quotaLag {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	q := &quotaLag{stop: cancel}
	pw, err := client.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watching the pods of %s: %v", ns, err)
	}
	qw, err := client.CoreV1().ResourceQuotas(ns).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + podQuotaName})
	if err != nil {
		t.Fatalf("watching the pod quota of %s: %v", ns, err)
	}
	go func() {
		for ev := range pw.ResultChan() {
			if ev.Type == watch.Deleted {
				q.mu.Lock()
				q.removed = append(q.removed, time.Now())
				q.mu.Unlock()
			}
		}
	}()
	go func() {
		last := int64(-1)
		for ev := range qw.ResultChan() {
			rq, ok := ev.Object.(*corev1.ResourceQuota)
			if !ok {
				continue
			}
			used := rq.Status.Used[corev1.ResourcePods]
			n := used.Value()
			if last >= 0 && n < last {
				q.mu.Lock()
				q.decreased = append(q.decreased, time.Now())
				q.mu.Unlock()
			}
			last = n
		}
	}()
	return q
}

// String gives the measure: each decrease paired with the removal nearest
// to it within a second (the two watches are two streams: the quota's
// event may reach the test first), the median and range of the lags, and
// how many decreases had no removal near.
func (q *quotaLag) String() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	var lags []time.Duration
	alone := 0
	for _, d := range q.decreased {
		best, ok := time.Duration(0), false
		for _, r := range q.removed {
			if lag := d.Sub(r); lag > -time.Second && lag < time.Second && (!ok || lag.Abs() < best.Abs()) {
				best, ok = lag, true
			}
		}
		if !ok {
			alone++
			continue
		}
		lags = append(lags, best)
	}
	if len(lags) == 0 {
		return fmt.Sprintf("no replenishment seen (%d decreases of used pods with no removal within a second)", alone)
	}
	slices.Sort(lags)
	return fmt.Sprintf("median %v (%v to %v; negative: the quota's event reached the test first) over %d replenishments, %d decreases with no removal within a second",
		lags[len(lags)/2].Round(100*time.Microsecond), lags[0].Round(100*time.Microsecond), lags[len(lags)-1].Round(100*time.Microsecond), len(lags), alone)
}
