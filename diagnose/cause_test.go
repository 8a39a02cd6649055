package diagnose_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/diagnose"
)

// TestKinds checks the table: every kind in the order of the constants,
// each with a sentence.
func TestKinds(t *testing.T) {
	want := []diagnose.Kind{diagnose.DeadlineExceeded, diagnose.ReplicaFailure, diagnose.HashCollision, diagnose.StaleDesiredReplicas,
		diagnose.Paused, diagnose.RecreateWaiting, diagnose.NewPodsUnavailable, diagnose.ScaleDownBlocked, diagnose.SurgeExhausted,
		diagnose.SelectorOverlap, diagnose.OrphanAdoption, diagnose.NextSync}
	kinds, n := diagnose.Forms()
	if !slices.Equal(kinds, want) {
		t.Errorf("the table's kinds are %v, want the constants in order %v", kinds, want)
	}
	for i, k := range kinds {
		if n[i] == 0 {
			t.Errorf("%s has no sentence", k)
		}
	}
}

// TestValueNamesChecked builds causes whose values do not fit their
// kind's sentence: each must fail the check and render as a "%!" marker,
// never as a sentence with a value missing or a generic fallback.
func TestValueNamesChecked(t *testing.T) {
	tests := []struct {
		name   string
		cause  diagnose.Cause
		reason string
	}{
		{name: "renamed", cause: diagnose.Cause{Kind: diagnose.HashCollision, Values: []action.Value{action.Str("name", "web-1"), action.Num("collisionCount", 1)}},
			reason: "the sentence says replicaSet, not name"},
		{name: "missing", cause: diagnose.Cause{Kind: diagnose.HashCollision, Values: []action.Value{action.Str("replicaSet", "web-1")}},
			reason: "collisionCount is missing"},
		{name: "extra", cause: diagnose.Cause{Kind: diagnose.OrphanAdoption, Values: []action.Value{action.Str("replicaSet", "web-1"), action.Num("size", 1), action.Num("age", 3)}},
			reason: "no sentence uses age"},
		{name: "out of order", cause: diagnose.Cause{Kind: diagnose.OrphanAdoption, Values: []action.Value{action.Num("size", 1), action.Str("replicaSet", "web-1")}},
			reason: "values come in the order the sentence uses them, as in action.Reason"},
		{name: "between two sentences", cause: diagnose.Cause{Kind: diagnose.NextSync, Values: []action.Value{action.Num("writes", 2)}},
			reason: "a value of the third sentence without the other fits none"},
		{name: "unknown kind", cause: diagnose.Cause{Kind: "Bored"}, reason: "a kind without a sentence"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := diagnose.Form(tt.cause); err == nil {
				t.Errorf("%s: the check accepts %v", tt.reason, tt.cause.Values)
			}
			if m := tt.cause.Message(); !strings.HasPrefix(m, "%!"+string(tt.cause.Kind)+"(") {
				t.Errorf("%s: Message = %q, want the %%! marker", tt.reason, m)
			}
		})
	}
}

// TestCauseJSON checks the JSON form: action.Reason's vocabulary (values
// as an object in order, numbers as numbers, the rendered text) with the
// kind and the advice.
func TestCauseJSON(t *testing.T) {
	c := diagnose.Cause{Kind: diagnose.OrphanAdoption, Values: []action.Value{action.Str("replicaSet", "web-orphan"), action.Num("size", 2)},
		Unblock: "none: the next sync adopts it"}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"OrphanAdoption","values":{"replicaSet":"web-orphan","size":2},` +
		`"text":"ReplicaSet web-orphan has no controller and matches the selector: the next sync adopts it with its 2 replicas",` +
		`"unblock":"none: the next sync adopts it"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	if got, want := c.String(), "OrphanAdoption: ReplicaSet web-orphan has no controller and matches the selector: the next sync adopts it with its 2 replicas (none: the next sync adopts it)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if v, ok := c.Value("size"); !ok || v.Int != 2 {
		t.Errorf("Value(size) = %v, %v", v, ok)
	}
}
