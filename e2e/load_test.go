package e2e

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/kubernetes/pkg/controller/deployment"
	"k8s.io/kubernetes/pkg/controller/replicaset"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
)

// loadForm is the size of a load run.
type loadForm struct {
	name                     string
	namespaces, perNamespace int
	// replicas are the Deployments' sizes, by (g/5)%len (see loadItems).
	replicas []int32
	// killIn names the phases during which the leader of our controller's
	// replicas is killed (2 s after the phase's change).
	killIn   map[string]bool
	settleIn time.Duration
}

var (
	// fullLoad is issue 16's load: DEPLOYSYNC_E2E_FULL=1.
	fullLoad = loadForm{name: "full", namespaces: 20, perNamespace: 10, settleIn: 20 * time.Minute, replicas: fullReplicas,
		killIn: map[string]bool{"rollout 1, new pods held": true, "rollout 1 released": true, "rollout 2 released": true}}
	// reducedLoad runs in CI: its Deployments are smaller (a rollout's
	// time grows with its pods, one at a time with maxSurge 0 and
	// maxUnavailable 1).
	reducedLoad = loadForm{name: "reduced", namespaces: 4, perNamespace: 10, settleIn: 8 * time.Minute,
		replicas: []int32{1, 2, 3, 5, 8, 1, 2, 3, 5, 20},
		killIn:   map[string]bool{"rollout 1 released": true}}
)

const (
	loadQuiet     = 3 * time.Second
	killDelay     = 2 * time.Second
	flavourLabel  = "e2e-flavour"
	kcmFlavour    = "kcm"
	oursFlavour   = "ours"
	loadWorkers   = 5 // kube-controller-manager's default --concurrent-deployment-syncs and --concurrent-replicaset-syncs
	driverWorkers = 8
)

// The Deployments of a load: strategy g%5, replicas (g/5)%10, so that
// every 50 Deployments hold every pair; a third keep one old ReplicaSet,
// the others upstream's default of ten; the even ones are scaled.
var (
	fullReplicas   = []int32{1, 3, 5, 8, 12, 20, 30, 50, 2, 10}
	loadStrategies = []struct {
		name        string
		surge, unav intstr.IntOrString
		isRecreate  bool
	}{
		{name: "25%/25%", surge: intstr.FromString("25%"), unav: intstr.FromString("25%")},
		{name: "0/1", surge: intstr.FromInt32(0), unav: intstr.FromInt32(1)},
		{name: "0/30%", surge: intstr.FromInt32(0), unav: intstr.FromString("30%")},
		{name: "50%/0", surge: intstr.FromString("50%"), unav: intstr.FromInt32(0)},
		{name: "Recreate", isRecreate: true},
	}
)

// loadItem is one Deployment of the load, the same in every flavour.
type loadItem struct {
	ns       int // namespace index
	name     string
	replicas int32
	scaledTo int32 // 0: not scaled
	strategy int
	history  *int32
}

func loadItems(f loadForm) []loadItem {
	var out []loadItem
	for k := range f.namespaces {
		for j := range f.perNamespace {
			g := k*f.perNamespace + j
			it := loadItem{ns: k, name: fmt.Sprintf("d%03d", g), strategy: g % len(loadStrategies),
				replicas: f.replicas[(g/len(loadStrategies))%len(f.replicas)]}
			if g%3 == 0 {
				it.history = ptr.To[int32](1)
			}
			if g%2 == 0 {
				it.scaledTo = scaledTo(it.replicas)
			}
			out = append(out, it)
		}
	}
	return out
}

// scaledTo halves large Deployments and doubles small ones (plus one), so
// that the scaled replicas stay within 1–50.
func scaledTo(n int32) int32 {
	if n >= 20 {
		return n / 2
	}
	return 2*n + 1
}

func loadNamespace(flavour string, k int) string { return fmt.Sprintf("load-%s-%02d", flavour, k) }

func (it loadItem) deployment(flavour string) *appsv1.Deployment {
	labels := map[string]string{"app": it.name, loadLabel: "1"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: it.name, Namespace: loadNamespace(flavour, it.ns),
			Labels: map[string]string{loadLabel: "1", flavourLabel: flavour}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(it.replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{NodeName: "no-kubelet",
					Containers: []corev1.Container{{Name: "web", Image: "web:1"}}},
			},
			RevisionHistoryLimit: it.history,
			// Longer than the longest phase of the full form on a busy
			// machine, so that no rollout's end depends on how long it took.
			ProgressDeadlineSeconds: ptr.To[int32](3600),
		},
	}
	st := loadStrategies[it.strategy]
	if st.isRecreate {
		d.Spec.Strategy.Type = appsv1.RecreateDeploymentStrategyType
	} else {
		d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(st.surge), MaxUnavailable: ptr.To(st.unav)}}
	}
	return d
}

