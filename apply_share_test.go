package deploysync_test

import (
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/internal/testing/scenarios"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// TestApplyResultIndependentOfPlan applies the plan of every scenario: the
// result's objects share nothing with the objects the plan's actions carry
// (Apply copies what it takes from a plan), and the state is not modified.
// What the result shares with the state is what no action changed.
func TestApplyResultIndependentOfPlan(t *testing.T) {
	checked := 0
	for _, sc := range scenarios.All() {
		t.Run(sc.Name, func(t *testing.T) {
			p, err := deploysync.Sync(sc.State, sc.Options()...)
			if err != nil {
				t.Fatal(err)
			}
			frozen := testutil.Freeze(t, sc.State.Deployment, sc.State.ReplicaSets)
			after, err := deploysync.Apply(sc.State, p)
			if err != nil {
				t.Fatal(err)
			}
			frozen.Check(t)
			byName := map[string]*appsv1.ReplicaSet{}
			for _, rs := range after.ReplicaSets {
				byName[rs.Name] = rs
			}
			for _, a := range p.Actions {
				var sent, got any
				switch a := a.(type) {
				case *action.CreateReplicaSet:
					sent, got = a.ReplicaSet, byName[a.ReplicaSet.Name]
				case *action.UpdateReplicaSet:
					sent, got = a.ReplicaSet, byName[a.ReplicaSet.Name]
				case *action.UpdateDeployment:
					sent, got = a.Deployment, after.Deployment
				case *action.UpdateDeploymentStatus:
					sent, got = a.Deployment, after.Deployment
				default:
					continue
				}
				if reflect.ValueOf(got).IsNil() {
					continue // deleted by a later action
				}
				if paths := testutil.Shared(sent, got); len(paths) > 0 {
					t.Errorf("%s: the result shares %v with the plan's object", a, paths)
				}
				checked++
			}
		})
	}
	if checked == 0 {
		t.Fatal("no scenario's plan wrote an object")
	}
}

// TestSharedFindsSharing: the check above can fail.
func TestSharedFindsSharing(t *testing.T) {
	s := scenarios.BenchMidRollout(2)
	d := s.Deployment
	c := *d // shallow: the maps, slices and pointers are the same
	if len(testutil.Shared(d, &c)) == 0 {
		t.Fatal("a shallow copy shares its maps and pointers, Shared found none")
	}
	if paths := testutil.Shared(d, d.DeepCopy()); len(paths) != 0 {
		t.Fatalf("a deep copy shares nothing, Shared found %v", paths)
	}
}
