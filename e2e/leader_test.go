package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/deploysync/deploysync/examples/controller/applier"
	"github.com/deploysync/deploysync/examples/controller/controller"
)

// Leader election of our controller's replicas: short periods, so that a
// crashed leader's lease expires within seconds.
const (
	leaseDuration = 4 * time.Second
	renewDeadline = 3 * time.Second
	retryPeriod   = 500 * time.Millisecond
	leaseName     = "deploysync-e2e"
)

// countingSink is a logger that counts the messages equal to msg and
// drops everything else, or, with a trace, writes every message there as
// well: the controllers' syncs are counted from the message each logs once
// per sync.
type countingSink struct {
	msg    string
	n      *atomic.Int64
	trace  *controllerTrace
	name   string
	values []any
}

func (s countingSink) Init(logr.RuntimeInfo) {}
func (s countingSink) Enabled(int) bool      { return true }
func (s countingSink) Info(v int, msg string, kv ...any) {
	if msg == s.msg {
		s.n.Add(1)
	}
	if v <= 6 { // above 6, client-go logs request and response bodies
		s.trace.write(s.name, fmt.Sprintf("V%d", v), msg, nil, s.values, kv)
	}
}
func (s countingSink) Error(err error, msg string, kv ...any) {
	s.trace.write(s.name, "E", msg, err, s.values, kv)
}
func (s countingSink) WithValues(kv ...any) logr.LogSink {
	s.values = append(s.values[:len(s.values):len(s.values)], kv...)
	return s
}
func (s countingSink) WithName(string) logr.LogSink { return s }

// countSyncs returns ctx with a logger that counts msg into n (and writes
// every message to trace, if any, as the flavour name).
func countSyncs(ctx context.Context, msg string, n *atomic.Int64, trace *controllerTrace, name string) context.Context {
	return klog.NewContext(ctx, logr.New(countingSink{msg: msg, n: n, trace: trace, name: name}))
}

// controllerTrace is DEPLOYSYNC_E2E_CONTROLLER_LOG=FILE: every log message
// of the load's kube-controller-manager Deployment controller and of our
// client-go controller's replicas, one line each with the time, the
// flavour, the verbosity and the key-value pairs (the test's own log
// drops them). nil: none.
type controllerTrace struct {
	mu sync.Mutex
	f  *os.File
}

func openControllerTrace(t *testing.T) *controllerTrace {
	path := os.Getenv("DEPLOYSYNC_E2E_CONTROLLER_LOG")
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatalf("DEPLOYSYNC_E2E_CONTROLLER_LOG: %v", err)
	}
	ct := &controllerTrace{f: f}
	t.Cleanup(func() {
		ct.mu.Lock()
		defer ct.mu.Unlock()
		_ = ct.f.Close()
		ct.f = nil
	})
	return ct
}

func (ct *controllerTrace) write(name, level, msg string, err error, values, kv []any) {
	if ct == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s %q", time.Now().UTC().Format("15:04:05.000000"), name, level, msg)
	if err != nil {
		fmt.Fprintf(&b, " err=%q", err.Error())
	}
	for _, list := range [][]any{values, kv} {
		for i := 0; i+1 < len(list); i += 2 {
			fmt.Fprintf(&b, " %v=%q", list[i], fmt.Sprint(list[i+1]))
		}
	}
	b.WriteByte('\n')
	ct.mu.Lock()
	defer ct.mu.Unlock()
	if ct.f != nil {
		_, _ = ct.f.WriteString(b.String())
	}
}

// electedControllers runs replicas of our client-go controller that elect
// a leader through a Lease; only the leader runs the controller, with
// fresh informers each time it starts leading. A replica whose lease is
// lost starts over, as a restarted pod would.
type electedControllers struct {
	t          *testing.T
	cfg        *restclient.Config // faulted
	leases     kubernetes.Interface
	leaseNS    string
	flavourSel string
	workers    int
	syncs      *atomic.Int64
	trace      *controllerTrace // nil: none

	mu       sync.Mutex
	next     int
	replicas []*replica
	// takeovers records when each replica started leading.
	takeovers []takeover
}

