package simulate_test

import (
	"testing"

	"github.com/deploysync/deploysync/simulate"
)

func benchmarkRun(b *testing.B, replicas int32) {
	s := steady(b, deployment(replicas))
	opt := simulate.WithChanges(upgrade)
	b.ReportAllocs()
	for b.Loop() {
		tl, err := simulate.Run(s, opt)
		if err != nil {
			b.Fatal(err)
		}
		if tl.Outcome != simulate.Complete {
			b.Fatalf("outcome %s", tl.Outcome)
		}
	}
}

// BenchmarkRun100 rolls out 100 replicas, 25%/25%.
func BenchmarkRun100(b *testing.B) { benchmarkRun(b, 100) }

// BenchmarkRun10000 rolls out 10,000 replicas, 25%/25%.
func BenchmarkRun10000(b *testing.B) { benchmarkRun(b, 10000) }
