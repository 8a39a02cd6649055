package deploysync_test

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/randstate"
	"github.com/deploysync/deploysync/internal/testing/testutil"
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
		c := randstate.Any(randstate.NewBytes(data))
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
		checkApplied(t, s, after)
	})
}

// checkApplied checks the properties every applied plan keeps: no negative
// sizes (unless upstream's int32 arithmetic wraps around on the state, when
// upstream writes negative sizes and so does Sync), names within the limit,
// and the Deployment's template labels still matching its selector (created
// ReplicaSets too). before is the state the plan was made for.
func checkApplied(t *testing.T, before, s deploysync.State) {
	t.Helper()
	d := s.Deployment
	nonNegative := !wraps(before)
	if nonNegative && d.Spec.Replicas != nil && *d.Spec.Replicas < 0 {
		t.Errorf("deployment replicas %d", *d.Spec.Replicas)
	}
	if sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector); err == nil && !facts.IsSelectingAll(d) && !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("deployment selector %v does not match its template labels %v", sel, d.Spec.Template.Labels)
	}
	for _, rs := range s.ReplicaSets {
		if nonNegative && rs.Spec.Replicas != nil && *rs.Spec.Replicas < 0 {
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
		ca, cb := randstate.Valid(randstate.NewBytes(a)), randstate.Any(randstate.NewBytes(b))
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

// wraps reports whether one of upstream's int32 computations can leave
// int32 on a state: maxSurge itself, replicas + maxSurge, a sum of the
// ReplicaSets' spec, status, ready or available replicas, or a proportional
// product size × (replicas + maxSurge).
func wraps(s deploysync.State) bool {
	d := s.Deployment
	if d == nil || d.Spec.Replicas == nil {
		return false
	}
	r := int64(*d.Spec.Replicas)
	var surge int64
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil && ru.MaxSurge != nil {
		v, err := intstr.GetScaledValueFromIntOrPercent(ru.MaxSurge, int(r), true)
		if err == nil {
			surge = int64(v)
		}
	}
	maxReplicas := r + surge
	if surge > math.MaxInt32 || surge < 0 || maxReplicas > math.MaxInt32 {
		return true
	}
	var sums [4]int64
	for _, rs := range s.ReplicaSets {
		if rs == nil || rs.Spec.Replicas == nil {
			continue
		}
		for i, v := range [4]int32{*rs.Spec.Replicas, rs.Status.Replicas, rs.Status.ReadyReplicas, rs.Status.AvailableReplicas} {
			sums[i] += int64(v)
		}
		if int64(*rs.Spec.Replicas)*maxReplicas > math.MaxInt32 {
			return true
		}
	}
	for _, v := range sums {
		if v > math.MaxInt32 {
			return true
		}
	}
	return false
}
