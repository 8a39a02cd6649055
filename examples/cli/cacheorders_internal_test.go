package cli

import (
	"bytes"
	"testing"
	"time"
)

func TestProgress(t *testing.T) {
	for _, tc := range []struct {
		name string
		step time.Duration // the clock's advance per run
		n    int
		want string
	}{
		{"quick runs say nothing", 10 * time.Millisecond, 64, ""},
		{"after 2 s, at most once a second, never after the last run", 700 * time.Millisecond, 8,
			"cache orders: 3 of 8 run\ncache orders: 5 of 8 run\ncache orders: 7 of 8 run\n"},
		{"one slow run has nothing to report", time.Minute, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			clock := time.Date(2026, 12, 8, 0, 0, 0, 0, time.UTC)
			done := progress(&b, tc.n, func() time.Time { return clock })
			for i := 1; i <= tc.n; i++ {
				clock = clock.Add(tc.step)
				done(i)
			}
			if got := b.String(); got != tc.want {
				t.Errorf("progress wrote %q, want %q", got, tc.want)
			}
		})
	}
}
