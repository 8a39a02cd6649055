package deploysync_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/execute"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/randstate"
	"github.com/deploysync/deploysync/internal/testing/scenarios"
	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/recreate"
	"github.com/deploysync/deploysync/replicaset"
	"github.com/deploysync/deploysync/revision"
	"github.com/deploysync/deploysync/rolling"
	"github.com/deploysync/deploysync/scaling"
	"github.com/deploysync/deploysync/simulate"
)

// TestEmittedReasonsFitTheirRules checks that every reason the library
// emits has exactly the values of its rule (action.Reason.Check): the
// reasons of every action and the Why of every plan Sync makes, before and
// after Apply, with and without fixes, limits, the oldest minor and a
// lagging cache, on every named scenario, on random states and on every
// sync of simulated rollouts; and those of the step functions a caller may
// use on their own (the Resizes of rolling, recreate and scaling, the
// Shares of scaling.Proportions, the Deletions of revision.Cleanup,
// recreate.OldPodsRunning) and of the ReplicaSet write they share
// (facts.ScaleReplicaSet, whose own reason no caller reaches); and those
// of the ReplicaSet controller's sync (replicaset.Sync) of each state's
// ReplicaSets. A reason that failed would render as its rule's name and
// values instead of its sentence. Every Deployment rule must be seen at
// least once, so that the check covers the whole table (the ReplicaSet
// rules are covered by replicaset's TestReasonsCheck).
func TestEmittedReasonsFitTheirRules(t *testing.T) {
	seeds, trajectories := uint64(3000), uint64(300)
	if testing.Short() {
		seeds, trajectories = 300, 30
	}
	c := &reasonCensus{t: t, seen: map[action.Rule]int{}}
	for _, sc := range scenarios.All() {
		c.state("scenario "+sc.Name, sc.State, sc.Options())
		for _, set := range optionSets[:4] {
			opts := append(sc.Options(), set.opts...)
			c.simulate("scenario "+sc.Name+", simulated"+set.name, sc.State, opts, simulate.WithMaxSteps(60))
			c.simulate("scenario "+sc.Name+", simulated rollout"+set.name, sc.State, opts, simulate.WithMaxSteps(60),
				simulate.WithChanges(simulate.SetImage(time.Second, "web", "nginx:9")))
		}
	}
	for name, s := range map[string]deploysync.State{
		"bench new deployment": scenarios.BenchNewDeployment(), "bench mid rollout": scenarios.BenchMidRollout(3),
		"bench scaling event": scenarios.BenchScalingEvent(), "bench recreate": scenarios.BenchRecreate(),
		"bench paused cleanup": scenarios.BenchPausedCleanup(5),
	} {
		c.state(name, s, nil)
	}
	long := scenarios.Deployment(3)
	long.Name = strings.Repeat("a", 253)
	c.state("a Deployment name of 253 characters", deploysync.State{Deployment: long, Now: scenarios.Now}, nil)
	for seed := uint64(0); seed < seeds; seed++ {
		rc := randstate.Valid(randstate.NewRand(seed))
		c.state(fmt.Sprintf("random seed %d", seed), rc.State, rc.Options())
	}
	for seed := uint64(1); seed <= trajectories; seed++ {
		src, rc, ok, err := randstate.TrajectoryStart(seed)
		if err != nil {
			t.Fatal(err)
		}
		if !ok || worldSize(rc.State) > 10_000 {
			continue
		}
		set := optionSets[seed%4]
		c.simulate(fmt.Sprintf("trajectory seed %d%s", seed, set.name), rc.State, append(rc.Options(), set.opts...),
			randstate.WorldOptions(src, rc, seed%3 == 0)...)
	}
	// A failed create's answer is execute's, from the client's error.
	failed, err := execute.ResolveCreateFailed(scenarios.Deployment(3), "web-1",
		apierrors.NewForbidden(appsv1.Resource("replicasets"), "web-1", errors.New("exceeded quota")), scenarios.Now)
	if err != nil {
		t.Fatal(err)
	}
	c.plan("a create refused by a quota (execute.ResolveCreateFailed)", failed)
	t.Logf("reasons checked: %d (%d simulated syncs among their plans), of %d rules", c.reasons, c.syncs, len(c.seen))

	// RuleNote is for tools: a sentence a tool supplies for an action it
	// recorded. Nothing in this module builds one outside tests. The
	// ReplicaSet controller's rules are checked above where the states'
	// ReplicaSets reach them; replicaset's TestReasonsCheck syncs the range
	// of states that reaches every one of them.
	notEmitted := []action.Rule{action.RuleNote}
	deploymentRules, _ := ruleBlocks(t)
	for _, r := range deploymentRules {
		if c.seen[r] == 0 && !slices.Contains(notEmitted, r) {
			t.Errorf("no reason of rule %s was emitted: the check did not cover it", r)
		}
	}
}

