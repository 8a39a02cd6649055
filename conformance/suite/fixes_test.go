package suite

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/randstate"
	"github.com/deploysync/deploysync/internal/testing/scenarios"
	"github.com/deploysync/deploysync/scaling"
)

// The number of random states of TestFixes: 3,000 by default, or
// DEPLOYSYNC_FIX_STATES=n.
func fixStates() int {
	if v, err := strconv.Atoi(os.Getenv("DEPLOYSYNC_FIX_STATES")); err == nil && v > 0 {
		return v
	}
	return 3000
}

// fixCase is a Fix with the predicate that defines its documented states:
// the states on which, according to fixes.go, the fix may decide
// differently from upstream. branch is the branch Sync took without the
// fix (a fix never changes the branch of the sync it is in).
type fixCase struct {
	fix        deploysync.Fix
	documented func(s deploysync.State, branch deploysync.Branch) bool
}

var fixCases = []fixCase{
	{deploysync.FixProportionalOverflow, proportionalOverflowState},
	{deploysync.FixStaleDesiredReplicas, staleDesiredReplicasState},
	{deploysync.FixUnhealthyFirst, unhealthyFirstState},
}

// scalePathSets is what upstream's scale() sees on the paused and
// scaling-event paths: the claimed ReplicaSets split into the new one and
// the old ones, newest first. ok is false on other branches.
func scalePathSets(s deploysync.State, branch deploysync.Branch) (newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet, ok bool) {
	if branch != deploysync.Paused && branch != deploysync.ScalingEvent {
		return nil, nil, false
	}
	claimed, _, err := facts.Claim(s.Deployment, s.ReplicaSets)
	if err != nil {
		return nil, nil, false
	}
	newRS, old = facts.SplitReplicaSets(s.Deployment, claimed)
	return newRS, facts.SortedByCreationNewestFirst(old), true
}

// proportionalOverflowState: a paused or scaling-event sync that scales
// proportionally with some size × (replicas + maxSurge) above 2³¹−1.
func proportionalOverflowState(s deploysync.State, branch deploysync.Branch) bool {
	if branch != deploysync.Paused && branch != deploysync.ScalingEvent {
		return false
	}
	return randstate.ProportionalOverflow(randstate.Case{State: s})
}

// staleDesiredReplicasState: a paused or scaling-event sync whose one
// ReplicaSet to hold all replicas (upstream's FindActiveOrLatest) already
// has spec.replicas, while its desired-replicas or max-replicas annotation
// is not spec.replicas / spec.replicas+maxSurge.
func staleDesiredReplicasState(s deploysync.State, branch deploysync.Branch) bool {
	newRS, old, ok := scalePathSets(s, branch)
	if !ok {
		return false
	}
	d := s.Deployment
	rs := scaling.ActiveOrLatest(newRS, old)
	return rs != nil && *rs.Spec.Replicas == *d.Spec.Replicas &&
		facts.ReplicasAnnotationsNeedUpdate(rs, *d.Spec.Replicas, facts.MaxReplicas(d))
}

// unhealthyFirstState: a paused or scaling-event sync of a RollingUpdate
// Deployment with replicas > 0 that reaches proportional scaling (several
// active ReplicaSets, the new one not saturated) as a scale-down (the
// active ReplicaSets hold more than replicas+maxSurge), with an active old
// ReplicaSet whose spec.replicas exceeds its available replicas.
func unhealthyFirstState(s deploysync.State, branch deploysync.Branch) bool {
	newRS, old, ok := scalePathSets(s, branch)
	if !ok {
		return false
	}
	d := s.Deployment
	if !facts.IsRollingUpdate(d) || *d.Spec.Replicas == 0 || scaling.ActiveOrLatest(newRS, old) != nil || facts.IsSaturated(d, newRS) {
		return false
	}
	active := facts.FilterActive(append(old[:len(old):len(old)], newRS))
	// A scale-down in upstream's int32 arithmetic, as the fix reads it.
	if toAdd := facts.MaxReplicas(d) - facts.SpecReplicas(active); toAdd >= 0 {
		return false
	}
	for _, rs := range facts.FilterActive(old) {
		if *rs.Spec.Replicas > rs.Status.AvailableReplicas {
			return true
		}
	}
	return false
}

// unhealthyScaleDown is kubernetes/kubernetes#119536's shape: 10 → 6
// replicas (maxSurge 2, maxUnavailable 0) over three ReplicaSets of 4, the
// middle one with no available pod.
func unhealthyScaleDown() deploysync.State {
	d := scenarios.Fenceposts(scenarios.Deployment(6), intstr.FromInt32(2), intstr.FromInt32(0))
	d.Spec.Template = scenarios.Template("nginx:3")
	d.Annotations = map[string]string{deployutil.RevisionAnnotation: "3"}
	scenarios.Observed(d, 12, 4, 8)
	rs := func(name, image, revision string, available int32, age time.Duration) *appsv1.ReplicaSet {
		r := scenarios.Steady(name, image, 4, revision, age)
		r.Ready, r.Available, r.Desired, r.Max = available, available, "10", "12"
		return scenarios.ReplicaSet(r)
	}
	return deploysync.State{Deployment: d, Now: scenarios.Now, ReplicaSets: []*appsv1.ReplicaSet{
		rs("web-v1", "nginx:1", "1", 4, 3*time.Hour), rs("web-v2", "nginx:2", "2", 0, 2*time.Hour), rs("web-v3", "nginx:3", "3", 4, time.Hour)}}
}

