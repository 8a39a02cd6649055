package simulate

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
)

// TestCheckerInputBroken feeds the checker a step 0 that already breaks an
// invariant and a step 1 that follows from it: the input is reported once,
// as the input's, and the controller is not blamed for what follows; a
// later break after the state recovered is the controller's again.
func TestCheckerInputBroken(t *testing.T) {
	d := deployutil.SetDefaults(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", UID: "d"}, Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](4)}})
	recreate := d.DeepCopy()
	recreate.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	rs := func(name string, replicas int32) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name)}, Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(replicas)}}
	}
	oldRS, newRS := rs("old", 0), rs("new", 4)
	rss := []*appsv1.ReplicaSet{oldRS, newRS}
	type step struct{ old, new counts }
	for _, tt := range []struct {
		name       string
		d          *appsv1.Deployment
		steps      []step
		wantInput  []Invariant
		wantViol   []Invariant
		wantDetail string
		reason     string
	}{
		{name: "old ReplicaSet at 0 holds the available pods", d: d,
			steps:     []step{{old: counts{pods: 4, available: 4}}, {new: counts{pods: 4}}},
			wantInput: []Invariant{AvailabilityBound}, wantDetail: "keep 0 of its 4 available pods",
			reason: "the old ReplicaSet's spec.replicas is 0 in the input: its 4 available pods go, and replicas 4 - maxUnavailable 1 = 3 cannot hold whatever the controller does"},
		{name: "recovered, then broken by the controller", d: d,
			steps: []step{{old: counts{pods: 4, available: 4}}, {new: counts{pods: 4}}, {new: counts{pods: 4, available: 4}},
				{new: counts{pods: 4, available: 2}}},
			wantInput: []Invariant{AvailabilityBound}, wantViol: []Invariant{AvailabilityBound},
			reason: "once every replica is available again the check is armed: 2 available at step 3 is below 3 and the controller's"},
		{name: "too many pods in the input", d: d,
			steps:     []step{{old: counts{pods: 3, available: 3}, new: counts{pods: 4, available: 4}}, {old: counts{pods: 3, available: 3}, new: counts{pods: 4, available: 4}}},
			wantInput: []Invariant{SurgeBound}, wantDetail: "7 pods that are not terminating, more than replicas 4 + maxSurge 1 = 5",
			reason: "7 pods exceed 4 + 1 in the input; until they fit, the surplus is the input's"},
		{name: "recreate overlap in the input", d: recreate,
			steps:     []step{{old: counts{pods: 1}, new: counts{pods: 1}}, {old: counts{terminating: 1}, new: counts{pods: 1}}, {new: counts{pods: 4}}},
			wantInput: []Invariant{RecreateNoOverlap}, wantDetail: "1 pods of the new ReplicaSet while old ReplicaSets have 1",
			reason: "old and new pods together in the input: the overlap while the old pod terminates is not the controller's"},
		{name: "recreate overlap after the input", d: recreate,
			steps:    []step{{old: counts{pods: 1}}, {old: counts{pods: 1}, new: counts{pods: 1}}},
			wantViol: []Invariant{RecreateNoOverlap},
			reason:   "the input had only old pods: an overlap later is the controller's"},
		{name: "a sound input", d: d,
			steps:  []step{{old: counts{pods: 4, available: 4}}, {old: counts{pods: 4, available: 4}}},
			reason: "the old ReplicaSet keeps its 4 replicas (spec 4 in this row): nothing to report",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			c := &checker{spec: tt.d, isNew: func(rs *appsv1.ReplicaSet, _ *appsv1.Deployment) bool { return rs.Name == "new" }}
			sized := rss
			if tt.name == "a sound input" {
				sized = []*appsv1.ReplicaSet{rs("old", 4), newRS}
			}
			for i, s := range tt.steps {
				per := []counts{s.old, s.new}
				var total Counts
				for _, p := range per {
					total.Pods += p.pods
					total.Available += p.available
					total.Terminating += p.terminating
				}
				c.measured(i, sized, per, total)
			}
			names := func(vs []Violation) []Invariant {
				var out []Invariant
				for _, v := range vs {
					out = append(out, v.Invariant)
				}
				return out
			}
			if got := names(c.inputBroken); !slices.Equal(got, tt.wantInput) {
				t.Errorf("input broke %v, want %v (%s)", c.inputBroken, tt.wantInput, tt.reason)
			}
			if got := names(c.violations); !slices.Equal(got, tt.wantViol) {
				t.Errorf("violations %v, want %v (%s)", c.violations, tt.wantViol, tt.reason)
			}
			if tt.wantDetail != "" && (len(c.inputBroken) == 0 || !strings.Contains(c.inputBroken[0].Detail, tt.wantDetail)) {
				t.Errorf("input broke %v, want a detail containing %q", c.inputBroken, tt.wantDetail)
			}
		})
	}
}
