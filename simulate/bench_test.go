package simulate_test

import (
	"testing"

	"github.com/deploysync/deploysync/simulate"
)

func benchmarkRun(b *testing.B, replicas int32, opts ...simulate.Option) {
	s := steady(b, deployment(replicas))
	opts = append(opts, simulate.WithChanges(upgrade))
	b.ReportAllocs()
	for b.Loop() {
		tl, err := simulate.Run(s, opts...)
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

// BenchmarkRun100CacheOrder is BenchmarkRun100 with the pods of each
// scale-down listed in a seeded order (simulate.WithCacheOrder).
func BenchmarkRun100CacheOrder(b *testing.B) { benchmarkRun(b, 100, simulate.WithCacheOrder(1)) }

// BenchmarkRun10000CacheOrder is BenchmarkRun10000 with the pods of each
// scale-down listed in a seeded order.
func BenchmarkRun10000CacheOrder(b *testing.B) { benchmarkRun(b, 10000, simulate.WithCacheOrder(1)) }
