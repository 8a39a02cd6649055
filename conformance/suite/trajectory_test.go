package suite

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/randstate"
	"github.com/deploysync/deploysync/simulate"
)

// The number of trajectories: 500 by default (CI), 20,000 with
// DEPLOYSYNC_LONG=1, or DEPLOYSYNC_TRAJECTORIES=n.
func trajectories() int {
	if v, err := strconv.Atoi(os.Getenv("DEPLOYSYNC_TRAJECTORIES")); err == nil && v > 0 {
		return v
	}
	if os.Getenv("DEPLOYSYNC_LONG") != "" {
		return 20_000
	}
	return 500
}

// TestTrajectories runs rollouts in the simulator's world (ReplicaSet
// controller, kubelets, apiserver bookkeeping) for up to 60 syncs, with
// scripted changes of image, size, pause and rollback along the way; at
// every sync both sides decide on the same state, and the rollout goes on
// with deploysync's plan.
func TestTrajectories(t *testing.T) {
	n := trajectories()
	syncs, stopped, tooLarge, invalid := 0, 0, 0, 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		src, c, ok, err := randstate.TrajectoryStart(seed)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			// The generator also draws states an apiserver refuses (the
			// random suite checks that Sync refuses them too); a world
			// cannot start from one. A third of the rollouts start where
			// most do: fully rolled out, then a change of image (the
			// script adds one at least).
			invalid++
			continue
		}
		if worldPods(c) > 100_000 {
			// More pods than the simulator holds (the random suite
			// covers such states, one sync each).
			tooLarge++
			continue
		}
		opts := randstate.WorldOptions(src, c, seed%3 == 0)
		step := 0
		opts = append(opts, simulate.WithSyncFunc(func(s deploysync.State) (deploysync.Plan, error) {
			step++
			syncs++
			if _, err := Compare(fmt.Sprintf("trajectory seed %d, sync %d", seed, step), s, c.TerminatingReplicas); err != nil {
				return deploysync.Plan{}, err
			}
			plan, err := deploysync.Sync(s, deploysync.WithTerminatingReplicas(c.TerminatingReplicas))
			if err != nil {
				return plan, err
			}
			if refused(s, plan) {
				stopped++
				return deploysync.Plan{}, errStop
			}
			return plan, nil
		}))
		if _, err := simulate.Run(c.State, opts...); err != nil && !isStop(err) {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
	t.Logf("trajectories: %d, syncs compared: %d, stopped at a write an apiserver would refuse: %d, skipped as too large for the simulator: %d, skipped as refused (an apiserver would): %d", n, syncs, stopped, tooLarge, invalid)
}

// worldPods bounds the pods the simulator's world starts with or is asked
// for: the ReplicaSets' sizes, reports and terminating pods, and the
// Deployment's size.
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

// errStop ends a trajectory whose next sync writes what an apiserver
// refuses: both sides agreed on that sync (it was compared), but a real
// cluster would answer the write with an error, so the world cannot go on
// from it faithfully.
var errStop = errors.New("the sync writes an object an apiserver would refuse")

func isStop(err error) bool { return errors.Is(err, errStop) }

// refused reports whether applying plan to s leaves objects an apiserver
// would not have accepted: upstream's int32 wrap-around can write negative
// sizes, counts or collision counts (a real apiserver refuses them with 422).
func refused(s deploysync.State, plan deploysync.Plan) bool {
	after, err := deploysync.Apply(s, plan)
	if err != nil {
		return false // Compare applied the same plan already
	}
	return facts.Validate(after.Deployment, after.ReplicaSets, after.Pods) != nil
}