type takeover struct {
	id string
	at time.Time
}

type replica struct {
	id      string
	cancel  context.CancelFunc
	done    chan struct{}
	leading atomic.Bool
}

// start starts a fresh replica. A stopped replica does not give its lease
// up: it is killed, and its lease expires.
func (e *electedControllers) start() *replica {
	e.mu.Lock()
	e.next++
	r := &replica{id: fmt.Sprintf("deploysync-%d", e.next), done: make(chan struct{})}
	e.replicas = append(e.replicas, r)
	e.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() {
		defer close(r.done)
		for ctx.Err() == nil {
			e.elect(ctx, r)
		}
	}()
	return r
}

// elect campaigns once and, if elected, runs the controller until the
// lease is lost or ctx is done.
func (e *electedControllers) elect(ctx context.Context, r *replica) {
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: e.leaseNS, Name: leaseName},
		Client:     e.leases.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: r.id},
	}
	led := make(chan context.Context, 1)
	elected := make(chan struct{})
	go func() {
		defer close(elected)
		leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
			Lock: lock, LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
			ReleaseOnCancel: false, Name: r.id,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(lctx context.Context) { led <- lctx },
				OnStoppedLeading: func() {},
			},
		})
	}()
	select {
	case lctx := <-led:
		r.leading.Store(true)
		e.mu.Lock()
		e.takeovers = append(e.takeovers, takeover{r.id, time.Now()})
		e.mu.Unlock()
		e.run(lctx)
		r.leading.Store(false)
	case <-elected:
	}
	<-elected
}

// run is one life of the controller: fresh client, informers, queue.
func (e *electedControllers) run(ctx context.Context) {
	cfg := restclient.CopyConfig(e.cfg)
	cfg.QPS, cfg.Burst = 1000, 1000
	client, err := kubernetes.NewForConfig(restclient.AddUserAgent(cfg, "deploysync-controller"))
	if err != nil {
		e.t.Errorf("client: %v", err)
		return
	}
	dFactory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = e.flavourSel }))
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = loadLabel + "=1" }))
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	defer broadcaster.Shutdown()
	recorder := broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: applier.Component})
	c, err := controller.New(client, dFactory.Apps().V1().Deployments(), factory.Apps().V1().ReplicaSets(), factory.Core().V1().Pods(), recorder)
	if err != nil {
		e.t.Errorf("client-go controller: %v", err)
		return
	}
	ctx = countSyncs(ctx, "Applying plan", e.syncs, e.trace, oursFlavour)
	dFactory.Start(ctx.Done())
	factory.Start(ctx.Done())
	c.Run(ctx, e.workers)
	dFactory.Shutdown()
	factory.Shutdown()
}

// leader returns the leading replica, waiting up to a minute for one.
func (e *electedControllers) leader() *replica {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		e.mu.Lock()
		for _, r := range e.replicas {
			if r.leading.Load() {
				e.mu.Unlock()
				return r
			}
		}
		e.mu.Unlock()
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}

// stop kills a replica and waits until its controller has stopped.
func (e *electedControllers) stop(r *replica) {
	r.cancel()
	<-r.done
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, x := range e.replicas {
		if x == r {
			e.replicas = append(e.replicas[:i], e.replicas[i+1:]...)
			break
		}
	}
}

func (e *electedControllers) stopAll() {
	e.mu.Lock()
	rs := append([]*replica(nil), e.replicas...)
	e.mu.Unlock()
	for _, r := range rs {
		e.stop(r)
	}
}

// killLeader kills the leader, starts a fresh replica in its place, and
// returns the killed replica's id and how long the replicas were without
// a leader.
func (e *electedControllers) killLeader() (string, time.Duration, error) {
	r := e.leader()
	if r == nil {
		return "", 0, fmt.Errorf("no replica leads")
	}
	killed := time.Now()
	e.stop(r)
	e.start()
	if e.leader() == nil {
		return r.id, 0, fmt.Errorf("no replica took over from %s", r.id)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	last := e.takeovers[len(e.takeovers)-1]
	return r.id, last.at.Sub(killed), nil
}
