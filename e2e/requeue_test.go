package e2e

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/simulate"
)

// The Deployment controller's rate-limited requeues, measured (issue 27,
// the knob of the workqueue): a steady Deployment past its progress
// deadline whose pod stops being ready is, for upstream, not complete, not
// progressing and never timed out (Progressing NewReplicaSetAvailable), so
// every sync ends in requeueStuckDeployment's AddRateLimited and the
// worker's Forget. The controller then syncs as fast as the workqueue's
// limiter lets it: 5 ms apart while the bucket's 100 tokens last, then 10
// a second, until the pod is ready again. The simulator (internal/ratelimit
// in simulate's nextTime) predicts that from the cluster's own objects;
// here kube-controller-manager's controller, logging each sync at V(4) to
// the test, does it.

// requeueUnready is how long the pod stays unready: the simulator's
// readiness delay for a Running pod that is not ready.
const requeueUnready = 3 * time.Second

// syncLog is a logr sink for kube-controller-manager's Deployment
// controller: it keeps the time of each "Started syncing deployment" and
// of each rate-limited requeue ("Queueing up deployment for a progress
// check now"), per Deployment, and drops everything else.
type syncLog struct {
	mu       sync.Mutex
	syncs    map[string][]time.Time
	requeues map[string][]time.Time
}

func newSyncLog() *syncLog {
	return &syncLog{syncs: map[string][]time.Time{}, requeues: map[string][]time.Time{}}
}

func (l *syncLog) Init(logr.RuntimeInfo) {}

// Enabled: the controller logs both messages at V(4).
func (l *syncLog) Enabled(level int) bool { return level <= 4 }

func (l *syncLog) Info(_ int, msg string, kv ...any) {
	var into map[string][]time.Time
	switch msg {
	case "Started syncing deployment":
		into = l.syncs
	case "Queueing up deployment for a progress check now":
		into = l.requeues
	default:
		return
	}
	now := time.Now()
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i] == "deployment" {
			key := fmt.Sprint(kv[i+1])
			l.mu.Lock()
			into[key] = append(into[key], now)
			l.mu.Unlock()
			return
		}
	}
}

func (l *syncLog) Error(error, string, ...any)    {}
func (l *syncLog) WithValues(...any) logr.LogSink { return l }
func (l *syncLog) WithName(string) logr.LogSink   { return l }
func (l *syncLog) times(key string) (syncs, requeues []time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.syncs[key]), slices.Clone(l.requeues[key])
}

// requeueCounts is what the two worlds are compared on, over the time the
// pod is unready, from the sync that writes the lower availability.
type requeueCounts struct {
	syncs int // syncs in the window
	// burst is the syncs before the first gap of 50 ms or more: how long
	// the bucket's tokens lasted, which depends on how long a sync takes
	// (on the cluster, the machine's load), so it is reported only.
	burst int
	// steady is the median gap between the syncs of the window's last
	// second, when both worlds have used up the bucket's tokens.
	steady time.Duration
}

func (c requeueCounts) String() string {
	if c.steady == 0 {
		return fmt.Sprintf("%d syncs, %d in the burst, none a second before the end", c.syncs, c.burst)
	}
	return fmt.Sprintf("%d syncs, %d in the burst, then one every %v", c.syncs, c.burst, c.steady)
}

// countRequeues reads syncs (times from the window's start, ascending)
// that fall before end.
func countRequeues(syncs []time.Duration, end time.Duration) requeueCounts {
	var c requeueCounts
	var gaps []time.Duration
	for i, s := range syncs {
		if s >= end {
			break
		}
		c.syncs++
		if i == 0 {
			continue
		}
		gap := s - syncs[i-1]
		if gap >= 50*time.Millisecond && c.burst == 0 {
			c.burst = i
		}
		if syncs[i-1] >= end-time.Second {
			gaps = append(gaps, gap)
		}
	}
	if len(gaps) > 0 {
		slices.Sort(gaps)
		c.steady = gaps[len(gaps)/2]
	}
	return c
}

// within reports whether got is within 10% of want (the measure
// for durations, here for counts and gaps).
func within[T int | time.Duration](got, want T) bool {
	d := got - want
	if d < 0 {
		d = -d
	}
	return 10*d <= want
}

