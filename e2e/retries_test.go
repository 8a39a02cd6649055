package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/deploysync/deploysync/internal/ratelimit"
)

// The failed-sync path of the workqueue's rate limiter, measured: a
// ReplicaSet whose pods the apiserver refuses fails every sync, and
// kube-controller-manager's ReplicaSet controller retries it with
// AddRateLimited and never forgets it until a sync succeeds. Each failed
// sync sends one pod create (a slow-start batch of one), so the times of
// the refused creates, seen on the controller's own connection, are the
// times of its retries. The Deployment controller builds its queue with
// the same limiter (client-go's default controller rate limiter), which
// internal/ratelimit models for the simulator; the gaps are held to it.

// refusedCreates records when the apiserver refused a create of resource
// ("pods", "replicasets") sent through the transport it wraps: 403
// Forbidden (a webhook, a quota, Pod Security) or 422 Invalid (a
// ValidatingAdmissionPolicy's default reason, though its message reads "is
// forbidden").
type refusedCreates struct {
	resource string
	mu       sync.Mutex
	at       []time.Time
	// admitted is when the first create the apiserver admitted after a
	// refusal returned.
	admitted time.Time
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func (r *refusedCreates) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		if err != nil || req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/"+r.resource) {
			return resp, err
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		switch {
		case resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusUnprocessableEntity:
			r.at = append(r.at, time.Now())
		case resp.StatusCode == http.StatusCreated && len(r.at) > 0 && r.admitted.IsZero():
			r.admitted = time.Now()
		}
		return resp, err
	})
}

// firstAdmitted is when the first create admitted after a refusal
// returned, zero if none.
func (r *refusedCreates) firstAdmitted() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.admitted
}

func (r *refusedCreates) times() []time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Time(nil), r.at...)
}

// retryGap is the gap after the k-th refused create (k from 1) and the
// limiter's wait for the k-th failure in a row.
type retryGap struct {
	k         int
	gap, wait time.Duration
}

// retryGaps pairs the gaps between refusals with the limiter's waits, each
// refusal being one failed sync that adds the key rate-limited.
func retryGaps(at []time.Time) []retryGap {
	var l ratelimit.Limiter
	var out []retryGap
	for k := 1; k < len(at); k++ {
		wait := l.When(at[k-1].Sub(at[0]))
		out = append(out, retryGap{k: k, gap: at[k].Sub(at[k-1]), wait: wait})
	}
	return out
}

// judgeRetries holds the gaps to the limiter. A sync an event brings (the
// ReplicaSet's creation, its status write, a scale) comes before its wait,
// so a gap shorter than the limiter's wait is an event's; the gaps after
// the last such one are the limiter's alone, and each must be its wait
// plus the sync's own time (at most 10% and 20 ms more). A gap of twice
// that wait is held too, as a failed sync that made no create between
// (unseen): v1.37's ReplicaSet controller fails a sync whose informer is
// older than its own last write before it reads anything
// (pkg/controller/util/consistency, feature StaleControllerConsistencyReplicaSet:
// "read version … is not as new as written version" in its log), and so
// adds the key rate-limited once more; every later wait is then one
// doubling on. A gap past its wait's slack, up to twice the wait and its
// slack, that is followed by a gap that fits its own wait and not twice
// it is no such failure but a slow sync (the sync before took more than
// the slack: CI's run of 2026-12-07 18:37, 29 ms after a 5 ms wait; the
// long run of 2026-12-08 00:20, 135 ms after an 80 ms wait while 1,000
// pods were made beside it; then every wait on time): counted slow,
// neither held nor bad. It returns how many gaps were so held, the failed
// syncs without a create it inferred, the slow syncs, and the gaps that
// were not held.
func judgeRetries(gaps []retryGap) (held, unseen, slow int, bad []string) {
	gaps = gaps[afterEvents(gaps):]
	// onTime: the gap after gaps[i] fits its own wait, not twice it.
	onTime := func(i int) bool {
		if i+1 >= len(gaps) {
			return false
		}
		next := shifted(gaps[i+1].wait, unseen)
		return fits(gaps[i+1].gap, next) && !fits(gaps[i+1].gap, shifted(next, 1))
	}
	for i, g := range gaps {
		wait := shifted(g.wait, unseen)
		switch {
		case fits(g.gap, wait):
		case g.gap > wait && g.gap <= slack(shifted(wait, 1)) && onTime(i):
			slow++
			continue
		case fits(g.gap, shifted(wait, 1)):
			unseen++
		default:
			bad = append(bad, fmt.Sprintf("after refusal %d: %v, the limiter waits %v", g.k, g.gap.Round(time.Millisecond), wait))
			continue
		}
		held++
	}
	return held, unseen, slow, bad
}

// afterEvents is the index of the first gap after the last one shorter
// than its wait (a sync an event brought): the limiter's alone from there.
func afterEvents(gaps []retryGap) int {
	from := 0
	for i, g := range gaps {
		if g.gap < g.wait {
			from = i + 1
		}
	}
	return from
}

// fits reports whether gap is wait plus a sync's own time: at most 10%
// and 20 ms more.
func fits(gap, wait time.Duration) bool {
	return gap >= wait && gap <= slack(wait)
}

// slack is the latest a retry after wait is still the limiter's: wait
// plus a sync's own time, 10% and 20 ms.
func slack(wait time.Duration) time.Duration {
	return wait + wait/10 + 20*time.Millisecond
}

// shifted is the limiter's wait n failures on from wait (each doubles it,
// up to the 1000 s ceiling).
func shifted(wait time.Duration, n int) time.Duration {
	for ; n > 0; n-- {
		wait = min(2*wait, 1000*time.Second)
	}
	return wait
}

func formatRetryGaps(gaps []retryGap) string {
	parts := make([]string, len(gaps))
	for i, g := range gaps {
		parts[i] = fmt.Sprintf("%v/%v", g.gap.Round(time.Millisecond), g.wait)
	}
	return strings.Join(parts, " ")
}

// syncExcess measures the ReplicaSet controller's sync time on its
// refusals (simulate.WithReplicaSetSyncTime's create): the retries come
// their limiter's wait after the end of the sync before, so each gap the
// limiter alone explains (judgeRetries' rule) exceeds its wait by that
// sync's time. The refusals are split into runs of failures in a row
// where a gap is longer than the rule allows (the key was forgotten
// between: a sync that made every pod). It returns the excesses, sorted.
func syncExcess(at []time.Time) []time.Duration {
	var out []time.Duration
	for len(at) > 1 {
		gaps := retryGaps(at)
		n := len(gaps)
		for i, g := range gaps {
			if g.gap >= g.wait && !fits(g.gap, g.wait) {
				n = i
				break
			}
		}
		for _, g := range gaps[afterEvents(gaps[:n]):n] {
			out = append(out, g.gap-g.wait)
		}
		at = at[n+1:]
	}
	slices.Sort(out)
	return out
}

// formatExcess gives syncExcess' measurement: the median, range and count.
func formatExcess(ex []time.Duration) string {
	if len(ex) == 0 {
		return "no retry the limiter alone explains"
	}
	return fmt.Sprintf("median %v (%v to %v) over %d retries the limiter alone explains",
		ex[len(ex)/2].Round(100*time.Microsecond), ex[0].Round(100*time.Microsecond), ex[len(ex)-1].Round(100*time.Microsecond), len(ex))
}