// fenceposts resolves maxSurge (rounded up) and maxUnavailable (rounded
// down) for n replicas, one unavailable if both come to zero, as the
// apps/v1 API defines them.
func (it loadItem) fenceposts(n int32) (surge, unav int32) {
	st := loadStrategies[it.strategy]
	if st.isRecreate {
		return 0, n
	}
	s, _ := intstr.GetScaledValueFromIntOrPercent(&st.surge, int(n), true)
	u, _ := intstr.GetScaledValueFromIntOrPercent(&st.unav, int(n), false)
	if s == 0 && u == 0 {
		u = 1
	}
	return int32(s), int32(u)
}

// bounds over the replicas a Deployment has during a phase.
func (it loadItem) bounds(rolling bool, replicas ...int32) loadBounds {
	b := loadBounds{recreate: loadStrategies[it.strategy].isRecreate && rolling}
	for i, n := range replicas {
		s, u := it.fenceposts(n)
		b.maxPods = max(b.maxPods, n+s)
		if rolling && !b.recreate {
			if i == 0 || n-u < b.minAvailable {
				b.minAvailable = n - u
			}
		}
	}
	return b
}

// loadPhase is one change to every Deployment of the load.
type loadPhase struct {
	name string
	// hold and release name the image whose pods the driver holds unready.
	hold, release string
	// change changes one Deployment; nil changes none.
	change func(it loadItem, d *appsv1.Deployment) bool
	// until is what settled means, per Deployment.
	until func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) bool
	// bounds for a Deployment during the phase.
	bounds func(it loadItem) loadBounds
	// revisions, if set, are the revisions a Deployment's ReplicaSets must
	// have once the phase settles.
	revisions func(it loadItem) []string
	// scaling: the phase scales Deployments in the middle of a rollout.
	// Availability is not checked: proportional scaling splits the new
	// size by the ReplicaSets' shares, so the old, Ready share can fall
	// below replicas − maxUnavailable (both controllers do it: 30 → 15
	// replicas at 25%/25% left 11 Ready pods, not 12).
	scaling bool
	// fromReady: availability is checked against the Ready pods at the
	// phase's start when there are fewer than replicas − maxUnavailable
	// (after proportional scaling): the rollout must not lose more.
	fromReady bool
}

func setImageTo(image string) func(loadItem, *appsv1.Deployment) bool {
	return func(_ loadItem, d *appsv1.Deployment) bool {
		d.Spec.Template.Spec.Containers[0].Image = image
		return true
	}
}

func scaleTo(pick func(it loadItem) int32) func(loadItem, *appsv1.Deployment) bool {
	return func(it loadItem, d *appsv1.Deployment) bool {
		if it.scaledTo == 0 {
			return false
		}
		d.Spec.Replicas = ptr.To(pick(it))
		return true
	}
}

// stuck: the new ReplicaSet exists and asks for pods (which are held
// unready); nothing more can happen until they are released.
func stuck(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) bool {
	for _, rs := range rss {
		if deployutil.EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) && *rs.Spec.Replicas > 0 {
			return true
		}
	}
	return false
}

func completeLoad(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) bool {
	vals := make([]appsv1.ReplicaSet, len(rss))
	for i, rs := range rss {
		vals[i] = *rs
	}
	return complete(d, vals)
}

func loadPhases() []loadPhase {
	scaledReplicas := func(it loadItem) int32 { return it.scaledTo }
	initialReplicas := func(it loadItem) int32 { return it.replicas }
	// after is a Deployment's replicas once the first scale is done.
	after := func(it loadItem) int32 {
		if it.scaledTo != 0 {
			return it.scaledTo
		}
		return it.replicas
	}
	revs := func(all ...string) func(it loadItem) []string {
		return func(it loadItem) []string {
			if it.history != nil && int(*it.history)+1 < len(all) {
				return all[len(all)-int(*it.history)-1:]
			}
			return all
		}
	}
	return []loadPhase{
		{name: "create", change: nil, until: completeLoad,
			bounds:    func(it loadItem) loadBounds { return it.bounds(false, it.replicas) },
			revisions: revs("1")},
		{name: "rollout 1, new pods held", hold: "web:2", change: setImageTo("web:2"), until: stuck,
			bounds: func(it loadItem) loadBounds { return it.bounds(true, it.replicas) }},
		{name: "scaled during rollout 1", change: scaleTo(scaledReplicas), until: stuck, scaling: true,
			bounds: func(it loadItem) loadBounds { return it.bounds(true, it.replicas, after(it)) }},
		{name: "rollout 1 released", release: "web:2", until: completeLoad, fromReady: true,
			bounds:    func(it loadItem) loadBounds { return it.bounds(true, after(it)) },
			revisions: revs("1", "2")},
		{name: "rollout 2, new pods held", hold: "web:3", change: setImageTo("web:3"), until: stuck,
			bounds: func(it loadItem) loadBounds { return it.bounds(true, after(it)) }},
		{name: "scaled back during rollout 2", change: scaleTo(initialReplicas), until: stuck, scaling: true,
			bounds: func(it loadItem) loadBounds { return it.bounds(true, after(it), it.replicas) }},
		{name: "rollout 2 released", release: "web:3", until: completeLoad, fromReady: true,
			bounds:    func(it loadItem) loadBounds { return it.bounds(true, it.replicas) },
			revisions: revs("1", "2", "3")},
	}
}

