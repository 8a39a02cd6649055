package suite

import (
	"testing"

	"github.com/deploysync/deploysync/internal/testing/accepted"
)

// TestContract runs upstream's syncDeployment beside Sync on every state of
// internal/testing/accepted: the classes of input Sync used to refuse although an
// apiserver accepts them (annotations outside int32, revision 2⁶³−1,
// collisionCount 2³¹−1 with a collision, replicas + maxSurge, sums and
// proportional products beyond int32, pods that are not their listed
// ReplicaSet's). Sync must accept each one and decide exactly as upstream,
// wrap-arounds included.
func TestContract(t *testing.T) {
	cases := accepted.States()
	if len(cases) < 20 {
		t.Fatalf("the contract has %d states; it should cover every formerly refused class", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			for _, gate := range []bool{true, false} {
				if _, err := Compare(c.Name, c.State, gate); err != nil {
					t.Fatalf("%s (gate %v): %v", c.Reason, gate, err)
				}
			}
		})
	}
}
