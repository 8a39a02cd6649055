package scaling_test

import (
	"testing"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/scenarios"
	"github.com/deploysync/deploysync/scaling"
)

func BenchmarkProportions(b *testing.B) {
	s := scenarios.BenchScalingEvent()
	newRS, old := deployutil.SplitReplicaSets(s.Deployment, s.ReplicaSets)
	old = deployutil.SortedByCreationNewestFirst(old)
	b.ReportAllocs()
	for b.Loop() {
		if len(scaling.Proportions(s.Deployment, newRS, old, scaling.Fixes{})) != 3 {
			b.Fatal("want 3 shares")
		}
	}
}
