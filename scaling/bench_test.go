package scaling_test

import (
	"testing"

	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/scenarios"
	"github.com/deploysync/deploysync/scaling"
)

func BenchmarkProportions(b *testing.B) {
	s := scenarios.BenchScalingEvent()
	newRS, old := facts.SplitReplicaSets(s.Deployment, s.ReplicaSets)
	old = facts.SortedByCreationNewestFirst(old)
	b.ReportAllocs()
	for b.Loop() {
		if len(scaling.Proportions(s.Deployment, newRS, old, scaling.Fixes{})) != 3 {
			b.Fatal("want 3 shares")
		}
	}
}
