package deploysync_test

import (
	"fmt"
	"testing"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/scenarios"
)

func benchSync(b *testing.B, s deploysync.State) {
	b.Helper()
	if _, err := deploysync.Sync(s); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		p, _ := deploysync.Sync(s)
		if _, err := deploysync.Apply(s, p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSync(b *testing.B) {
	b.Run("NewDeployment", func(b *testing.B) { benchSync(b, scenarios.BenchNewDeployment()) })
	b.Run("MidRollout/old=10", func(b *testing.B) { benchSync(b, scenarios.BenchMidRollout(10)) })
	b.Run("ScalingEvent", func(b *testing.B) { benchSync(b, scenarios.BenchScalingEvent()) })
	b.Run("Recreate/pods=100", func(b *testing.B) { benchSync(b, scenarios.BenchRecreate()) })
	b.Run("PausedCleanup/old=10", func(b *testing.B) { benchSync(b, scenarios.BenchPausedCleanup(10)) })
}

// BenchmarkSyncScale runs the same shapes with 10, 100 and 1000
// ReplicaSets; ns/op divided by the count is the per-ReplicaSet cost.
func BenchmarkSyncScale(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("MidRollout/rs=%d", n), func(b *testing.B) { benchSync(b, scenarios.BenchMidRollout(n-1)) })
		b.Run(fmt.Sprintf("PausedCleanup/rs=%d", n), func(b *testing.B) { benchSync(b, scenarios.BenchPausedCleanup(n-1)) })
	}
}

func BenchmarkSyncOnly(b *testing.B) {
	s := scenarios.BenchMidRollout(10)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = deploysync.Sync(s)
	}
}

func BenchmarkApply(b *testing.B) {
	s := scenarios.BenchMidRollout(10)
	p, err := deploysync.Sync(s)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := deploysync.Apply(s, p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFindNewReplicaSet(b *testing.B) {
	s := scenarios.BenchMidRollout(10)
	b.ReportAllocs()
	for b.Loop() {
		if deployutil.FindNewReplicaSet(s.Deployment, s.ReplicaSets) == nil {
			b.Fatal("no new ReplicaSet")
		}
	}
}
