// Package bench times upstream's Deployment controller and deploysync side
// by side on identical inputs; docs/benchmark.md reports the ratios (benchstat).
package bench

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/kubernetes/pkg/controller"
	upstreamutil "k8s.io/kubernetes/pkg/controller/deployment/util"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/conformance/upstream"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/scenarios"
)

// states are the named states both sides are timed on; none of them makes
// the sync create a ReplicaSet, so upstream's fake tracker stays valid across
// iterations.
func states() []struct {
	name string
	s    deploysync.State
} {
	return []struct {
		name string
		s    deploysync.State
	}{
		{"MidRollout/rs=11", scenarios.BenchMidRollout(10)},
		{"ScalingEvent/rs=3", scenarios.BenchScalingEvent()},
		{"Recreate/pods=100", scenarios.BenchRecreate()},
		{"PausedCleanup/rs=11", scenarios.BenchPausedCleanup(10)},
		{"MidRollout/rs=100", scenarios.BenchMidRollout(99)},
	}
}

// BenchmarkSync times one sync of each state: upstream's syncDeployment on a
// fake clientset (as upstream's unit tests build it), and deploysync's Sync
// followed by Apply.
func BenchmarkSync(b *testing.B) {
	for _, st := range states() {
		b.Run("impl=upstream/"+st.name, func(b *testing.B) {
			sync, restore, err := upstream.Plain(upstream.Input{Deployment: st.s.Deployment, ReplicaSets: st.s.ReplicaSets, Pods: st.s.Pods, Now: st.s.Now, TerminatingReplicas: true})
			if err != nil {
				b.Fatal(err)
			}
			defer restore()
			b.ReportAllocs()
			for b.Loop() {
				if err := sync(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("impl=deploysync/"+st.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, err := deploysync.Sync(st.s)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := deploysync.Apply(st.s, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFindNewReplicaSet times the new-ReplicaSet lookup among 11
// ReplicaSets (the new one among them).
func BenchmarkFindNewReplicaSet(b *testing.B) {
	for _, n := range []int{10, 100} {
		s := scenarios.BenchMidRollout(n)
		b.Run(fmt.Sprintf("impl=upstream/rs=%d", n+1), func(b *testing.B) {
			rss := append([]*appsv1.ReplicaSet(nil), s.ReplicaSets...)
			b.ReportAllocs()
			for b.Loop() {
				if upstreamutil.FindNewReplicaSet(s.Deployment, rss) == nil {
					b.Fatal("not found")
				}
			}
		})
		b.Run(fmt.Sprintf("impl=deploysync/rs=%d", n+1), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if deployutil.FindNewReplicaSet(s.Deployment, s.ReplicaSets) == nil {
					b.Fatal("not found")
				}
			}
		})
	}
}

// BenchmarkComputeHash times the pod-template-hash of the default template.
func BenchmarkComputeHash(b *testing.B) {
	tpl := scenarios.Template("nginx:1")
	cc := int32(1)
	if controller.ComputeHash(&tpl, &cc) != deployutil.ComputeHash(&tpl, &cc) {
		b.Fatal("hashes differ")
	}
	b.Run("impl=upstream", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = controller.ComputeHash(&tpl, &cc)
		}
	})
	b.Run("impl=deploysync", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = deployutil.ComputeHash(&tpl, &cc)
		}
	})
}
