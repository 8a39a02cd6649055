package scaling_test

import (
	"math"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/randstate"
	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/scaling"
)

// FuzzProportions checks proportional scaling on generated states: no
// ReplicaSet goes negative, and the shares add up to replicas+maxSurge unless
// the leftover had to be clamped at zero — on states where upstream's int32
// arithmetic does not wrap (where it does, upstream's shares can be
// negative, and so are ours). (A ReplicaSet may move against the
// total, as upstream's may: with a stale max-replicas annotation its own
// fraction points the other way. The fuzzer found that; the conformance
// suite confirms upstream does the same.)
func FuzzProportions(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4})
	f.Add([]byte("proportional"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := randstate.Valid(randstate.NewBytes(data))
		d := c.State.Deployment
		if facts.IsSelectingAll(d) || !facts.IsRollingUpdate(d) {
			return
		}
		newRS, old := facts.SplitReplicaSets(d, c.State.ReplicaSets)
		old = facts.SortedByCreationNewestFirst(old)
		frozen := testutil.Freeze(t, d, c.State.ReplicaSets)
		shares := scaling.Proportions(d, newRS, old, scaling.Fixes{})
		frozen.Check(t)
		active := facts.FilterActive(append(old, newRS))
		allowed := int64(0)
		if *d.Spec.Replicas > 0 {
			allowed = int64(facts.MaxReplicas(d))
		}
		toAdd := allowed - int64(facts.SpecReplicas(active))
		if len(shares) != len(active) {
			t.Fatalf("%d shares for %d active ReplicaSets", len(shares), len(active))
		}
		if int32Wraps(d, active) {
			return
		}
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
		if len(shares) > 0 && !clamped && toAdd != 0 && sum != allowed {
			t.Fatalf("shares add up to %d, want %d", sum, allowed)
		}
		_ = scaling.Resizes(d, newRS, old, scaling.Fixes{})
		frozen.Check(t)
	})
}

// int32Wraps reports whether upstream's proportional arithmetic leaves int32
// on d and its active ReplicaSets: replicas + maxSurge, the sum of sizes, or
// a product size × (replicas + maxSurge).
func int32Wraps(d *appsv1.Deployment, active []*appsv1.ReplicaSet) bool {
	r := int64(*d.Spec.Replicas)
	var surge int64
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil && ru.MaxSurge != nil {
		if v, err := intstr.GetScaledValueFromIntOrPercent(ru.MaxSurge, int(r), true); err == nil {
			surge = int64(v)
		}
	}
	maxReplicas := r + surge
	if surge < 0 || surge > math.MaxInt32 || maxReplicas > math.MaxInt32 {
		return true
	}
	var sum int64
	for _, rs := range active {
		sum += int64(*rs.Spec.Replicas)
		if int64(*rs.Spec.Replicas)*maxReplicas > math.MaxInt32 {
			return true
		}
	}
	return sum > math.MaxInt32
}
