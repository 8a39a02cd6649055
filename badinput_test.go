package deploysync_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/badinput"
	"github.com/deploysync/deploysync/internal/testing/scenarios"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// TestBadInputCatalogue runs Sync on every refused row of the catalogue of
// bad input (internal/testing/badinput.All; docs/fidelity.md lists its
// classes): each one is refused by an apps/v1 apiserver (validation, or a
// nil that defaulting fills) or cannot be a snapshot of one, and gets an
// *InputError naming the object, the field, the value and that rule, never
// a panic and never a plan. What an apiserver accepts, Sync accepts: see
// TestFormerlyRefused (internal/facts' TestValidate runs the accepted rows).
func TestBadInputCatalogue(t *testing.T) {
	refused := 0
	for _, in := range badinput.All() {
		if !in.Refused() {
			continue
		}
		refused++
		t.Run(in.Name, func(t *testing.T) {
			if in.Reason == "" {
				t.Fatal("reason must be provided")
			}
			s := badinput.ValidState()
			in.Mutate(&s)
			frozen := testutil.Freeze(t, s.ReplicaSets, s.Pods)
			if s.Deployment != nil {
				frozen = testutil.Freeze(t, s.Deployment, s.ReplicaSets, s.Pods)
			}
			plan, err := deploysync.Sync(s)
			frozen.Check(t)
			if err == nil {
				t.Fatalf("Sync accepted it and planned:\n%s", plan)
			}
			var ie *deploysync.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %T is not an *InputError: %v", err, err)
			}
			if !errors.Is(err, deploysync.ErrInvalidInput) {
				t.Errorf("errors.Is(err, ErrInvalidInput) is false: %v", err)
			}
			if !strings.Contains(ie.Rule, in.Rule) || !strings.Contains(ie.Error(), ie.Rule) {
				t.Errorf("rule %q, want one naming %q, shown in the message (%v)", ie.Rule, in.Rule, err)
			}
			if ie.Object != in.Object || ie.Field != in.Field || ie.Kind != in.Kind {
				t.Errorf("got %q %q %q, want %q %q %q (%v)", ie.Object, ie.Field, ie.Kind, in.Object, in.Field, in.Kind, err)
			}
			if in.Value != "" && !strings.Contains(ie.Error(), in.Value) {
				t.Errorf("error %q does not show the value %q", ie.Error(), in.Value)
			}
			if len(plan.Actions) != 0 {
				t.Errorf("a refused state still got actions")
			}
		})
	}
	if refused < 25 {
		t.Errorf("the catalogue has %d refused entries, want at least 25 (docs/fidelity.md lists 32 classes)", refused)
	}
}

// TestNameAtTheLimit checks the edge the catalogue's "name too long" entry
// stops at: a Deployment name of 253 characters is valid, and its new
// ReplicaSet's name is cut so that name, dash and hash fit in 253.
func TestNameAtTheLimit(t *testing.T) {
	d := scenarios.Deployment(2)
	d.Name = strings.Repeat("a", 253)
	plan, err := deploysync.Sync(deploysync.State{Deployment: d, Now: scenarios.Now})
	if err != nil {
		t.Fatal(err)
	}
	hash := deployutil.ComputeHash(&d.Spec.Template, nil)
	want := strings.Repeat("a", 253-1-len(hash)) + "-" + hash
	create, ok := plan.Actions[0].(*action.CreateReplicaSet)
	if !ok {
		t.Fatalf("first action %s, want a create", plan.Actions[0])
	}
	if create.ReplicaSet.Name != want || len(create.ReplicaSet.Name) != 253 {
		t.Errorf("ReplicaSet name %q (%d characters), want %q", create.ReplicaSet.Name, len(create.ReplicaSet.Name), want)
	}
	if got := create.ReplicaSet.Labels[deployutil.PodTemplateHashLabel]; got != hash {
		t.Errorf("hash label %q, want the whole hash %q", got, hash)
	}
}
