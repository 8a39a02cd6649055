package deploysync_test

import (
	"fmt"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/internal/scenarios"
	"github.com/deploysync/deploysync/internal/testutil"
)

// shared lists the paths at which a and b (values of one type) hold the same
// map, the same slice array or the same pointer: what a change through one
// would change in the other.
func shared(a, b reflect.Value, path string, out *[]string) {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return
		}
		if a.Pointer() == b.Pointer() {
			*out = append(*out, path)
			return
		}
		shared(a.Elem(), b.Elem(), path, out)
	case reflect.Map:
		if a.Len() > 0 && b.Len() > 0 && a.Pointer() == b.Pointer() {
			*out = append(*out, path)
		}
	case reflect.Slice:
		if a.Cap() > 0 && b.Cap() > 0 && a.Pointer() == b.Pointer() {
			*out = append(*out, path)
			return
		}
		for i := range min(a.Len(), b.Len()) {
			shared(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i), out)
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if a.Type().Field(i).IsExported() {
				shared(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name, out)
			}
		}
	}
}

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
				var paths []string
				shared(reflect.ValueOf(sent), reflect.ValueOf(got), "", &paths)
				if len(paths) > 0 {
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
	var paths []string
	shared(reflect.ValueOf(d), reflect.ValueOf(&c), "", &paths)
	if len(paths) == 0 {
		t.Fatal("a shallow copy shares its maps and pointers, shared found none")
	}
	paths = nil
	shared(reflect.ValueOf(d), reflect.ValueOf(d.DeepCopy()), "", &paths)
	if len(paths) != 0 {
		t.Fatalf("a deep copy shares nothing, shared found %v", paths)
	}
}
