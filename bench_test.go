package deploysync_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/scenarios"
)

// The named states of BENCHMARK.md. Each is a valid state whose sync takes
// the path its name says; the conformance module benchmarks upstream on the
// same states.

// BenchNewDeployment: a Deployment with no ReplicaSet yet.
func BenchNewDeployment() deploysync.State {
	return deploysync.State{Deployment: scenarios.Deployment(10), Now: scenarios.Now}
}

// BenchMidRollout: a RollingUpdate half done, one new and old old
// ReplicaSets (the newest old one still running pods, the rest at zero).
func BenchMidRollout(old int) deploysync.State {
	d := scenarios.Deployment(10)
	d.Spec.Template = scenarios.Template("nginx:new")
	d.Spec.RevisionHistoryLimit = ptr.To[int32](int32(old + 10))
	scenarios.Observed(d, 12, 5, 9)
	rss := []*appsv1.ReplicaSet{scenarios.ReplicaSet(scenarios.RS{Name: "web-new", Image: "nginx:new", Replicas: 5, Current: 5, Ready: 4, Available: 4,
		Revision: strconv.Itoa(old + 1), Desired: "10", Max: "13", Age: time.Minute})}
	for i := 0; i < old; i++ {
		r := scenarios.Steady("web-old-"+strconv.Itoa(i), "nginx:"+strconv.Itoa(i), 0, strconv.Itoa(i+1), time.Duration(old-i+1)*time.Hour)
		if i == old-1 {
			r = scenarios.RS{Name: r.Name, Image: r.Image, Replicas: 7, Current: 7, Ready: 5, Available: 5, Revision: r.Revision, Desired: "10", Max: "13", Age: r.Age}
		}
		rss = append(rss, scenarios.ReplicaSet(r))
	}
	return deploysync.State{Deployment: d, ReplicaSets: rss, Now: scenarios.Now}
}

// BenchScalingEvent: spec.replicas 10→20 while three ReplicaSets run.
func BenchScalingEvent() deploysync.State {
	d := scenarios.Deployment(20)
	d.Spec.Template = scenarios.Template("nginx:3")
	scenarios.Observed(d, 10, 4, 10)
	var rss []*appsv1.ReplicaSet
	for i, size := range []int32{4, 3, 3} {
		r := scenarios.Steady("web-"+strconv.Itoa(i), "nginx:"+strconv.Itoa(3-i), size, strconv.Itoa(3-i), time.Duration(i+1)*time.Hour)
		r.Desired, r.Max = "10", "13"
		rss = append(rss, scenarios.ReplicaSet(r))
	}
	return deploysync.State{Deployment: d, ReplicaSets: rss, Now: scenarios.Now}
}

// BenchRecreate: a Recreate rollout waiting for 100 old pods, some of them
// terminating.
func BenchRecreate() deploysync.State {
	d := scenarios.Recreate(scenarios.Deployment(100))
	d.Spec.Template = scenarios.Template("nginx:2")
	old := scenarios.ReplicaSet(scenarios.RS{Name: "web-old", Image: "nginx:1", Revision: "1", Desired: "100", Max: "100", Age: time.Hour})
	pods := make([]*corev1.Pod, 100)
	for i := range pods {
		pods[i] = scenarios.Pod(old, fmt.Sprintf("web-old-%d", i), corev1.PodSucceeded, false)
	}
	pods[99] = scenarios.Pod(old, "web-old-99", corev1.PodRunning, true)
	return deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{old}, Pods: map[types.UID][]*corev1.Pod{old.UID: pods}, Now: scenarios.Now}
}

// BenchPausedCleanup: a paused Deployment with n old ReplicaSets at zero,
// past its history limit of 2.
func BenchPausedCleanup(n int) deploysync.State {
	d := scenarios.Deployment(10)
	d.Spec.Paused = true
	d.Spec.RevisionHistoryLimit = ptr.To[int32](2)
	scenarios.Observed(d, 10, 10, 10)
	cur := scenarios.Steady("web-cur", "nginx:1", 10, strconv.Itoa(n+1), time.Minute)
	cur.Max = "13"
	rss := []*appsv1.ReplicaSet{scenarios.ReplicaSet(cur)}
	for i := 0; i < n; i++ {
		rss = append(rss, scenarios.ReplicaSet(scenarios.Steady("web-h"+strconv.Itoa(i), "nginx:h"+strconv.Itoa(i), 0, strconv.Itoa(i+1), time.Duration(n-i+1)*time.Hour)))
	}
	return deploysync.State{Deployment: d, ReplicaSets: rss, Now: scenarios.Now}
}

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
	b.Run("NewDeployment", func(b *testing.B) { benchSync(b, BenchNewDeployment()) })
	b.Run("MidRollout/old=10", func(b *testing.B) { benchSync(b, BenchMidRollout(10)) })
	b.Run("ScalingEvent", func(b *testing.B) { benchSync(b, BenchScalingEvent()) })
	b.Run("Recreate/pods=100", func(b *testing.B) { benchSync(b, BenchRecreate()) })
	b.Run("PausedCleanup/old=10", func(b *testing.B) { benchSync(b, BenchPausedCleanup(10)) })
}

// BenchmarkSyncScale runs the same shapes with 10, 100 and 1000
// ReplicaSets; ns/op divided by the count is the per-ReplicaSet cost.
func BenchmarkSyncScale(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("MidRollout/rs=%d", n), func(b *testing.B) { benchSync(b, BenchMidRollout(n-1)) })
		b.Run(fmt.Sprintf("PausedCleanup/rs=%d", n), func(b *testing.B) { benchSync(b, BenchPausedCleanup(n-1)) })
	}
}

func BenchmarkSyncOnly(b *testing.B) {
	s := BenchMidRollout(10)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = deploysync.Sync(s)
	}
}

func BenchmarkApply(b *testing.B) {
	s := BenchMidRollout(10)
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
	s := BenchMidRollout(10)
	b.ReportAllocs()
	for b.Loop() {
		if deployutil.FindNewReplicaSet(s.Deployment, s.ReplicaSets) == nil {
			b.Fatal("no new ReplicaSet")
		}
	}
}