// reasonCensus checks reasons and counts them by rule.
type reasonCensus struct {
	t       *testing.T
	seen    map[action.Rule]int
	reasons int
	syncs   int
	failed  int
}

func (c *reasonCensus) check(where string, rs action.Reasons) {
	c.t.Helper()
	for _, r := range rs {
		c.reasons++
		c.seen[r.Rule]++
		if err := r.Check(); err != nil && c.failed < 20 {
			c.failed++
			c.t.Errorf("%s: %v\n  reason: %s", where, err, r)
		}
	}
}

func (c *reasonCensus) plan(where string, p deploysync.Plan) {
	c.t.Helper()
	c.check(where+", plan Why", p.Why)
	for i, a := range p.Actions {
		c.check(fmt.Sprintf("%s, action %d (%T)", where, i, a), a.Reasons())
	}
}

// optionSets are the ways a state is synced besides its own options; the
// first four are those of simulated runs.
var optionSets = []struct {
	name string
	opts []deploysync.Option
}{
	{"", nil},
	{", every fix", []deploysync.Option{deploysync.WithFixes(deploysync.Fixes()...)}},
	{", limit 1", []deploysync.Option{deploysync.WithLimits(deploysync.Limits{MaxUpdated: ptr.To(intstr.FromInt32(1))})}},
	{", limit 50%", []deploysync.Option{deploysync.WithLimits(deploysync.Limits{MaxUpdated: ptr.To(intstr.FromString("50%"))})}},
	{", 1.33", []deploysync.Option{deploysync.WithKubernetesVersion("1.33")}},
	{", lagging cache", []deploysync.Option{deploysync.WithLaggingCache()}},
}

// state syncs s under every option set, applies the plan and syncs the
// result again, and calls the step functions on s.
func (c *reasonCensus) state(where string, s deploysync.State, own []deploysync.Option) {
	c.t.Helper()
	for _, set := range optionSets {
		w := where + set.name
		opts := append(slices.Clone(own), set.opts...)
		p, err := deploysync.Sync(s, opts...)
		if err != nil {
			continue // refused input: no reasons
		}
		c.plan(w, p)
		after, err := deploysync.Apply(s, p)
		if err != nil {
			c.t.Fatalf("%s: Apply of Sync's plan: %v", w, err)
		}
		if p2, err := deploysync.Sync(after, opts...); err == nil {
			c.plan(w+", after Apply", p2)
		}
	}
	if _, err := deploysync.Sync(s, own...); err == nil {
		c.steps(where, s)
	}
	c.replicaSets(where, s)
}

// replicaSets checks the reasons of the ReplicaSet controller's sync
// (replicaset.Sync) of each ReplicaSet of s, with the pods s holds for it.
func (c *reasonCensus) replicaSets(where string, s deploysync.State) {
	c.t.Helper()
	for _, rs := range s.ReplicaSets {
		if rs == nil {
			continue
		}
		p, err := replicaset.Sync(replicaset.State{ReplicaSet: rs, Pods: s.Pods[rs.UID], ReplicaSets: s.ReplicaSets, Now: s.Now})
		if err != nil {
			continue // refused input: no reasons
		}
		w := where + ", ReplicaSet " + rs.Name + " synced by replicaset.Sync"
		c.check(w, p.Reasons())
	}
}

