package kubectl

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync/conformance/minors"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/randstate"
	"github.com/deploysync/deploysync/internal/testing/scenarios"
)

// compareState runs every comparison on one state.
func compareState(t *testing.T, name string, d *appsv1.Deployment, rss []*appsv1.ReplicaSet, c counts) {
	t.Helper()
	hc := client(d, rss)
	for _, rev := range minors.KubectlRevisions(d, rss) {
		if err := compareStatus(d, rev, c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := compareHistory(hc, d, rss, rev, c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := compareUndo(d, rss, rev, c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// TestScenarios compares on every named scenario of the library.
func TestScenarios(t *testing.T) {
	c := counts{}
	for _, sc := range scenarios.All() {
		compareState(t, sc.Name, sc.State.Deployment, sc.State.ReplicaSets, c)
	}
	t.Logf("scenarios: %d; outcomes: %v", len(scenarios.All()), c)
}

// randomStates is the number of random states: 2,500 by default,
// DEPLOYSYNC_KUBECTL_STATES=n to change it.
func randomStates() int {
	if v, err := strconv.Atoi(os.Getenv("DEPLOYSYNC_KUBECTL_STATES")); err == nil && v > 0 {
		return v
	}
	return 2500
}

// TestRandomStates compares on states of the conformance generator
// (randstate.Valid with seeds 1..n). Every third state is varied to reach what the
// generator does not make: change-causes on pod templates as well as on
// ReplicaSets, rich pod templates for the describe printer, a Deployment
// whose template is one of the revisions', no annotations at all.
func TestRandomStates(t *testing.T) {
	n := randomStates()
	c := counts{}
	for seed := 1; seed <= n; seed++ {
		cs := randstate.Valid(randstate.NewRand(uint64(seed)))
		d, rss := cs.State.Deployment, cs.State.ReplicaSets
		if seed%3 == 0 {
			d, rss = vary(rand.New(rand.NewPCG(uint64(seed), 7)), d, rss)
		}
		compareState(t, "seed "+strconv.Itoa(seed), d, rss, c)
	}
	t.Logf("random states: %d; outcomes: %v", n, c)
}

// vary returns a varied copy of a generated state.
func vary(r *rand.Rand, d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (*appsv1.Deployment, []*appsv1.ReplicaSet) {
	d = d.DeepCopy()
	out := make([]*appsv1.ReplicaSet, len(rss))
	for i, rs := range rss {
		rs = rs.DeepCopy()
		if r.IntN(3) == 0 {
			if rs.Spec.Template.Annotations == nil {
				rs.Spec.Template.Annotations = map[string]string{}
			}
			rs.Spec.Template.Annotations[deployutil.ChangeCauseAnnotation] = "template cause " + strconv.Itoa(r.IntN(3))
		}
		if r.IntN(3) == 0 {
			labels := rs.Spec.Template.Labels
			rs.Spec.Template = richTemplate(r)
			rs.Spec.Template.Labels = labels
		}
		if r.IntN(4) == 0 {
			if rs.Annotations == nil {
				rs.Annotations = map[string]string{}
			}
			rs.Annotations[deployutil.ChangeCauseAnnotation] = ""
		}
		out[i] = rs
	}
	switch r.IntN(4) {
	case 0:
		if len(out) > 0 {
			t := revisionTemplate(out[r.IntN(len(out))])
			d.Spec.Template = t
		}
	case 1:
		d.Annotations = nil
	}
	return d, out
}

func revisionTemplate(rs *appsv1.ReplicaSet) (t corev1.PodTemplateSpec) {
	t = *rs.Spec.Template.DeepCopy()
	delete(t.Labels, deployutil.PodTemplateHashLabel)
	return t
}
