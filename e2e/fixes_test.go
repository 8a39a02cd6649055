package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	restclient "k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/examples/controller/controller"
)

// stuckFor is how long the stale desired-replicas scenario watches
// kube-controller-manager (and our controller without the Fix) not start
// the rollout.
const stuckFor = 20 * time.Second

// withFixes is the client-go controller with the given Fixes on.
func withFixes(name string, fixes ...deploysync.Fix) flavour {
	return flavour{name: name, start: func(t *testing.T, cfg *restclient.Config, ns string) func() {
		return startClientGoControllerWith(t, cfg, ns, "deploysync-controller", func(c *controller.Controller) { c.SetFixes(fixes...) })
	}}
}

// testFixes runs each Fix's scenario three ways: kube-controller-manager,
// our client-go controller without the Fix (identity is the default) and
// with it.
func testFixes(t *testing.T, cfg *restclient.Config) {
	t.Run("stale-desired-replicas", func(t *testing.T) {
		for _, f := range []struct {
			flavour flavour
			fixed   bool
		}{
			{reference, false},
			{clientGo, false},
			{withFixes("client-go-fix", deploysync.FixStaleDesiredReplicas), true},
		} {
			t.Run(f.flavour.name, func(t *testing.T) {
				t.Parallel()
				staleDesiredReplicas(t, newRun(t, cfg, "fix-stale", f.flavour), f.fixed)
			})
		}
	})
	t.Run("unhealthy-first", func(t *testing.T) {
		for _, f := range []struct {
			flavour flavour
			fixed   bool
		}{
			{reference, false},
			{clientGo, false},
			{withFixes("client-go-fix", deploysync.FixUnhealthyFirst), true},
		} {
			t.Run(f.flavour.name, func(t *testing.T) {
				t.Parallel()
				unhealthyFirst(t, newRun(t, cfg, "fix-unhealthy", f.flavour), f.fixed)
			})
		}
	})
	t.Run("proportional-overflow", func(t *testing.T) {
		for _, f := range []struct {
			flavour flavour
			fixed   bool
		}{
			{reference, false},
			{clientGo, false},
			{withFixes("client-go-fix", deploysync.FixProportionalOverflow), true},
		} {
			t.Run(f.flavour.name, func(t *testing.T) {
				t.Parallel()
				proportionalOverflow(t, newRun(t, cfg, "fix-overflow", f.flavour), f.fixed)
			})
		}
	})
}

// staleDesiredReplicas is kubernetes/kubernetes#102551 on the cluster: a
// Deployment of 4 replicas, maxSurge 0, whose only ReplicaSet has its 4
// replicas but a desired-replicas annotation of 5 (the state fixes.go's
// comment shows a scale during a maxSurge 0 rollout leaving behind; here
// written by the test, an outside writer, while the controller is down),
// then a new image. Every sync is then a scaling event that scale()
// leaves at once: without the Fix no new ReplicaSet appears, for good
// (asserted for stuckFor after the controller has observed the new
// generation); with it the first sync rewrites the annotations and the
// rollout completes within the module's bounds.
func staleDesiredReplicas(t *testing.T, r *run, fixed bool) {
	r.obs.setBounds(bounds{maxPods: 4})
	r.createDeployment(withStrategy(newDeployment(4, "web:1"), intstr.FromInt32(0), intstr.FromInt32(1)))
	r.settle("create", complete)
	for _, v := range r.obs.takeViolations() {
		t.Errorf("%s, create: invariant violated: %s", r.flavour.name, v)
	}
	// From here on: replicas + maxSurge 0 pods asked for, replicas −
	// maxUnavailable 1 Ready.
	r.obs.setBounds(bounds{maxPods: 4, minAvailable: 3})
	rss := r.controlledReplicaSets()
	if len(rss) != 1 {
		t.Fatalf("%d controlled replicasets after create, want 1", len(rss))
	}
	old := rss[0].Name

	r.stopControllerNow()
	r.patchReplicaSet(old, fmt.Sprintf(`{"metadata":{"annotations":{%q:"5"}}}`, deployutil.DesiredReplicasAnnotation))
	r.updateDeployment(func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "web:2" })
	start := time.Now()
	r.startController()

	if fixed {
		w := r.settle("image web:2 behind a stale desired-replicas", complete)
		t.Logf("%s: rollout behind the stale annotation complete in %v (%v of them quiet)", r.flavour.name,
			time.Since(start).Round(100*time.Millisecond), quiet)
		for _, v := range r.obs.takeViolations() {
			t.Errorf("%s: invariant violated: %s", r.flavour.name, v)
		}
		if w.Deployment.Status.UpdatedReplicas != 4 || len(w.ReplicaSets) != 2 {
			t.Errorf("%s: updated %d, replicasets %+v; want 4 updated, the old one at 0 beside the new one", r.flavour.name,
				w.Deployment.Status.UpdatedReplicas, w.ReplicaSets)
		}
		for _, rs := range w.ReplicaSets {
			want := map[string]int32{"web:1": 0, "web:2": 4}[rs.Image]
			if rs.Replicas != want || rs.Annotations[deployutil.DesiredReplicasAnnotation] != "4" {
				t.Errorf("%s: replicaset %s (%s) has %d replicas, annotations %v; want %d and desired-replicas 4",
					r.flavour.name, rs.Name, rs.Image, rs.Replicas, rs.Annotations, want)
			}
		}
		return
	}

	// Stuck: the controller has seen the new template (observedGeneration
	// current) and, for stuckFor, no ReplicaSet of web:2 exists and the old
	// one keeps its 4 replicas and its stale annotation.
	r.settle("image web:2 behind a stale desired-replicas", quietly)
	for time.Since(start) < stuckFor {
		if p := stuckProblem(r.ctx, r, old); p != "" {
			t.Fatalf("%s: %v after the new image: %s", r.flavour.name, time.Since(start).Round(100*time.Millisecond), p)
		}
		time.Sleep(250 * time.Millisecond)
	}
	w := r.settle("still stuck", quietly)
	if p := stuckProblem(r.ctx, r, old); p != "" {
		t.Errorf("%s: %s", r.flavour.name, p)
	}
	for _, v := range r.obs.takeViolations() {
		t.Errorf("%s: invariant violated: %s", r.flavour.name, v)
	}
	t.Logf("%s: no rollout %v after the new image (observedGeneration %d of %d, updated %d, replicasets %d)", r.flavour.name,
		time.Since(start).Round(100*time.Millisecond), w.Deployment.Status.ObservedGeneration, w.Deployment.Generation,
		w.Deployment.Status.UpdatedReplicas, len(w.ReplicaSets))
}