// fixState is a state TestFixes runs.
type fixState struct {
	name string
	s    deploysync.State
	gate bool
}

func fixTestStates() []fixState {
	var out []fixState
	for _, sc := range scenarios.All() {
		out = append(out, fixState{name: "scenario " + sc.Name, s: sc.State, gate: !sc.NoTerminatingReplicas})
	}
	out = append(out, fixState{name: "kubernetes/kubernetes#119536 scale-down", s: unhealthyScaleDown(), gate: true})
	for i := range fixStates() {
		c := randstate.Valid(randstate.NewRand(uint64(i)))
		out = append(out, fixState{name: fmt.Sprintf("random state (randstate.NewRand(%d))", i), s: c.State, gate: c.TerminatingReplicas})
	}
	return out
}

// TestFixes checks each Fix against upstream on the named scenarios, the
// #119536 scale-down and random states of the generator:
//
//   - With the fix off, Sync is upstream's on the fix's documented states
//     (and everywhere else, which TestRandomStates covers).
//   - With the fix on, a state where the result (objects, events, error,
//     requeue) differs from the result without it is a documented state.
//   - With the fix on, a state outside the documented ones is identical to
//     upstream.
//
// Each fix must change at least one state, or the check
// proves nothing.
func TestFixes(t *testing.T) {
	type tally struct{ documented, changed, outsideCompared int }
	tallies := make([]tally, len(fixCases))
	for _, fs := range fixTestStates() {
		off, plan, err := Ours(fs.s, fs.gate)
		if errors.Is(err, deployutil.ErrInvalidInput) {
			continue // a generated state an apiserver refuses: no plan to fix
		}
		if err != nil {
			t.Fatalf("%s: %v\ninput:\n%s", fs.name, err, StateYAML(fs.s))
		}
		theirs, _, err := Theirs(fs.s, fs.gate)
		if err != nil {
			t.Fatalf("%s: %v\ninput:\n%s", fs.name, err, StateYAML(fs.s))
		}
		for i, fc := range fixCases {
			on, planOn, err := OursWith(fs.s, fs.gate, deploysync.WithFixes(fc.fix))
			if err != nil {
				t.Fatalf("%s with %s: %v\ninput:\n%s", fs.name, fc.fix, err, StateYAML(fs.s))
			}
			documented := fc.documented(fs.s, plan.Branch)
			if documented {
				tallies[i].documented++
			}
			if d := Diff(on, off); d != "" {
				tallies[i].changed++
				if !documented {
					t.Errorf("%s: %s changes a state outside its documented ones (branch %s) (- without, + with):\n%s\nplan with the fix:\n%s\ninput:\n%s",
						fs.name, fc.fix, plan.Branch, d, planOn, StateYAML(fs.s))
				}
			}
			if documented {
				if d := Diff(off, theirs); d != "" {
					t.Errorf("%s: without %s, Sync differs from upstream on one of its states (- upstream, + deploysync):\n%s\ninput:\n%s", fs.name, fc.fix, d, StateYAML(fs.s))
				}
				continue
			}
			tallies[i].outsideCompared++
			if d := Diff(on, theirs); d != "" {
				t.Errorf("%s: with %s, Sync differs from upstream outside the fix's states (- upstream, + deploysync):\n%s\ninput:\n%s", fs.name, fc.fix, d, StateYAML(fs.s))
			}
		}
	}
	for i, fc := range fixCases {
		tl := tallies[i]
		t.Logf("%s: %d documented states, %d changed by the fix, %d other states identical to upstream with the fix on",
			fc.fix, tl.documented, tl.changed, tl.outsideCompared)
		if tl.changed == 0 {
			t.Errorf("%s changed no state: the check is vacuous", fc.fix)
		}
	}
}

// TestEveryFixHasACase fails for a Fix that TestFixes would not check: each
// Fix deploysync.Fixes lists needs a fixCase, the predicate of the states
// its documentation says it changes (docs/development.md, "A Fix").
func TestEveryFixHasACase(t *testing.T) {
	cased := map[deploysync.Fix]bool{}
	for _, c := range fixCases {
		cased[c.fix] = true
	}
	for _, f := range deploysync.Fixes() {
		if !cased[f] {
			t.Errorf("fix %s has no fixCase in fixes_test.go: say which states it may decide differently on", f)
		}
	}
}
