package deployutil_test

import (
	"testing"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/scenarios"
)

func BenchmarkComputeHash(b *testing.B) {
	tpl := scenarios.Template("nginx:1")
	b.ReportAllocs()
	for b.Loop() {
		_ = deployutil.ComputeHash(&tpl, nil)
	}
}

func BenchmarkEqualIgnoreHash(b *testing.B) {
	s := scenarios.BenchMidRollout(1)
	d, rs := s.Deployment, s.ReplicaSets[0]
	b.Run("equal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !deployutil.EqualIgnoreHash(&d.Spec.Template, &rs.Spec.Template) {
				b.Fatal("not equal")
			}
		}
	})
	old := s.ReplicaSets[1]
	b.Run("other image", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if deployutil.EqualIgnoreHash(&d.Spec.Template, &old.Spec.Template) {
				b.Fatal("equal")
			}
		}
	})
}
