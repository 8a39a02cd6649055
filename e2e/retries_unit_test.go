package e2e

import (
	"testing"
	"time"
)

// TestJudgeRetries: the gaps after the last one shorter than the
// limiter's wait (a sync an event brought) are held to the waits.
func TestJudgeRetries(t *testing.T) {
	ms := time.Millisecond
	at := func(gaps ...time.Duration) []time.Time {
		t0 := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
		out := []time.Time{t0}
		for _, g := range gaps {
			t0 = t0.Add(g)
			out = append(out, t0)
		}
		return out
	}
	tests := []struct {
		name   string
		gaps   []time.Duration
		held   int
		unseen int
		slow   int
		bad    int
		reason string
	}{
		{"measured", []time.Duration{13 * ms, 4 * ms, 7 * ms, 46 * ms, 86 * ms, 170 * ms, 326 * ms, 649 * ms, 1288 * ms, 2570 * ms}, 7, 0, 0, 0,
			"the first run of 2026-12-07: syncs brought by events, then from 40 ms doubling, each a few ms late"},
		{"no doubling", []time.Duration{5 * ms, 10 * ms, 20 * ms, 20 * ms, 20 * ms}, 0, 0, 0, 0,
			"retries that come before their doubled waits leave nothing held (the caller wants at least 5)"},
		{"too late", []time.Duration{5 * ms, 10 * ms, 20 * ms, 200 * ms}, 3, 0, 0, 1,
			"a retry far past its wait is not the limiter's either"},
		{"events only", []time.Duration{1 * ms, 1 * ms}, 0, 0, 0, 0,
			"gaps all shorter than the waits hold nothing (the caller wants at least 5)"},
		{"a failed sync without a create", []time.Duration{17 * ms, 45 * ms, 24 * ms, 33 * ms, 32 * ms, 323 * ms, 643 * ms, 1283 * ms, 2563 * ms}, 4, 1, 0, 0,
			"the long run of 2026-12-07 13:42: from refusal 6 every gap is twice the limiter's wait by the count of refusals: one failed sync made no create (the stale-cache check) and the waits are one doubling on"},
		{"a slow sync, then the waits on time", []time.Duration{29 * ms, 13 * ms, 21 * ms, 42 * ms, 83 * ms, 163 * ms, 323 * ms, 643 * ms, 1282 * ms, 2566 * ms}, 9, 0, 1, 0,
			"CI's run of 2026-12-07 18:37: 29 ms after the first 5 ms wait would be an unseen failure, but every later gap is its own wait, not twice it: the first sync was slow"},
		{"a slow sync between once and twice its wait", []time.Duration{6 * ms, 9 * ms, 16 * ms, 32 * ms, 135 * ms, 195 * ms, 327 * ms, 645 * ms, 1284 * ms, 2570 * ms,
			5145 * ms, 10248 * ms, 20483 * ms, 40964 * ms, 81927 * ms}, 10, 0, 1, 0,
			"the long run of 2026-12-08 00:20 (replica sets refused past the retries, beside rolling 1000's steady pods): 135 ms after an 80 ms wait is neither the wait nor twice it, and the next gap is its own wait: one slow sync"},
		{"past its wait, and the next late too", []time.Duration{5 * ms, 10 * ms, 20 * ms, 72 * ms, 240 * ms}, 3, 0, 0, 2,
			"after a gap between once and twice its wait, a next gap that is not its own wait leaves both unexplained: not the limiter's"},
		{"twice, then again", []time.Duration{5 * ms, 10 * ms, 40 * ms, 80 * ms, 320 * ms}, 5, 2, 0, 0,
			"each unseen failure doubles every later wait once more"},
	}
	for _, tt := range tests {
		held, unseen, slow, bad := judgeRetries(retryGaps(at(tt.gaps...)))
		if held != tt.held || unseen != tt.unseen || slow != tt.slow || len(bad) != tt.bad {
			t.Errorf("%s: held %d, unseen %d, slow %d, bad %v; want %d held, %d unseen, %d slow, %d bad (%s)", tt.name, held, unseen, slow, bad, tt.held, tt.unseen, tt.slow, tt.bad, tt.reason)
		}
	}
}
