package facts_test

import (
	"errors"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/badinput"
	"github.com/deploysync/deploysync/internal/testing/scenarios"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// TestValidate runs Validate on every row of the bad-input catalogue
// (internal/testing/badinput.All): the states an apiserver refuses get an
// *InputError naming the object, the field, the kind, the value and the
// rule, and the states an apiserver accepts pass. The root package's
// TestBadInputCatalogue runs Sync on the same rows.
func TestValidate(t *testing.T) {
	for _, in := range badinput.All() {
		t.Run(in.Name, func(t *testing.T) {
			if in.Reason == "" {
				t.Errorf("reason must be provided")
			}
			s := badinput.ValidState()
			in.Mutate(&s)
			frozen := testutil.Freeze(t, s.Deployment, s.ReplicaSets, s.Pods)
			err := facts.Validate(s.Deployment, s.ReplicaSets, s.Pods)
			frozen.Check(t)
			if !in.Refused() {
				if err != nil {
					t.Fatalf("Validate = %v, want nil (%s)", err, in.Reason)
				}
				return
			}
			var ie *deployutil.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("Validate = %v, want an *InputError (%s)", err, in.Reason)
			}
			if !errors.Is(err, deployutil.ErrInvalidInput) {
				t.Errorf("errors.Is(err, ErrInvalidInput) = false")
			}
			if ie.Rule == "" || !strings.Contains(err.Error(), ie.Rule) || !strings.Contains(ie.Rule, in.Rule) {
				t.Errorf("rule %q, want one naming %q, shown in the message (%v)", ie.Rule, in.Rule, err)
			}
			if ie.Object != in.Object || ie.Field != in.Field || ie.Kind != in.Kind {
				t.Errorf("got %q %q %q, want %q %q %q (%s)\nerror: %v", ie.Object, ie.Field, ie.Kind, in.Object, in.Field, in.Kind, in.Reason, err)
			}
			if msg := err.Error(); !strings.Contains(msg, ie.Field) || !strings.Contains(msg, string(ie.Kind)) || ie.Detail == "" {
				t.Errorf("the message %q does not name the field and the kind", msg)
			}
			if in.Value != "" && !strings.Contains(err.Error(), in.Value) {
				t.Errorf("the message %q does not show the value %q", err.Error(), in.Value)
			}
		})
	}
}

func TestIsSelectingAll(t *testing.T) {
	tests := []struct {
		name   string
		sel    *metav1.LabelSelector
		want   bool
		reason string
	}{
		{name: "empty", sel: &metav1.LabelSelector{}, want: true, reason: "upstream TestDontSyncDeploymentsWithEmptyPodSelector: the empty selector"},
		{name: "empty non-nil map", sel: &metav1.LabelSelector{MatchLabels: map[string]string{}}, want: false,
			reason: "upstream compares with reflect.DeepEqual, so an empty non-nil map is not caught"},
		{name: "nil", sel: nil, want: false, reason: "a nil selector is not the empty selector"},
		{name: "app=web", sel: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, want: false, reason: "an ordinary selector"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Selector: tt.sel}}
			frozen := testutil.Freeze(t, d)
			defer frozen.Check(t)
			if got := facts.IsSelectingAll(d); got != tt.want {
				t.Errorf("IsSelectingAll = %v, want %v (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

func TestInputErrorMessage(t *testing.T) {
	tests := []struct {
		name   string
		err    *deployutil.InputError
		want   string
		reason string
	}{
		{name: "required", err: &deployutil.InputError{Object: "Deployment default/web", Field: "spec.replicas", Kind: deployutil.Required, Detail: "set it"},
			want: "Deployment default/web: spec.replicas: required: set it", reason: "a missing field has no value to print"},
		{name: "string value", err: &deployutil.InputError{Object: "Deployment default/web", Field: "spec.strategy.type", Kind: deployutil.NotSupported, Value: "Canary", Detail: "no"},
			want: `Deployment default/web: spec.strategy.type: not supported "Canary": no`, reason: "strings are quoted"},
		{name: "int32 pointer", err: &deployutil.InputError{Object: "x", Field: "f", Kind: deployutil.Invalid, Value: ptr.To[int32](-1), Detail: "d"},
			want: "x: f: invalid -1: d", reason: "a pointer prints its value"},
		{name: "nil int32 pointer", err: &deployutil.InputError{Object: "x", Field: "f", Kind: deployutil.Invalid, Value: (*int32)(nil), Detail: "d"},
			want: "x: f: invalid <nil>: d", reason: "a nil pointer prints as <nil>"},
		{name: "rule", err: &deployutil.InputError{Object: "x", Field: "f", Kind: deployutil.Invalid, Value: int32(-1), Detail: "d", Rule: "apps/v1 ValidateDeploymentSpec"},
			want: "x: f: invalid -1: d [apps/v1 ValidateDeploymentSpec]", reason: "the rule follows in brackets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

// TestValidateAllocs checks that validating a valid state allocates
// nothing (issue 13: the fixed cost of a sync): the state of the
// mid-rollout benchmark, a Deployment with a selector and eleven
// ReplicaSets.
func TestValidateAllocs(t *testing.T) {
	s := scenarios.BenchMidRollout(10)
	if err := facts.Validate(s.Deployment, s.ReplicaSets, s.Pods); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { _ = facts.Validate(s.Deployment, s.ReplicaSets, s.Pods) }); n != 0 {
		t.Errorf("%v allocations per validation, want 0", n)
	}
}