// loadFlavour is one Deployment controller under the load, with what it
// sent and how often it synced.
type loadFlavour struct {
	name   string
	counts *apiCounts
	syncs  *atomic.Int64
}

// phaseFigures is what one flavour needed for one phase.
type phaseFigures struct {
	converge time.Duration
	syncs    int64
	api      apiTotals
}

func loadFormFromEnv() loadForm {
	if os.Getenv("DEPLOYSYNC_E2E_FULL") == "1" {
		return fullLoad
	}
	return reducedLoad
}

// loadFaultsFromEnv is DEPLOYSYNC_E2E_FAULTS: "ours" (the default: only
// our controller's client is faulted), "all" (kube-controller-manager's
// Deployment controller's client too, with the same injector and rates) or
// "none" (no client faulted and no leader killed: kube-controller-manager's
// controller is not leader-elected here, so a kill would fault ours alone).
func loadFaultsFromEnv(t *testing.T) string {
	switch v := os.Getenv("DEPLOYSYNC_E2E_FAULTS"); v {
	case "":
		return "ours"
	case "ours", "all", "none":
		return v
	default:
		t.Fatalf("DEPLOYSYNC_E2E_FAULTS=%q: want ours, all or none", v)
		return ""
	}
}

func loadSeed(t *testing.T) int64 {
	seed := int64(16)
	if s := os.Getenv("DEPLOYSYNC_E2E_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("DEPLOYSYNC_E2E_SEED=%q: %v", s, err)
		}
		seed = v
	}
	return seed
}

