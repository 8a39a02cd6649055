package scaling_test

import (
	"testing"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/gen"
	"github.com/deploysync/deploysync/internal/testutil"
	"github.com/deploysync/deploysync/scaling"
)

// FuzzProportions checks proportional scaling on generated states: no
// ReplicaSet goes negative, and the shares add up to replicas+maxSurge unless
// the leftover had to be clamped at zero. (A ReplicaSet may move against the
// total, as upstream's may: with a stale max-replicas annotation its own
// fraction points the other way. The fuzzer found that; the conformance
// suite confirms upstream does the same.)
func FuzzProportions(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4})
	f.Add([]byte("proportional"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := gen.Valid(gen.NewBytes(data))
		d := c.State.Deployment
		if deployutil.IsSelectingAll(d) || !deployutil.IsRollingUpdate(d) {
			return
		}
		newRS, old := deployutil.SplitReplicaSets(d, c.State.ReplicaSets)
		old = deployutil.SortedByCreationNewestFirst(old)
		frozen := testutil.Freeze(t, d, c.State.ReplicaSets)
		shares := scaling.Proportions(d, newRS, old, scaling.Fixes{})
		frozen.Check(t)
		active := deployutil.FilterActive(append(old, newRS))
		allowed := int64(0)
		if *d.Spec.Replicas > 0 {
			allowed = int64(deployutil.MaxReplicas(d))
		}
		toAdd := allowed - int64(deployutil.SpecReplicas(active))
		var sum int64
		clamped := false
		for i, s := range shares {
			if s.Replicas < 0 {
				t.Fatalf("%s scaled to %d", s.ReplicaSet.Name, s.Replicas)
			}
			if i == 0 && s.Replicas == 0 && toAdd < 0 {
				clamped = true
			}
			sum += int64(s.Replicas)
		}
		if len(shares) != len(active) {
			t.Fatalf("%d shares for %d active ReplicaSets", len(shares), len(active))
		}
		if len(shares) > 0 && !clamped && toAdd != 0 && sum != allowed {
			t.Fatalf("shares add up to %d, want %d", sum, allowed)
		}
		_ = scaling.Scale(d, newRS, old, scaling.Fixes{})
		frozen.Check(t)
	})
}
