package suite

import (
	"testing"

	"github.com/deploysync/deploysync/internal/scenarios"
)

// TestScenarios runs every named scenario of the library (the reference
// traces, the subtle cases, everyday rollouts) on both sides.
func TestScenarios(t *testing.T) {
	for _, sc := range scenarios.All() {
		t.Run(sc.Name, func(t *testing.T) {
			if _, err := Compare(sc.Name, sc.State, !sc.NoTerminatingReplicas); err != nil {
				t.Fatal(err)
			}
		})
	}
}