// runLoad runs the load on kube-controller-manager's Deployment controller
// (faulted only under DEPLOYSYNC_E2E_FAULTS=all) and, at the same time on the same apiserver, on two
// leader-elected replicas of our client-go controller (faults injected unless none,
// the leader killed during the phases the form names); after every phase
// it compares every Deployment's settled state between the two, and checks
// the invariants throughout.
func runLoad(t *testing.T, cfg *restclient.Config, form loadForm) {
	seed := loadSeed(t)
	items := loadItems(form)
	t.Logf("load %s: %d Deployments in %d namespaces per flavour, fault seed %d (DEPLOYSYNC_E2E_SEED)",
		form.name, len(items), form.namespaces, seed)
	client := clientFor(t, cfg, "e2e-load")
	ctx := context.Background()
	runStart := time.Now()
	names := []string{kcmFlavour, oursFlavour}
	if loadWithReconciler() {
		names = append(names, crFlavour)
	}
	for _, f := range names {
		for k := range form.namespaces {
			if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: loadNamespace(f, k)}}, metav1.CreateOptions{}); err != nil {
				t.Fatalf("namespace: %v", err)
			}
		}
	}
	leaseNS := "load-leases"
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: leaseNS}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("namespace: %v", err)
	}

	loadSel := informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = loadLabel + "=1" })
	t.Cleanup(startLoadReplicaSetController(t, cfg, loadSel))
	driver, stopDriver := startPodDriverWith(t, client, "load", readyAfter, goneAfter, driverWorkers, loadSel)
	t.Cleanup(stopDriver)
	obs, stopObs := startLoadObserver(client, names)
	t.Cleanup(stopObs)

	kcm := loadFlavour{name: kcmFlavour, syncs: &atomic.Int64{}}
	cond := loadFaultsFromEnv(t)
	rates := issue16Faults
	var kcmRates, oursRates *faultRates
	switch cond {
	case "all":
		kcmRates, oursRates = &rates, &rates
	case "ours":
		oursRates = &rates
	}
	t.Logf("faults (DEPLOYSYNC_E2E_FAULTS=%s): kcm %v, ours %v", cond, kcmRates != nil, oursRates != nil)
	kcmInj := newFaultInjector(seed, kcmRates)
	kcm.counts = kcmInj.counts
	trace := openControllerTrace(t)
	t.Cleanup(startLoadKCM(t, kcmInj.wrap(cfg), kcm.syncs, trace))

	ours := loadFlavour{name: oursFlavour, syncs: &atomic.Int64{}}
	oursInj := newFaultInjector(seed, oursRates)
	ours.counts = oursInj.counts
	elected := &electedControllers{t: t, cfg: oursInj.wrap(cfg), leases: client, leaseNS: leaseNS,
		flavourSel: flavourLabel + "=" + oursFlavour, workers: loadWorkers, syncs: ours.syncs, trace: trace}
	elected.start()
	elected.start()
	t.Cleanup(elected.stopAll)
	if elected.leader() == nil {
		t.Fatalf("no replica of our controller was elected")
	}
	flavours := []loadFlavour{kcm, ours}
	injectors := []*faultInjector{kcmInj, oursInj}
	if loadWithReconciler() {
		// The same rates as ours, its own injector (the same seed).
		cr := loadFlavour{name: crFlavour, syncs: &atomic.Int64{}}
		crInj := newFaultInjector(seed, oursRates)
		cr.counts = crInj.counts
		t.Cleanup(startLoadReconciler(t, crInj.wrap(cfg), form.namespaces, cr.syncs))
		flavours = append(flavours, cr)
		injectors = append(injectors, crInj)
	}

	var figures [][]phaseFigures // by phase, then flavour
	var phaseStarts []time.Time
	phases := loadPhases()
	for _, ph := range phases {
		phaseStarts = append(phaseStarts, time.Now())
		for _, it := range items {
			for _, f := range flavours {
				ns := loadNamespace(f.name, it.ns)
				b := ph.bounds(it)
				if ph.scaling {
					b.minAvailable = 0
				}
				if ph.fromReady && b.minAvailable > 0 {
					b.minAvailable = min(b.minAvailable, obs.readyPods(ns, it.name))
				}
				obs.setBounds(ns+"/"+it.name, b)
			}
		}
		before := make([]apiTotals, len(flavours))
		syncsBefore := make([]int64, len(flavours))
		for i, f := range flavours {
			before[i], syncsBefore[i] = f.counts.snapshot(), f.syncs.Load()
		}
		start := time.Now()
		if ph.hold != "" {
			driver.hold(ph.hold)
		}
		if ph.release != "" {
			driver.release(ph.release)
		}
		if ph.name == "create" {
			loadEach(t, items, flavours, func(it loadItem, f string) error {
				_, err := client.AppsV1().Deployments(loadNamespace(f, it.ns)).Create(ctx, it.deployment(f), metav1.CreateOptions{})
				return err
			})
		} else if ph.change != nil {
			loadEach(t, items, flavours, func(it loadItem, f string) error {
				return updateLoadDeployment(ctx, client, loadNamespace(f, it.ns), it, ph.change)
			})
		}
		if form.killIn[ph.name] && cond != "none" {
			time.Sleep(killDelay)
			quiet := obs.quietFor(oursFlavour)
			id, gap, err := elected.killLeader()
			if err != nil {
				t.Fatalf("phase %q: killing the leader: %v", ph.name, err)
			}
			t.Logf("phase %q: killed leader %s %v after the change (its namespaces quiet for %v, so mid-run); a fresh replica led %v later",
				ph.name, id, killDelay, quiet.Round(time.Millisecond), gap.Round(time.Millisecond))
		}
		// A phase settles within form.settleIn, or before the test's
		// deadline (-timeout) with two minutes left, so that a run out of
		// time still prints what it measured.
		settleIn := form.settleIn
		if dl, ok := t.Deadline(); ok {
			if left := time.Until(dl) - 2*time.Minute; left < settleIn {
				settleIn = max(left, time.Second)
			}
		}
		worlds := make([]map[string]loadView, len(flavours))
		figs := make([]phaseFigures, len(flavours))
		var wg sync.WaitGroup
		for i, f := range flavours {
			wg.Go(func() {
				w, err := settleLoad(ctx, t, client, obs, f.name, items, ph, settleIn)
				if err != nil {
					t.Errorf("phase %q: %s: %v", ph.name, f.name, err)
					return
				}
				worlds[i] = w
				figs[i] = phaseFigures{converge: obs.lastChangeOf(f.name).Sub(start), syncs: f.syncs.Load() - syncsBefore[i],
					api: f.counts.snapshot().minus(before[i])}
			})
		}
		wg.Wait()
		figures = append(figures, figs)
		if v, n := obs.takeViolations(); n > 0 {
			t.Errorf("phase %q: %d invariant violations, the first:\n%s", ph.name, n, strings.Join(v, "\n"))
		}
		if t.Failed() {
			logFigures(t, form, phases, flavours, figures, len(items))
			if path, ok := auditLogs.Load(cfg.Host); ok {
				logAuditCosts(t, path.(string), phaseStarts, names, 2*len(items))
			}
			return
		}
		for i, f := range flavours {
			for _, p := range checkLoadWorld(worlds[i], items, ph) {
				t.Errorf("phase %q: %s: %s", ph.name, f.name, p)
			}
		}
		for o := 1; o < len(flavours); o++ {
			label := ph.name
			if flavours[o].name != oursFlavour {
				label += " (" + flavours[o].name + " as ours)"
			}
			compareLoad(t, label, worlds[0], worlds[o], func(side int, key string) int {
				if side == 1 {
					side = o
				}
				ns, name, _ := strings.Cut(key, "/")
				k, _ := strconv.Atoi(ns)
				f := flavours[side].name
				return injectors[side].failedWrites(loadNamespace(f, k), name)
			})
		}
		var settled []string
		for i, f := range flavours {
			settled = append(settled, fmt.Sprintf("%s %v", f.name, figs[i].converge.Round(time.Millisecond)))
		}
		t.Logf("phase %q settled: %s", ph.name, strings.Join(settled, ", "))
	}
	logFigures(t, form, phases, flavours, figures, len(items))
	if path, ok := auditLogs.Load(cfg.Host); ok {
		logAuditCosts(t, path.(string), phaseStarts, names, 2*len(items))
	}
	var concurrent []string
	for i, f := range flavours {
		concurrent = append(concurrent, fmt.Sprintf("%s %d", f.name, injectors[i].counts.concurrentWrites.Load()))
	}
	t.Logf("the injector's concurrent writes (two per injected 409 on an existing object, agent %s): %s", injectorAgent, strings.Join(concurrent, ", "))
	elected.mu.Lock()
	var leaders []string
	for _, to := range elected.takeovers {
		leaders = append(leaders, fmt.Sprintf("%s at +%v", to.id, to.at.Sub(runStart).Round(time.Second)))
	}
	elected.mu.Unlock()
	t.Logf("our controller's leaders, in order (a replica that lost its lease and won it again appears twice): %s", strings.Join(leaders, ", "))
}

