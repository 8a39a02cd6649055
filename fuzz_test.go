package deploysync_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/gen"
	"github.com/deploysync/deploysync/internal/testutil"
)

func addSeeds(f *testing.F) {
	for _, s := range [][]byte{nil, {0}, {1, 2, 3, 4, 5, 6, 7, 8}, []byte("deploysync"), {255, 255, 255, 255, 0, 0, 0, 0, 9, 9, 9}} {
		f.Add(s)
	}
}

// FuzzSync checks, for states built from arbitrary bytes (valid about half
// of the time), that Sync never panics, never modifies its input, returns
// either a typed input error or a plan, and returns the same plan for the
// same input; and that applying the plan gives valid objects.
func FuzzSync(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		c := gen.Any(gen.NewBytes(data))
		s := c.State
		frozen := testutil.Freeze(t, s.Deployment, s.ReplicaSets, s.Pods)
		plan, err := deploysync.Sync(s, c.Options()...)
		frozen.Check(t)
		if err != nil {
			var ie *deployutil.InputError
			if !errors.As(err, &ie) || !errors.Is(err, deployutil.ErrInvalidInput) {
				t.Fatalf("Sync error is not an *InputError: %T %v", err, err)
			}
			if ie.Field == "" || ie.Object == "" {
				t.Fatalf("InputError without object or field: %#v", ie)
			}
			return
		}
		again, err := deploysync.Sync(s, c.Options()...)
		if err != nil {
			t.Fatalf("second Sync failed: %v", err)
		}
		if diff := cmp.Diff(plan.String(), again.String()); diff != "" {
			t.Fatalf("same input, different plans:\n%s", diff)
		}
		after, err := deploysync.Apply(s, plan)
		frozen.Check(t)
		if err != nil {
			t.Fatalf("Apply of Sync's own plan failed: %v", err)
		}
		checkApplied(t, after)
	})
}

// checkApplied checks the properties every applied plan keeps: no negative
// sizes, names within the limit, and the Deployment's template labels still
// matching its selector (created ReplicaSets too).
func checkApplied(t *testing.T, s deploysync.State) {
	t.Helper()
	d := s.Deployment
	if d.Spec.Replicas != nil && *d.Spec.Replicas < 0 {
		t.Errorf("deployment replicas %d", *d.Spec.Replicas)
	}
	if sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector); err == nil && !deployutil.IsSelectingAll(d) && !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("deployment selector %v does not match its template labels %v", sel, d.Spec.Template.Labels)
	}
	for _, rs := range s.ReplicaSets {
		if rs.Spec.Replicas != nil && *rs.Spec.Replicas < 0 {
			t.Errorf("replicaset %s replicas %d", rs.Name, *rs.Spec.Replicas)
		}
		if len(rs.Name) > 253 {
			t.Errorf("replicaset name of %d characters", len(rs.Name))
		}
		if sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector); err == nil && len(rs.OwnerReferences) > 0 && rs.UID == "" &&
			!sel.Matches(labels.Set(rs.Spec.Template.Labels)) {
			t.Errorf("created replicaset %s: selector %v does not match template labels %v", rs.Name, sel, rs.Spec.Template.Labels)
		}
	}
}

// FuzzApply checks that Apply never panics and never modifies its inputs,
// even with a plan made for another state.
func FuzzApply(f *testing.F) {
	f.Add([]byte{1, 2, 3}, []byte{4, 5, 6})
	f.Add([]byte("a"), []byte("a"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ca, cb := gen.Valid(gen.NewBytes(a)), gen.Any(gen.NewBytes(b))
		plan, err := deploysync.Sync(ca.State, ca.Options()...)
		if err != nil {
			t.Fatalf("Sync refused a valid state: %v", err)
		}
		s := cb.State
		frozen := testutil.Freeze(t, s.Deployment, s.ReplicaSets, s.Pods)
		if s.Deployment == nil {
			return
		}
		_, err = deploysync.Apply(s, plan)
		frozen.Check(t)
		var ae *deploysync.ApplyError
		if err != nil && !errors.As(err, &ae) {
			t.Fatalf("Apply error is not an *ApplyError: %T %v", err, err)
		}
	})
}
