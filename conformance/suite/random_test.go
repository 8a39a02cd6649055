package suite

import (
	"flag"
	"os"
	"strconv"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/deploysync/deploysync/internal/gen"
)

// The number of random states: 20,000 by default (CI), 1,000,000 with
// DEPLOYSYNC_LONG=1, or DEPLOYSYNC_STATES=n.
func randomStates() int {
	if v, err := strconv.Atoi(os.Getenv("DEPLOYSYNC_STATES")); err == nil && v > 0 {
		return v
	}
	if os.Getenv("DEPLOYSYNC_LONG") != "" {
		return 1_000_000
	}
	return 20_000
}

// rapidSource lets rapid make the generator's choices, so a failing state
// shrinks to a small one.
type rapidSource struct {
	t *rapid.T
	i int
}

func (s *rapidSource) Intn(n int) int {
	if n <= 1 {
		return 0
	}
	s.i++
	return rapid.IntRange(0, n-1).Draw(s.t, "c"+strconv.Itoa(s.i))
}

// TestRandomStates compares the two sides on generated valid states, one
// sync each. By default Sync decides as upstream on every state, its int32
// wrap-arounds included, so no state is excluded.
func TestRandomStates(t *testing.T) {
	n := randomStates()
	if err := flag.Set("rapid.checks", strconv.Itoa(n)); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	compared := 0
	rapid.Check(t, func(rt *rapid.T) {
		c := gen.Valid(&rapidSource{t: rt})
		if _, err := Compare("random state", c.State, c.TerminatingReplicas); err != nil {
			rt.Fatal(err)
		}
		mu.Lock()
		compared++
		mu.Unlock()
	})
	t.Logf("random states: %d compared", compared)
}