// stuckProblem returns what shows the rollout moving, or "".
func stuckProblem(ctx context.Context, r *run, old string) string {
	rsl, err := r.client.AppsV1().ReplicaSets(r.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err.Error()
	}
	for _, rs := range rsl.Items {
		if rs.Name != old {
			return fmt.Sprintf("replicaset %s (%s) exists: the rollout started", rs.Name, rs.Spec.Template.Spec.Containers[0].Image)
		}
		if *rs.Spec.Replicas != 4 || rs.Annotations[deployutil.DesiredReplicasAnnotation] != "5" {
			return fmt.Sprintf("replicaset %s has %d replicas and desired-replicas %q, want 4 and the stale 5", rs.Name,
				*rs.Spec.Replicas, rs.Annotations[deployutil.DesiredReplicasAnnotation])
		}
	}
	return ""
}

// unhealthyFirst is kubernetes/kubernetes#119536 on the cluster. A
// Deployment of 6 replicas (maxSurge 2, maxUnavailable 2) rolls out web:2
// with its pods held unready until it stops at 4 old and 4 new; it is
// paused, the new pods become Ready, and two of the old ones stop being
// Ready (a crash; the test patches their status). Paused, no rolling sync
// removes the unready old pods (upstream's cleanupUnhealthyReplicas runs
// only in a rollout), so the scale to 4 that follows meets the state of
// the issue: an old ReplicaSet of 4 with 2 available, a new one of 4 all
// available, 8 asked for and 6 allowed. Upstream shares the 2 to remove by
// size (round(4 × 6/8) = 3 each): 3 and 3, a healthy new pod goes and a
// broken old one stays (the ReplicaSet controller deletes unready pods of
// a ReplicaSet first). With FixUnhealthyFirst the old ReplicaSet gives up
// its 2 unavailable replicas: 2 and 4, every remaining pod Ready; the new
// ReplicaSet is then saturated (4 of 4 available) and the next sync, paused
// or not, scales the old one to 0 (seen in the plans at -v=4). Resumed,
// each rollout completes.
func unhealthyFirst(t *testing.T, r *run, fixed bool) {
	r.obs.setBounds(bounds{maxPods: 8})
	r.createDeployment(withStrategy(newDeployment(6, "web:1"), intstr.FromInt32(2), intstr.FromInt32(2)))
	r.settle("create", complete)
	r.obs.setBounds(bounds{maxPods: 8, minAvailable: 4})
	r.driver.hold("web:2")
	r.updateDeployment(func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "web:2" })
	r.settle("image web:2, held unready", sizesAre(map[string]int32{"web:1": 4, "web:2": 4}))
	r.updateDeployment(func(d *appsv1.Deployment) { d.Spec.Paused = true })
	r.settle("pause", progressReason(deployutil.ReasonDeploymentPaused))
	r.driver.release("web:2")
	r.settle("web:2 Ready, paused", func(d *appsv1.Deployment, _ []appsv1.ReplicaSet) bool { return d.Status.ReadyReplicas == 8 })
	for _, v := range r.obs.takeViolations() {
		t.Errorf("%s, before the crash: invariant violated: %s", r.flavour.name, v)
	}
	r.obs.setBounds(bounds{maxPods: 8})
	r.crashPods("web:1", 2)
	r.settle("two web:1 pods not Ready", func(d *appsv1.Deployment, _ []appsv1.ReplicaSet) bool { return d.Status.ReadyReplicas == 6 })

	r.updateDeployment(func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](4) })
	want, pods, ready := map[string]int32{"web:1": 3, "web:2": 3}, int32(6), int32(5)
	if fixed {
		want, pods, ready = map[string]int32{"web:1": 0, "web:2": 4}, 4, 4
	}
	w := r.settle("scale to 4, paused", func(d *appsv1.Deployment, rss []appsv1.ReplicaSet) bool {
		return d.Status.Replicas == pods && sizesAre(want)(d, rss)
	})
	if w.Deployment.Status.ReadyReplicas != ready {
		t.Errorf("%s: %d pods Ready after the scale-down, want %d", r.flavour.name, w.Deployment.Status.ReadyReplicas, ready)
	}
	t.Logf("%s: scale 6 → 4 while paused: web:1 %d, web:2 %d, %d of %d pods Ready", r.flavour.name,
		want["web:1"], want["web:2"], w.Deployment.Status.ReadyReplicas, w.Deployment.Status.Replicas)
	for _, v := range r.obs.takeViolations() {
		t.Errorf("%s, scale-down: invariant violated: %s", r.flavour.name, v)
	}
	r.obs.setBounds(bounds{maxPods: 6})
	r.updateDeployment(func(d *appsv1.Deployment) { d.Spec.Paused = false })
	r.settle("resume", complete)
	for _, v := range r.obs.takeViolations() {
		t.Errorf("%s, resume: invariant violated: %s", r.flavour.name, v)
	}
}