// loadEach calls do for every Deployment of every flavour, the flavours
// interleaved, a few at once.
func loadEach(t *testing.T, items []loadItem, flavours []loadFlavour, do func(it loadItem, flavour string) error) {
	t.Helper()
	var mu sync.Mutex
	var errs []string
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for _, it := range items {
		for _, f := range flavours {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				if err := do(it, f.name); err != nil {
					mu.Lock()
					errs = append(errs, fmt.Sprintf("%s/%s: %v", f.name, it.name, err))
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d writes failed: %v", len(errs), errs)
	}
}

func updateLoadDeployment(ctx context.Context, client kubernetes.Interface, ns string, it loadItem, change func(loadItem, *appsv1.Deployment) bool) error {
	return wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		d, err := client.AppsV1().Deployments(ns).Get(ctx, it.name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if !change(it, d) {
			return true, nil
		}
		_, err = client.AppsV1().Deployments(ns).Update(ctx, d, metav1.UpdateOptions{})
		return err == nil, nil
	})
}

// loadView is one Deployment's settled state, as world holds it.
type loadView struct {
	Deployment  deploymentView
	ReplicaSets []rsView
}

// settleLoad waits until every Deployment of the flavour has its status
// current with its ReplicaSets, satisfies the phase's condition, and the
// flavour's namespaces have been quiet for loadQuiet; it returns the
// settled states by "namespace index/name".
func settleLoad(ctx context.Context, t *testing.T, client kubernetes.Interface, obs *loadObserver, flavour string, items []loadItem,
	ph loadPhase, timeout time.Duration) (map[string]loadView, error) {
	var last []string
	var out map[string]loadView
	start, nextLog := time.Now(), time.Now().Add(30*time.Second)
	err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		if time.Now().After(nextLog) {
			nextLog = time.Now().Add(30 * time.Second)
			t.Logf("phase %q: %s not settled after %v: %s", ph.name, flavour, time.Since(start).Round(time.Second), strings.Join(last, "; "))
		}
		ds, err := client.AppsV1().Deployments("").List(ctx, metav1.ListOptions{LabelSelector: flavourLabel + "=" + flavour})
		if err != nil {
			last = []string{err.Error()}
			return false, nil
		}
		rsl, err := client.AppsV1().ReplicaSets("").List(ctx, metav1.ListOptions{LabelSelector: loadLabel + "=1"})
		if err != nil {
			last = []string{err.Error()}
			return false, nil
		}
		byNS := map[string][]*appsv1.ReplicaSet{}
		for i := range rsl.Items {
			rs := &rsl.Items[i]
			byNS[rs.Namespace] = append(byNS[rs.Namespace], rs)
		}
		last = nil
		unsettled := 0
		if len(ds.Items) != len(items) {
			last = append(last, fmt.Sprintf("%d Deployments, want %d", len(ds.Items), len(items)))
		}
		views := map[string]loadView{}
		for i := range ds.Items {
			d := &ds.Items[i]
			var owned []*appsv1.ReplicaSet
			var vals []appsv1.ReplicaSet
			for _, rs := range byNS[d.Namespace] {
				if ref := metav1.GetControllerOfNoCopy(rs); ref != nil && ref.UID == d.UID {
					owned = append(owned, rs)
					vals = append(vals, *rs)
				}
			}
			if d.Status.ObservedGeneration < d.Generation || !statusCurrent(d, vals) || !ph.until(d, owned) {
				unsettled++
				if len(last) < 3 {
					last = append(last, d.Namespace+"/"+d.Name+": "+describe(d, vals))
				}
				continue
			}
			views[loadKey(d.Namespace, d.Name)] = viewOf(d, byNS[d.Namespace])
		}
		if len(last) > 0 {
			last = append([]string{fmt.Sprintf("%d Deployments unsettled", unsettled)}, last...)
			return false, nil
		}
		if q := obs.quietFor(flavour); q < loadQuiet {
			last = []string{fmt.Sprintf("quiet for %v only", q)}
			return false, nil
		}
		out = views
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("did not settle within %v; last seen: %s", timeout, strings.Join(last, "; "))
	}
	return out, nil
}

