package main

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/conformance/minors"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/randstate"
	"github.com/deploysync/deploysync/simulate"
)

// recordRandom records the states randstate.Valid draws from seeds 1 to n, one
// sync each, with the gate value the generator drew.
func recordRandom(o *oracle, n int) ([]minors.Record, []string, error) {
	recs := make([]minors.Record, 0, n)
	for seed := uint64(1); seed <= uint64(n); seed++ {
		c := randstate.Valid(randstate.NewRand(seed))
		r, err := o.syncRecord(fmt.Sprintf("seed %d", seed), c.State, c.TerminatingReplicas)
		if err != nil {
			return nil, nil, err
		}
		recs = append(recs, r)
	}
	return recs, nil, nil
}

// errStop ends a trajectory: upstream's sync wrote what an apiserver would
// refuse, or the runner could not run it, so the world cannot go on.
var errStop = errors.New("the trajectory cannot go on")

// recordTrajectories runs n rollouts in the simulate world as the suite's
// TestTrajectories does (the same world knobs and scripted changes for a
// seed), from seed 1 on until n have run, except that worlds are smaller,
// upstream of the minor decides every sync and the world goes on with
// upstream's outcome. Every sync is a record.
func recordTrajectories(o *oracle, n int) ([]minors.Record, []string, error) {
	var recs []minors.Record
	started, stopped, tooLarge, invalid := 0, 0, 0, 0
	seed := uint64(0)
	for started < n {
		seed++
		if seed > uint64(20*n) {
			return nil, nil, fmt.Errorf("only %d of %d trajectories could start from seeds 1-%d", started, n, seed-1)
		}
		src, c, ok, err := randstate.TrajectoryStart(seed)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			invalid++ // a world cannot start from a state an apiserver refuses
			continue
		}
		if worldPods(c) > maxWorldPods {
			tooLarge++
			continue
		}
		started++
		opts := randstate.WorldOptions(src, c, seed%3 == 0)
		step := 0
		opts = append(opts, simulate.WithSyncFunc(func(s deploysync.State) (deploysync.Plan, error) {
			step++
			r, err := o.syncRecord(fmt.Sprintf("trajectory %d sync %d", seed, step), podsMetaOnly(s), c.TerminatingReplicas)
			if err != nil {
				return deploysync.Plan{}, err
			}
			recs = append(recs, r)
			if r.Outcome == nil {
				stopped++
				return deploysync.Plan{}, errStop
			}
			plan, err := planOf(s, r.Outcome)
			if err != nil {
				return plan, err
			}
			after, err := deploysync.Apply(s, plan)
			if err != nil {
				return plan, fmt.Errorf("applying upstream's outcome: %w", err)
			}
			if facts.Validate(after.Deployment, after.ReplicaSets, after.Pods) != nil {
				stopped++
				return deploysync.Plan{}, errStop
			}
			return plan, nil
		}))
		if _, err := simulate.Run(c.State, opts...); err != nil && !errors.Is(err, errStop) {
			return nil, nil, fmt.Errorf("trajectory %d: %w", seed, err)
		}
	}
	note := fmt.Sprintf("trajectories: seeds 1-%d, %d run (%d syncs), %d stopped at a write an apiserver would refuse, %d skipped as worlds of more than %d pods, %d skipped as refused",
		seed, started, len(recs), stopped, tooLarge, maxWorldPods, invalid)
	return recs, []string{note}, nil
}

// maxWorldPods bounds the worlds recorded: a Recreate sync's state lists
// every pod, and the corpus must stay small.
const maxWorldPods = 300

// podsMetaOnly returns s with its pods cut to what a sync reads of them (their
// metadata and status.phase), so the corpus stays small; the oracle and the
// check both see the cut pods.
func podsMetaOnly(s deploysync.State) deploysync.State {
	if len(s.Pods) == 0 {
		return s
	}
	pods := make(map[types.UID][]*corev1.Pod, len(s.Pods))
	for uid, list := range s.Pods {
		cut := make([]*corev1.Pod, len(list))
		for i, p := range list {
			cut[i] = &corev1.Pod{TypeMeta: p.TypeMeta, ObjectMeta: *p.ObjectMeta.DeepCopy(), Status: corev1.PodStatus{Phase: p.Status.Phase}}
		}
		pods[uid] = cut
	}
	s.Pods = pods
	return s
}

// worldPods bounds the pods of the world (as the suite's TestTrajectories).
func worldPods(c randstate.Case) int64 {
	n := int64(*c.State.Deployment.Spec.Replicas)
	for _, rs := range c.State.ReplicaSets {
		n += max(int64(rs.Status.Replicas), int64(*rs.Spec.Replicas))
		if t := rs.Status.TerminatingReplicas; t != nil {
			n += int64(*t)
		}
	}
	return n
}
