package simulate_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/simulate"
)

// TestGoldenTimelines runs every scenario, the limited ones of
// limits_test.go too, and compares its transcript with
// testdata/<name>.golden. Every scenario must keep every invariant, end with
// the expected outcome and leave its input unmodified.
func TestGoldenTimelines(t *testing.T) {
	seen := map[string]bool{}
	for _, sc := range append(scenarios(), limitScenarios()...) {
		t.Run(sc.name, func(t *testing.T) {
			if sc.reason == "" {
				t.Fatal("reason must be provided")
			}
			if seen[sc.name] {
				t.Fatalf("duplicate scenario %q", sc.name)
			}
			seen[sc.name] = true
			s := sc.state(t)
			frozen := testutil.Freeze(t, s.Deployment, s.ReplicaSets)
			tl, err := simulate.Run(s, sc.opts...)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			frozen.Check(t)
			if err := tl.Err(); err != nil {
				t.Errorf("invariants broken:\n%v", err)
			}
			if tl.Outcome != sc.want {
				t.Errorf("outcome %s, want %s", tl.Outcome, sc.want)
			}
			got := "# " + sc.name + "\n# " + sc.reason + "\n\n" + tl.Transcript()
			testutil.Golden(t, filepath.Join("testdata", strings.ReplaceAll(sc.name, " ", "-")+".golden"), got)
		})
	}
}
