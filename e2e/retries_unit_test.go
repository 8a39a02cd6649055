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
		bad    int
		reason string
	}{
		{"measured", []time.Duration{13 * ms, 4 * ms, 7 * ms, 46 * ms, 86 * ms, 170 * ms, 326 * ms, 649 * ms, 1288 * ms, 2570 * ms}, 7, 0,
			"the first run of 2026-12-07: syncs brought by events, then from 40 ms doubling, each a few ms late"},
		{"no doubling", []time.Duration{5 * ms, 10 * ms, 20 * ms, 20 * ms, 20 * ms}, 0, 0,
			"retries that come before their doubled waits leave nothing held (the caller wants at least 5)"},
		{"too late", []time.Duration{5 * ms, 10 * ms, 20 * ms, 200 * ms}, 3, 1,
			"a retry far past its wait is not the limiter's either"},
		{"events only", []time.Duration{1 * ms, 1 * ms}, 0, 0,
			"gaps all shorter than the waits hold nothing (the caller wants at least 5)"},
	}
	for _, tt := range tests {
		held, bad := judgeRetries(retryGaps(at(tt.gaps...)))
		if held != tt.held || len(bad) != tt.bad {
			t.Errorf("%s: held %d, bad %v; want %d held, %d bad (%s)", tt.name, held, bad, tt.held, tt.bad, tt.reason)
		}
	}
}
