package deploysync_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/internal/testing/scenarios"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// TestPlanJSON pins the JSON form of plans (testdata/plan-json/<name>.json,
// rewritten by -update): one scenario per part of the form — a create with
// its event and status write, a Recreate that waits (the plan's why), a
// hash collision (the error), an adoption and release (the patches).
func TestPlanJSON(t *testing.T) {
	tests := []struct {
		scenario string
		reason   string
	}{
		{scenario: "new deployment", reason: "a create, its ScalingReplicaSet event and the status write, each with its kind and reasons"},
		{scenario: "recreate waits for terminating pod", reason: "a plan that does not move on says why in its why"},
		{scenario: "hash collision", reason: "the error of a collision travels as text"},
		{scenario: "adopt and release", reason: "patches are embedded as the JSON they are"},
		{scenario: "deadline after", reason: "a timed requeue is a Go duration"},
	}
	byName := map[string]scenarios.Scenario{}
	for _, sc := range scenarios.All() {
		byName[sc.Name] = sc
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			require.NotEmpty(t, tt.reason, "reason must be provided")
			sc, ok := byName[tt.scenario]
			require.True(t, ok, "no scenario %q", tt.scenario)
			p, err := deploysync.Sync(sc.State)
			require.NoError(t, err)
			b, err := json.MarshalIndent(p, "", "  ")
			require.NoError(t, err)
			b = append(b, '\n')
			path := filepath.Join("testdata", "plan-json", fileName(tt.scenario)+".json")
			testutil.Golden(t, path, string(b))

			// The form is what tools read: a kind per action, and the
			// reasons' text is the action's explanation.
			var got struct {
				Actions []struct {
					Kind string `json:"kind"`
					Text string `json:"text"`
				} `json:"actions"`
			}
			require.NoError(t, json.NewDecoder(bytes.NewReader(b)).Decode(&got))
			require.Len(t, got.Actions, len(p.Actions))
			for i, a := range got.Actions {
				assert.NotEmpty(t, a.Kind)
				assert.Equal(t, p.Actions[i].String(), a.Text)
			}
		})
	}
}
