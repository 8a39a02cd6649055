package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	restclient "k8s.io/client-go/rest"

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