// loadKey names a Deployment alike in every flavour: load-<flavour>-NN
// becomes NN.
func loadKey(ns, name string) string {
	return ns[strings.LastIndex(ns, "-")+1:] + "/" + name
}

// viewOf is a Deployment's state without what differs between runs (times,
// UIDs, resourceVersions); rss are its namespace's ReplicaSets.
func viewOf(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) loadView {
	s := d.Status
	v := loadView{Deployment: deploymentView{Generation: d.Generation, Annotations: d.Annotations, Paused: d.Spec.Paused,
		Image: d.Spec.Template.Spec.Containers[0].Image,
		Status: statusView{ObservedGeneration: s.ObservedGeneration, Replicas: s.Replicas, UpdatedReplicas: s.UpdatedReplicas,
			ReadyReplicas: s.ReadyReplicas, AvailableReplicas: s.AvailableReplicas, UnavailableReplicas: s.UnavailableReplicas,
			TerminatingReplicas: s.TerminatingReplicas, CollisionCount: s.CollisionCount}}}
	for _, c := range s.Conditions {
		v.Deployment.Status.Conditions = append(v.Deployment.Status.Conditions,
			conditionView{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message})
	}
	sort.Slice(v.Deployment.Status.Conditions, func(i, j int) bool {
		return v.Deployment.Status.Conditions[i].Type < v.Deployment.Status.Conditions[j].Type
	})
	for _, rs := range rss {
		if rs.Labels["app"] != d.Name {
			continue
		}
		ref := metav1.GetControllerOfNoCopy(rs)
		v.ReplicaSets = append(v.ReplicaSets, rsView{Name: rs.Name, Controlled: ref != nil && ref.UID == d.UID,
			Replicas: *rs.Spec.Replicas, Image: rs.Spec.Template.Spec.Containers[0].Image, Annotations: rs.Annotations})
	}
	sort.Slice(v.ReplicaSets, func(i, j int) bool { return v.ReplicaSets[i].Name < v.ReplicaSets[j].Name })
	return v
}

// checkLoadWorld returns what is wrong with a flavour's settled states
// whatever the other flavour did: a ReplicaSet of a Deployment's pods it
// does not control (orphaned), two ReplicaSets with one image (one
// template), and revisions other than those revisionHistoryLimit keeps.
func checkLoadWorld(w map[string]loadView, items []loadItem, ph loadPhase) []string {
	var out []string
	for _, it := range items {
		key := fmt.Sprintf("%02d/%s", it.ns, it.name)
		v, ok := w[key]
		if !ok {
			out = append(out, key+": missing")
			continue
		}
		images := map[string]string{}
		var revs []string
		for _, rs := range v.ReplicaSets {
			if !rs.Controlled {
				out = append(out, fmt.Sprintf("%s: replicaset %s is not controlled by its Deployment", key, rs.Name))
			}
			if other, dup := images[rs.Image]; dup {
				out = append(out, fmt.Sprintf("%s: replicasets %s and %s have one template (%s)", key, other, rs.Name, rs.Image))
			}
			images[rs.Image] = rs.Name
			revs = append(revs, rs.Annotations["deployment.kubernetes.io/revision"])
		}
		if ph.revisions != nil {
			sort.Strings(revs)
			if want := ph.revisions(it); !cmp.Equal(revs, want) {
				out = append(out, fmt.Sprintf("%s: revisions %v, want %v (revisionHistoryLimit %s)", key, revs, want, ptrString(it.history)))
			}
		}
	}
	return out
}