// steps calls the exported step functions on a state Sync accepts, with
// the Deployment's own ReplicaSets split as Sync splits them.
func (c *reasonCensus) steps(where string, s deploysync.State) {
	c.t.Helper()
	d := s.Deployment
	var owned []*appsv1.ReplicaSet
	for _, rs := range s.ReplicaSets {
		if ref := metav1.GetControllerOf(rs); ref != nil && ref.UID == d.UID {
			owned = append(owned, rs)
		}
	}
	newRS := deployutil.FindNewReplicaSet(d, owned)
	var old []*appsv1.ReplicaSet
	for _, rs := range owned {
		if rs != newRS {
			old = append(old, rs)
		}
	}
	resizes := func(what string, rs ...deployutil.Resize) {
		for _, r := range rs {
			c.check(where+", "+what, r.Why)
		}
	}
	for _, fixes := range []scaling.Fixes{{}, {ProportionalOverflow: true, StaleDesiredReplicas: true, UnhealthyFirst: true}} {
		resizes("scaling.Resizes", scaling.Resizes(d, newRS, old, fixes)...)
		for _, sh := range scaling.Proportions(d, newRS, old, fixes) {
			c.check(where+", scaling.Proportions", sh.Why)
		}
	}
	for _, rs := range owned {
		// the write's own reason, when the caller gives none: the size
		// stays and only the replica annotations are rewritten
		if r, ok := facts.ScaleReplicaSet(rs, *rs.Spec.Replicas, d, true); ok {
			resizes("facts.ScaleReplicaSet", r)
		}
	}
	for _, del := range revision.Cleanup(d, old) {
		c.check(where+", revision.Cleanup", del.Why)
	}
	switch d.Spec.Strategy.Type {
	case appsv1.RecreateDeploymentStrategyType:
		resizes("recreate.ScaleDownOld", recreate.ScaleDownOld(d, old)...)
		if newRS != nil {
			if r, ok := recreate.ScaleUpNew(d, newRS); ok {
				resizes("recreate.ScaleUpNew", r)
			}
		}
		if running, why := recreate.OldPodsRunning(old, s.Pods); running {
			c.check(where+", recreate.OldPodsRunning", action.Reasons{why})
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		if newRS == nil {
			return
		}
		if r, ok, err := rolling.ScaleNew(d, owned, newRS); err == nil && ok {
			resizes("rolling.ScaleNew", r)
		}
		var active []*appsv1.ReplicaSet
		for _, rs := range old {
			if *rs.Spec.Replicas > 0 {
				active = append(active, rs)
			}
		}
		rss, _ := rolling.ScaleDownOld(d, owned, active, newRS)
		resizes("rolling.ScaleDownOld", rss...)
		if n := *d.Spec.Replicas; n > 0 {
			for _, m := range []int32{0, n / 2, n - 1} {
				if rss, err := rolling.LimitStep(d, owned, old, newRS, rolling.Limit{Max: m, Name: "limit"}); err == nil {
					resizes(fmt.Sprintf("rolling.LimitStep %d", m), rss...)
				}
			}
		}
	}
}

// simulate runs the simulator from s, Sync with opts deciding every step,
// and checks every plan of the run. A run that stops early (a world it
// cannot hold, a scripted change that does not apply) is logged: its plans
// up to there are checked all the same.
func (c *reasonCensus) simulate(where string, s deploysync.State, opts []deploysync.Option, world ...simulate.Option) {
	c.t.Helper()
	step := 0
	world = append(slices.Clone(world), simulate.WithSyncFunc(func(st deploysync.State) (deploysync.Plan, error) {
		step++
		p, err := deploysync.Sync(st, opts...)
		if err == nil {
			c.plan(fmt.Sprintf("%s, sync %d", where, step), p)
		}
		return p, err
	}))
	if _, err := simulate.Run(s, world...); err != nil {
		c.t.Logf("%s: the run stopped after %d syncs: %v", where, step, err)
	}
	c.syncs += step
}

// ruleBlocks reads the Rule constants of action/rules.go: the Deployment
// controller's rules and the ReplicaSet controller's.
func ruleBlocks(t *testing.T) (deployment, replicaSet []action.Rule) {
	t.Helper()
	blocks, err := testutil.RuleBlocks(filepath.Join("action", "rules.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 || len(blocks[0]) < 50 || !slices.Contains(blocks[1], string(action.RuleCreatePods)) {
		t.Fatalf("action/rules.go: want two const blocks of rules, the Deployment's (50 or more) and the ReplicaSet's; found %d", len(blocks))
	}
	for _, r := range blocks[0] {
		deployment = append(deployment, action.Rule(r))
	}
	for _, r := range blocks[1] {
		replicaSet = append(replicaSet, action.Rule(r))
	}
	return deployment, replicaSet
}

// worldSize is how many pods a world started from s may hold at once.
func worldSize(s deploysync.State) int64 {
	n := int64(*s.Deployment.Spec.Replicas)
	for _, rs := range s.ReplicaSets {
		n += max(int64(rs.Status.Replicas), int64(*rs.Spec.Replicas))
		if t := rs.Status.TerminatingReplicas; t != nil {
			n += int64(*t)
		}
	}
	return n
}
