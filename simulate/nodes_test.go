package simulate_test

import (
	"testing"

	"github.com/deploysync/deploysync/simulate"
)

// TestDeletedMatchesScaleDowns runs a rollout over three nodes and checks
// Step.Deleted against the sizes: each step lists as many deletions per
// ReplicaSet as its pods dropped (none terminate at the same step, the
// termination delay being longer than a step), in positions 1, 2, ..., on
// named nodes, and no pod is deleted twice.
func TestDeletedMatchesScaleDowns(t *testing.T) {
	tl, err := simulate.Run(steady(t, deployment(10)), simulate.WithChanges(upgrade), simulate.WithNodes(3))
	if err != nil {
		t.Fatal(err)
	}
	if tl.Outcome != simulate.Complete {
		t.Fatalf("outcome %s", tl.Outcome)
	}
	seen := map[string]bool{}
	total := 0
	for i := 1; i < len(tl.Steps); i++ {
		prev, s := tl.Steps[i-1], tl.Steps[i]
		per := map[string]int{}
		for _, d := range s.Deleted {
			per[d.ReplicaSet]++
			if d.Position != per[d.ReplicaSet] {
				t.Errorf("step %d: %s at position %d, want %d", i, d.Pod, d.Position, per[d.ReplicaSet])
			}
			if d.Node == "" || d.Why == "" || seen[d.Pod] {
				t.Errorf("step %d: deletion %+v: no node, no reason or deleted twice", i, d)
			}
			seen[d.Pod] = true
			total++
		}
		for _, rs := range prev.ReplicaSets {
			drop := 0
			for _, now := range s.ReplicaSets {
				if now.Name == rs.Name {
					drop = int(rs.Pods.Pods - now.Pods.Pods)
				}
			}
			if drop > 0 && per[rs.Name] != drop {
				t.Errorf("step %d: %s lost %d pods, %d deletions listed", i, rs.Name, drop, per[rs.Name])
			}
		}
	}
	if total != 10 {
		t.Errorf("%d pods deleted, want the old ReplicaSet's 10", total)
	}
}

func TestWithNodesRefusesZero(t *testing.T) {
	if _, err := simulate.Run(steady(t, deployment(3)), simulate.WithNodes(0)); err == nil {
		t.Error("Run accepted 0 nodes")
	}
}