// compareLoad reports every Deployment whose settled state differs between
// kube-controller-manager and ours (the first five in full), but one
// difference: a stale progress record (see staleProgress) on the side that
// saw a write of that Deployment or of its ReplicaSets fail (refused, or
// its reply lost): the sync ends there, before its status write, which is
// upstream's behaviour after such a loss and not a difference of
// algorithm. It returns how many it let pass.
func compareLoad(t *testing.T, phase string, kcm, ours map[string]loadView, refused func(flavour int, key string) int) int {
	t.Helper()
	keys := make([]string, 0, len(kcm))
	for k := range kcm {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	n, stale := 0, 0
	for _, k := range keys {
		diff := cmp.Diff(kcm[k], ours[k])
		if diff == "" {
			continue
		}
		if sides := staleSides(kcm[k], ours[k]); len(sides) > 0 && allFailed(sides, k, refused) {
			stale++
			var who []string
			for _, side := range sides {
				who = append(who, []string{"kcm", "ours"}[side])
			}
			t.Logf("phase %q: %s: %s Progressing condition is stale after a failed write ended a sync before its status write (upstream keeps it so):\n%s",
				phase, k, strings.Join(who, " and "), diff)
			continue
		}
		n++
		if n <= 5 {
			t.Errorf("phase %q: %s differs from kube-controller-manager (-kcm +ours):\n%s", phase, k, diff)
		}
	}
	if n > 0 {
		t.Errorf("phase %q: %d of %d Deployments differ", phase, n, len(keys))
	} else {
		t.Logf("phase %q: all %d Deployments match kube-controller-manager (%d with a stale progress record after a failed write)",
			phase, len(keys), stale)
	}
	return stale
}

// allFailed reports whether every side saw a write of Deployment key fail.
func allFailed(sides []int, key string, failed func(flavour int, key string) int) bool {
	for _, side := range sides {
		if failed(side, key) == 0 {
			return false
		}
	}
	return true
}

// staleProgress: the Progressing condition says NewReplicaSetAvailable for
// a ReplicaSet other than the new one. Upstream's syncRolloutStatus leaves
// Progressing alone while it says NewReplicaSetAvailable and every pod
// belongs to the new ReplicaSet, so when the status write of the sync that
// created the new ReplicaSet (Progressing=NewReplicaSetCreated) is lost
// and the next sync finds no old pods (Recreate, or maxSurge 0 with one
// replica), the record of the previous rollout stays, through the end of
// this one.
func staleProgress(v loadView) bool {
	c := progressingOf(v)
	if c == nil || c.Reason != deployutil.ReasonNewReplicaSetAvailable {
		return false
	}
	for _, rs := range v.ReplicaSets {
		if rs.Controlled && rs.Image == v.Deployment.Image {
			return !strings.Contains(c.Message, fmt.Sprintf("%q", rs.Name))
		}
	}
	return false
}

func progressingOf(v loadView) *conditionView {
	for i, c := range v.Deployment.Status.Conditions {
		if c.Type == string(appsv1.DeploymentProgressing) {
			return &v.Deployment.Status.Conditions[i]
		}
	}
	return nil
}

// behindProgress: v's Progressing condition still says NewReplicaSetCreated
// for the ReplicaSet whose progress the other view's records
// (ReplicaSetUpdated, same ReplicaSet). Upstream moves from the one to the
// other only in a sync that finds the counts changed since the status it
// read; when a failed write ends a sync before its status write, or a
// status write goes through a path that does not judge progress (a failed
// annotation write makes the next sync see a scaling event), the counts get
// written without the step, and later syncs find nothing changed.
func behindProgress(v, other loadView) bool {
	c, o := progressingOf(v), progressingOf(other)
	if c == nil || o == nil || c.Reason != deployutil.ReasonNewReplicaSetCreated || o.Reason != deployutil.ReasonReplicaSetUpdated || c.Status != o.Status {
		return false
	}
	for _, rs := range v.ReplicaSets {
		if rs.Controlled && rs.Image == v.Deployment.Image {
			name := fmt.Sprintf("%q", rs.Name)
			return strings.Contains(c.Message, name) && strings.Contains(o.Message, name)
		}
	}
	return false
}

// staleSides returns which of two views (0, 1) have a stale progress
// record (staleProgress, or behindProgress against the other), when that
// is their only difference; nil otherwise. Both may: each side can lose a
// different sync's status write.
func staleSides(a, b loadView) []int {
	sa, sb := staleProgress(a) || behindProgress(a, b), staleProgress(b) || behindProgress(b, a)
	if !sa && !sb {
		return nil
	}
	strip := func(v loadView) loadView {
		var conds []conditionView
		for _, c := range v.Deployment.Status.Conditions {
			if c.Type != string(appsv1.DeploymentProgressing) {
				conds = append(conds, c)
			}
		}
		v.Deployment.Status.Conditions = conds
		return v
	}
	if !cmp.Equal(strip(a), strip(b)) {
		return nil
	}
	var sides []int
	if sa {
		sides = append(sides, 0)
	}
	if sb {
		sides = append(sides, 1)
	}
	return sides
}

// logFigures prints, per phase and flavour, the time to converge, syncs,
// API writes and conflicts, and per rollout the sums over the rollout
// phases divided by the rollouts (two per Deployment).
func logFigures(t *testing.T, form loadForm, phases []loadPhase, flavours []loadFlavour, figures [][]phaseFigures, nItems int) {
	var b strings.Builder
	fmt.Fprintf(&b, "figures, %s form (%d Deployments per flavour):\n", form.name, nItems)
	fmt.Fprintf(&b, "| phase | controller | converged after | syncs | writes | 409s from the apiserver | injected 409 / 500 / lost reply | watches cut / refused 410 |\n|---|---|---|---|---|---|---|---|\n")
	sums := make([]phaseFigures, len(flavours))
	for p, figs := range figures {
		for i, f := range figs {
			a := f.api
			fmt.Fprintf(&b, "| %s | %s | %.1f s | %d | %d | %d | %d / %d / %d | %d / %d |\n", phases[p].name, flavours[i].name,
				f.converge.Seconds(), f.syncs, a.Writes, a.Conflicts, a.InjConflict, a.InjInternal, a.InjLostReply, a.WatchesCut, a.WatchesGone)
			if p > 0 {
				sums[i].converge += f.converge
				sums[i].syncs += f.syncs
				sums[i].api = addTotals(sums[i].api, a)
			}
		}
	}
	rollouts := float64(2 * nItems)
	if len(figures) == len(phases) {
		fmt.Fprintf(&b, "per rollout (%d rollouts, phases after create):\n| controller | syncs | writes | 409s from the apiserver | injected faults |\n|---|---|---|---|---|\n", 2*nItems)
		for i, s := range sums {
			a := s.api
			fmt.Fprintf(&b, "| %s | %.2f | %.2f | %.3f | %.3f |\n", flavours[i].name, float64(s.syncs)/rollouts, float64(a.Writes)/rollouts,
				float64(a.Conflicts)/rollouts, float64(a.InjConflict+a.InjInternal+a.InjLostReply)/rollouts)
		}
	}
	t.Log(b.String())
}

func addTotals(a, b apiTotals) apiTotals {
	return apiTotals{a.Writes + b.Writes, a.Conflicts + b.Conflicts, a.InjConflict + b.InjConflict, a.InjInternal + b.InjInternal,
		a.InjLostReply + b.InjLostReply, a.WatchesCut + b.WatchesCut, a.WatchesGone + b.WatchesGone, a.Events + b.Events}
}

// startLoadReplicaSetController runs kube-controller-manager's ReplicaSet
// controller on the load's objects in every namespace.
func startLoadReplicaSetController(t *testing.T, cfg *restclient.Config, sel informers.SharedInformerOption) (stop func()) {
	client := clientFor(t, cfg, "replicaset-controller")
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, sel)
	return runUntilStopped(func(ctx context.Context) {
		rsc := replicaset.NewReplicaSetController(ctx, factory.Apps().V1().ReplicaSets(), factory.Core().V1().Pods(), client, 500)
		factory.Start(ctx.Done())
		rsc.Run(ctx, loadWorkers)
		factory.Shutdown()
	})
}

// startLoadKCM runs kube-controller-manager's Deployment controller on the
// kcm flavour's Deployments, counting its syncs.
func startLoadKCM(t *testing.T, cfg *restclient.Config, syncs *atomic.Int64, trace *controllerTrace) (stop func()) {
	client := clientFor(t, cfg, "deployment-controller")
	dFactory := informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = flavourLabel + "=" + kcmFlavour }))
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = loadLabel + "=1" }))
	return runUntilStopped(func(ctx context.Context) {
		ctx = countSyncs(ctx, "Started syncing deployment", syncs, trace, kcmFlavour)
		dc, err := deployment.NewDeploymentController(ctx, dFactory.Apps().V1().Deployments(), factory.Apps().V1().ReplicaSets(),
			factory.Core().V1().Pods(), client)
		if err != nil {
			t.Errorf("kube-controller-manager's deployment controller: %v", err)
			return
		}
		dFactory.Start(ctx.Done())
		factory.Start(ctx.Done())
		dc.Run(ctx, loadWorkers)
		dFactory.Shutdown()
		factory.Shutdown()
	})
}
