// Package workqueue checks the simulator's model of the Deployment
// controller's workqueue rate limiter (internal/ratelimit) against
// client-go's own pieces.
//
// kube-controller-manager's Deployment controller builds its queue with
// workqueue.DefaultTypedControllerRateLimiter: the larger of
// NewTypedItemExponentialFailureRateLimiter(5ms, 1000s) and a
// TypedBucketRateLimiter over rate.NewLimiter(10, 100), whose When is
// Reserve().Delay() on the wall clock. The test builds the same two pieces
// and drives the bucket through ReserveN at a chosen time, so both sides
// see the same clock.
package workqueue

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/client-go/util/workqueue"

	"github.com/deploysync/deploysync/internal/ratelimit"
)

// upstream is client-go's default controller limiter with the bucket's
// clock in the test's hands.
type upstream struct {
	items  workqueue.TypedRateLimiter[string]
	bucket *rate.Limiter
	origin time.Time
}

func newUpstream() *upstream {
	return &upstream{
		items:  workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 1000*time.Second),
		bucket: rate.NewLimiter(rate.Limit(10), 100),
		origin: time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC),
	}
}

func (u *upstream) when(now time.Duration) time.Duration {
	t := u.origin.Add(now)
	return max(u.items.When("d"), u.bucket.ReserveN(t, 1).DelayFrom(t))
}

// gaps are the times between two events: the simulator's ticks, the
// controller's hops, a bucket's refill of one token and of all of them.
var gaps = []time.Duration{0, time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond,
	100 * time.Millisecond, time.Second, 10 * time.Second}

func TestLimiterIsClientGos(t *testing.T) {
	const sequences, events = 2000, 300
	for seed := range uint64(sequences) {
		rng := rand.New(rand.NewPCG(seed, 27))
		u, m := newUpstream(), &ratelimit.Limiter{}
		var now time.Duration
		var log []string
		for i := range events {
			gap := gaps[rng.IntN(len(gaps))]
			if rng.IntN(4) == 0 {
				gap = time.Duration(rng.Int64N(int64(2 * time.Second)))
			}
			now += gap
			if rng.IntN(3) == 0 {
				u.items.Forget("d")
				m.Forget()
				log = append(log, fmt.Sprintf("+%v forget", now))
				continue
			}
			want, got := u.when(now), m.When(now)
			log = append(log, fmt.Sprintf("+%v when=%v", now, want))
			if got != want || m.NumRequeues() != u.items.NumRequeues("d") {
				t.Fatalf("seed %d, event %d: When = %v, NumRequeues = %d; client-go: %v, %d\nevents: %v",
					seed, i, got, m.NumRequeues(), want, u.items.NumRequeues("d"), log[max(0, len(log)-8):])
			}
		}
	}
}

// TestLimiterBurst runs the case the simulator meets: a successful sync
// that asks for a rate-limited requeue every few milliseconds (a stale
// Progressing condition), each followed by the controller's Forget.
func TestLimiterBurst(t *testing.T) {
	u, m := newUpstream(), &ratelimit.Limiter{}
	var now time.Duration
	waits := map[time.Duration]int{}
	for range 150 {
		want, got := u.when(now), m.When(now)
		if got != want {
			t.Fatalf("+%v: When = %v, client-go %v", now, got, want)
		}
		waits[want.Round(time.Millisecond)]++
		u.items.Forget("d")
		m.Forget()
		now += want
	}
	// The first adds find tokens and wait the backoff's 5ms; once the
	// bucket is empty each waits for one token, 100ms at 10 a second.
	if waits[5*time.Millisecond] < 100 || waits[100*time.Millisecond] == 0 {
		t.Errorf("waits by length = %v; want 5ms until the bucket of 100 is spent, then 100ms", waits)
	}
}