// sizesAre: the controlled ReplicaSets' spec.replicas by image are want.
func sizesAre(want map[string]int32) func(*appsv1.Deployment, []appsv1.ReplicaSet) bool {
	return func(d *appsv1.Deployment, rss []appsv1.ReplicaSet) bool {
		got := map[string]int32{}
		for _, rs := range rss {
			if ref := metav1.GetControllerOfNoCopy(&rs); ref != nil && ref.UID == d.UID {
				got[rs.Spec.Template.Spec.Containers[0].Image] += *rs.Spec.Replicas
			}
		}
		if len(got) != len(want) {
			return false
		}
		for k, v := range want {
			if got[k] != v {
				return false
			}
		}
		return true
	}
}

// crashPods marks n Ready pods of the image not Ready, as a kubelet would
// after their container crashed; the pod driver readies a pod once only.
func (r *run) crashPods(image string, n int) {
	r.t.Helper()
	pods, err := r.client.CoreV1().Pods(r.ns).List(r.ctx, metav1.ListOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	stamp := metav1.Now().UTC().Format(time.RFC3339)
	for _, p := range pods.Items {
		if n == 0 {
			break
		}
		if p.DeletionTimestamp != nil || p.Spec.Containers[0].Image != image || !ready(&p) {
			continue
		}
		patch := fmt.Sprintf(`{"status":{"conditions":[{"type":"PodScheduled","status":"True","lastTransitionTime":%q},`+
			`{"type":"Initialized","status":"True","lastTransitionTime":%q},`+
			`{"type":"ContainersReady","status":"False","lastTransitionTime":%q},`+
			`{"type":"Ready","status":"False","lastTransitionTime":%q}]}}`, stamp, stamp, stamp, stamp)
		if _, err := r.client.CoreV1().Pods(r.ns).Patch(r.ctx, p.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "status"); err != nil {
			r.t.Fatalf("crashing pod %s: %v", p.Name, err)
		}
		n--
	}
	if n > 0 {
		r.t.Fatalf("%d fewer Ready %s pods than asked to crash", n, image)
	}
}
