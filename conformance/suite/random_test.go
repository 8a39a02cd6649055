package suite

import (
	"flag"
	"fmt"
	"os"
	"sort"
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
// sync each. States that fall under a deliberate deviation (see
// gen.Deviation and the README's Fidelity section) are counted by rule and
// not compared.
func TestRandomStates(t *testing.T) {
	n := randomStates()
	if err := flag.Set("rapid.checks", strconv.Itoa(n)); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	excluded := map[string]int{}
	compared := 0
	rapid.Check(t, func(rt *rapid.T) {
		c := gen.Valid(&rapidSource{t: rt})
		if rule := gen.Deviation(c); rule != "" {
			mu.Lock()
			excluded[rule]++
			mu.Unlock()
			return
		}
		if _, err := Compare("random state", c.State, c.TerminatingReplicas); err != nil {
			rt.Fatal(err)
		}
		mu.Lock()
		compared++
		mu.Unlock()
	})
	rules := make([]string, 0, len(excluded))
	for r, k := range excluded {
		rules = append(rules, fmt.Sprintf("%s: %d", r, k))
	}
	sort.Strings(rules)
	t.Logf("random states: %d compared, excluded by rule: %v", compared, rules)
}
