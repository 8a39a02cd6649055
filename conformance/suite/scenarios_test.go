package suite

import (
	"testing"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/conformance/upstream"
	"github.com/deploysync/deploysync/internal/testing/scenarios"
)

// TestScenarios runs every named scenario of the library (the reference
// traces, the subtle cases, everyday rollouts) on both sides.
func TestScenarios(t *testing.T) {
	cov := Coverage{}
	for _, sc := range scenarios.All() {
		t.Run(sc.Name, func(t *testing.T) {
			_, plan, out, err := compareScenario(sc)
			if err != nil {
				t.Fatal(err)
			}
			cov.Add(Cells(plan, out))
		})
	}
	t.Logf("scenario coverage:\n%s", cov.Table(nil))
}

// scenarioCoverage returns the cells the scenarios reach, for the random
// suite to reach too. A scenario that differs is TestScenarios' failure; its
// cells are still counted from our plan.
func scenarioCoverage() Coverage {
	cov := Coverage{}
	for _, sc := range scenarios.All() {
		_, plan, out, err := compareScenario(sc)
		if err != nil && !IsMismatch(err) {
			continue
		}
		cov.Add(Cells(plan, out))
	}
	return cov
}

func compareScenario(sc scenarios.Scenario) (Result, deploysync.Plan, upstream.Outcome, error) {
	if sc.LaggingCache {
		return CompareLagging(sc.Name, sc.State, !sc.NoTerminatingReplicas)
	}
	return CompareOutcomes(sc.Name, sc.State, !sc.NoTerminatingReplicas)
}