func testRequeue(t *testing.T, cfg *restclient.Config) {
	ctx := context.Background()
	client := clientFor(t, cfg, "requeue")
	ns := fmt.Sprintf("requeue-%d", nsCounter.Add(1))
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace %s: %v", ns, err)
	}
	_, stopDrv := startPodDriver(t, client, ns, 500*time.Millisecond, time.Second)
	t.Cleanup(stopDrv)
	t.Cleanup(startReplicaSetControllerWith(t, cfg, ns, 1))
	log := newSyncLog()
	t.Cleanup(startLoggedDeploymentController(t, cfg, ns, log))

	d := newDeployment(3, "nginx:1.27")
	d.Namespace = ns
	d.Spec.ProgressDeadlineSeconds = ptr.To[int32](2)
	if _, err := client.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating deployment: %v", err)
	}
	live := waitSimReal(t, client, ns, "the steady state", simulate.Complete, 2*time.Minute)
	// Past the deadline: Progressing's lastUpdateTime (whole seconds) plus
	// 2 s, with a second to spare.
	cond := deployutil.GetCondition(live.Status, appsv1.DeploymentProgressing)
	if cond == nil || cond.Reason != "NewReplicaSetAvailable" {
		t.Fatalf("steady state without Progressing NewReplicaSetAvailable: %+v", live.Status.Conditions)
	}
	time.Sleep(time.Until(cond.LastUpdateTime.Add(4 * time.Second)))

	pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(pods.Items) != 3 {
		t.Fatalf("listing the pods: %d, %v", len(pods.Items), err)
	}
	victim := pods.Items[0].Name
	key := ns + "/" + d.Name
	before, _ := log.times(key)
	setPodReady(t, client, ns, victim, false)

	// The window opens at the first sync after the pod's change (the one
	// the ReplicaSet's status update brings, which writes the lower
	// availability); the pod is ready again requeueUnready later.
	var start time.Time
	for deadline := time.Now().Add(10 * time.Second); start.IsZero(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no Deployment sync within 10 s of the pod becoming unready")
		}
		if s, _ := log.times(key); len(s) > len(before) {
			start = s[len(before)]
		}
	}
	// The simulator's input: the cluster's objects once the ReplicaSet's
	// status counts the unready pod, at the window's start.
	state := liveSnapshot(t, client, ns, start, 2)
	time.Sleep(time.Until(start.Add(requeueUnready)))
	end := time.Now()
	setPodReady(t, client, ns, victim, true)
	waitSimReal(t, client, ns, "complete again", simulate.Complete, time.Minute)

	syncs, requeues := log.times(key)
	var real []time.Duration
	for _, s := range syncs[len(before):] {
		real = append(real, s.Sub(start))
	}
	realRequeues := 0
	for _, r := range requeues {
		if !r.Before(start) && r.Before(end) {
			realRequeues++
		}
	}

	tl, err := simulate.Run(state, simulate.WithReadinessDelay(requeueUnready))
	if err != nil {
		t.Fatalf("simulate.Run: %v", err)
	}
	var sim []time.Duration
	simRequeues := 0
	for _, st := range tl.Steps {
		sim = append(sim, st.Elapsed)
		if st.Requeue && st.Elapsed < requeueUnready {
			simRequeues++
		}
	}
	got := countRequeues(real, end.Sub(start))
	want := countRequeues(sim, requeueUnready)
	// The old grid, for contrast: a sync per whole second.
	coarse, err := simulate.Run(state, simulate.WithReadinessDelay(requeueUnready), simulate.WithTick(time.Second))
	if err != nil {
		t.Fatalf("simulate.Run at a 1 s tick: %v", err)
	}
	var grid []time.Duration
	for _, st := range coarse.Steps {
		grid = append(grid, st.Elapsed)
	}
	t.Logf("at a 1 s tick the simulator would say %v", countRequeues(grid, requeueUnready))
	t.Logf("pod %s unready for %v (window %v): kube-controller-manager %v, %d rate-limited requeues; simulator %v, %d; outcome %s",
		victim, requeueUnready, end.Sub(start).Round(time.Millisecond), got, realRequeues, want, simRequeues, tl.Outcome)
	if tl.Outcome != simulate.Complete {
		t.Errorf("simulator: outcome %s, want Complete (the pod ready again)", tl.Outcome)
	}
	if !within(got.syncs, want.syncs) || !within(got.steady, want.steady) {
		t.Errorf("the controller's syncs while the pod is unready: real %v, simulated %v (syncs and the last second's gap within 10%% wanted)", got, want)
	}
	if !within(realRequeues, simRequeues) {
		t.Errorf("rate-limited requeues: real %d, simulated %d", realRequeues, simRequeues)
	}
}

// setPodReady sets the pod's Ready and ContainersReady conditions, as a
// kubelet does when a readiness probe fails or passes again.
func setPodReady(t *testing.T, client kubernetes.Interface, ns, name string, ready bool) {
	t.Helper()
	status := "False"
	if ready {
		status = "True"
	}
	stamp := metav1.Now().UTC().Format(time.RFC3339)
	patch := fmt.Sprintf(`{"status":{"conditions":[`+
		`{"type":"ContainersReady","status":%q,"lastTransitionTime":%q},`+
		`{"type":"Ready","status":%q,"lastTransitionTime":%q}]}}`, status, stamp, status, stamp)
	// A strategic merge patch merges conditions by type.
	if _, err := client.CoreV1().Pods(ns).Patch(context.Background(), name, types.StrategicMergePatchType, []byte(patch),
		metav1.PatchOptions{}, "status"); err != nil {
		t.Fatalf("setting pod %s ready=%v: %v", name, ready, err)
	}
}

// liveSnapshot waits until the namespace's one ReplicaSet counts ready
// pods ready and returns the namespace's objects as a deploysync.State at
// now.
func liveSnapshot(t *testing.T, client kubernetes.Interface, ns string, now time.Time, ready int32) deploysync.State {
	t.Helper()
	ctx := context.Background()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the ReplicaSet's status never counted %d pods ready", ready)
		}
		rss, err := client.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("listing ReplicaSets: %v", err)
		}
		if len(rss.Items) != 1 || rss.Items[0].Status.ReadyReplicas != ready {
			continue
		}
		d, err := client.AppsV1().Deployments(ns).Get(ctx, dName, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("getting the Deployment: %v", err)
		}
		pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("listing pods: %v", err)
		}
		s := deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{&rss.Items[0]},
			Pods: map[types.UID][]*corev1.Pod{}, Now: now}
		for i := range pods.Items {
			p := &pods.Items[i]
			if c := metav1.GetControllerOf(p); c != nil {
				s.Pods[c.UID] = append(s.Pods[c.UID], p)
			}
		}
		return s
	}
}
