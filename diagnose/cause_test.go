package diagnose_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/diagnose"
)

// TestKinds checks the table: every kind in the order of the constants,
// each with a sentence.
func TestKinds(t *testing.T) {
	want := []diagnose.Kind{diagnose.DeadlineExceeded, diagnose.ReplicaFailure, diagnose.ReplicaSetCreateFailed, diagnose.HashCollision, diagnose.StaleDesiredReplicas,
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

// TestCreateFailedSchedule holds the retry times ReplicaSetCreateFailed
// names to the schedule measured on kube-controller-manager (e2e's
// refused-ReplicaSets scenarios: refusals 0, 4, 9, 33, … 5151 ms after the
// first; the 16th 163.96 s after it, then none).
func TestCreateFailedSchedule(t *testing.T) {
	since := time.Date(2026, 12, 7, 7, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		ago    time.Duration
		want   string
		reason string
	}{
		{0, "next at about 2026-12-07T07:00:00Z (5ms after the first failure)", "the first retry, 5 ms after the first failure (the second sync was its status write's event)"},
		{3 * time.Second, "next at about 2026-12-07T07:00:05Z (5.11s after the first failure)", "the 11th failure, measured at 5.151 s"},
		{7 * time.Second, "next at about 2026-12-07T07:00:10Z (10.23s after the first failure)", "a quota raised at 7 s: the 12th sync, measured at 10.27 s, creates it"},
		{163 * time.Second, "next at about 2026-12-07T07:02:43Z (2m43.83s after the first failure)", "the 16th and last, measured at 2m43.96s"},
		{164 * time.Second, "then change the Deployment", "after the 16th failure the key is dropped"},
	} {
		got := diagnose.CreateFailedUnblock(since, tt.ago)
		if !strings.Contains(got, tt.want) {
			t.Errorf("%v after the first failure: %q, want it to say %q (%s)", tt.ago, got, tt.want, tt.reason)
		}
	}
}
