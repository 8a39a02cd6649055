package scenarios

import (
	"fmt"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
)

// The named states of docs/benchmark.md. Each is a valid state whose sync takes
// the path its name says; the conformance module benchmarks upstream on the
// same states.

// BenchNewDeployment: a Deployment with no ReplicaSet yet.
func BenchNewDeployment() deploysync.State {
	return deploysync.State{Deployment: Deployment(10), Now: Now}
}

// BenchMidRollout: a RollingUpdate half done, one new and `old` old
// ReplicaSets (the newest old one still running pods, the rest at zero).
func BenchMidRollout(old int) deploysync.State {
	d := Deployment(10)
	d.Spec.Template = Template("nginx:new")
	d.Spec.RevisionHistoryLimit = ptr.To[int32](int32(old + 10))
	Observed(d, 12, 5, 9)
	rss := []*appsv1.ReplicaSet{ReplicaSet(RS{Name: "web-new", Image: "nginx:new", Replicas: 5, Current: 5, Ready: 4, Available: 4,
		Revision: strconv.Itoa(old + 1), Desired: "10", Max: "13", Age: time.Minute})}
	for i := 0; i < old; i++ {
		r := Steady("web-old-"+strconv.Itoa(i), "nginx:"+strconv.Itoa(i), 0, strconv.Itoa(i+1), time.Duration(old-i+1)*time.Hour)
		if i == old-1 {
			r = RS{Name: r.Name, Image: r.Image, Replicas: 7, Current: 7, Ready: 5, Available: 5, Revision: r.Revision, Desired: "10", Max: "13", Age: r.Age}
		}
		rss = append(rss, ReplicaSet(r))
	}
	return deploysync.State{Deployment: d, ReplicaSets: rss, Now: Now}
}

// BenchScalingEvent: spec.replicas 10→20 while three ReplicaSets run.
func BenchScalingEvent() deploysync.State {
	d := Deployment(20)
	d.Spec.Template = Template("nginx:3")
	Observed(d, 10, 4, 10)
	var rss []*appsv1.ReplicaSet
	for i, size := range []int32{4, 3, 3} {
		r := Steady("web-"+strconv.Itoa(i), "nginx:"+strconv.Itoa(3-i), size, strconv.Itoa(3-i), time.Duration(i+1)*time.Hour)
		r.Desired, r.Max = "10", "13"
		rss = append(rss, ReplicaSet(r))
	}
	return deploysync.State{Deployment: d, ReplicaSets: rss, Now: Now}
}

// BenchRecreate: a Recreate rollout waiting for 100 old pods, some of them
// terminating.
func BenchRecreate() deploysync.State {
	d := Recreate(Deployment(100))
	d.Spec.Template = Template("nginx:2")
	old := ReplicaSet(RS{Name: "web-old", Image: "nginx:1", Revision: "1", Desired: "100", Max: "100", Age: time.Hour})
	pods := make([]*corev1.Pod, 100)
	for i := range pods {
		pods[i] = Pod(old, fmt.Sprintf("web-old-%d", i), corev1.PodSucceeded, false)
	}
	pods[99] = Pod(old, "web-old-99", corev1.PodRunning, true)
	return deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{old}, Pods: map[types.UID][]*corev1.Pod{old.UID: pods}, Now: Now}
}

// BenchPausedCleanup: a paused Deployment with n old ReplicaSets at zero,
// past its history limit of 2.
func BenchPausedCleanup(n int) deploysync.State {
	d := Deployment(10)
	d.Spec.Paused = true
	d.Spec.RevisionHistoryLimit = ptr.To[int32](2)
	Observed(d, 10, 10, 10)
	cur := Steady("web-cur", "nginx:1", 10, strconv.Itoa(n+1), time.Minute)
	cur.Max = "13"
	rss := []*appsv1.ReplicaSet{ReplicaSet(cur)}
	for i := 0; i < n; i++ {
		rss = append(rss, ReplicaSet(Steady("web-h"+strconv.Itoa(i), "nginx:h"+strconv.Itoa(i), 0, strconv.Itoa(i+1), time.Duration(n-i+1)*time.Hour)))
	}
	return deploysync.State{Deployment: d, ReplicaSets: rss, Now: Now}
}
