package upstream_test

import (
	"testing"

	"github.com/deploysync/deploysync/conformance/upstream"
)

// BenchmarkRun measures one run on a small state: a rolling update from an
// old ReplicaSet of 4 replicas (trace B.2).
func BenchmarkRun(b *testing.B) {
	in := traceB2Input()
	for b.Loop() {
		if _, err := upstream.Run(in); err != nil {
			b.Fatal(err)
		}
	}
}
