// Package ratelimit models, on a clock passed in, the rate limiter of the
// Deployment controller's workqueue for the one Deployment a simulation
// syncs, and of the ReplicaSet controller's for each ReplicaSet whose pods
// the simulated apiserver refuses for a time or past a pod quota (the same
// limiter; that controller never drops a key): client-go's default
// controller rate limiter, the larger of two waits.
//
//   - A per-key exponential backoff: 5ms times 2 to the number of
//     rate-limited adds since the key was last forgotten, at most 1000s. The
//     controller forgets a key after every sync that returns no error, so a
//     requeue asked for by a successful sync (one past the progress
//     deadline) always waits 5ms, and only failed syncs in a row double it.
//   - A token bucket shared by every rate-limited add: 100 tokens, refilled
//     at 10 a second, one taken per add; an add that finds none waits until
//     its token has been refilled.
//
// The bucket is full when the model starts, as a controller's is when it
// starts or has been quiet for ten seconds. The limiter is the same on every
// minor 1.33–1.37: client-go v0.33.5 to v0.37.2 carry the same
// default_rate_limiters.go, and the Deployment controller of v1.33.5 and of
// v1.37.2 builds its queue with it, forgets a key after a sync without an
// error and drops one after 15 failed retries. A real
// kube-controller-manager paces such requeues so: e2e's TestE2E/requeue
// counts its syncs of a Deployment in that loop against the simulator's
// (e2e/README.md, "The workqueue's rate limiter, measured"), and the
// doubling waits of failed syncs are measured on the ReplicaSet
// controller, whose queue uses the same limiter, retrying a ReplicaSet
// whose pods the apiserver refuses (e2e/retries_test.go), and on the
// Deployment controller itself, retrying a ReplicaSet create a full quota
// refuses: 16 failed syncs 5 ms × 2^(n−1) apart, then the key dropped
// (e2e's refused-ReplicaSets scenarios, e2e/README.md "A full ReplicaSet
// quota").
package ratelimit

import (
	"math"
	"time"
)

// MaxRetries is how often the Deployment controller retries a key whose
// sync fails before it drops it (the 16th failure in a row is the last).
const MaxRetries = 15

// FailedSyncs returns when the syncs of a Deployment whose every sync
// fails come, from the first (0) to the last before the key is dropped:
// the first failure's status write is an event, so a second sync follows
// at once; both add the key rate-limited, and the workqueue's delaying
// queue keeps the earlier wait (5ms); from then on each failed sync waits
// its backoff. It assumes nothing else changes the Deployment meanwhile.
// kube-controller-manager's refusals of a ReplicaSet create came 0, 4, 9,
// 33, … 5151 ms and 2m43.96s after the first (e2e's refused-ReplicaSets
// scenarios), each a few ms after these times.
func FailedSyncs() []time.Duration {
	var l Limiter
	next := min(l.When(0), l.When(0))
	times := []time.Duration{0, 0}
	for len(times) <= MaxRetries {
		times = append(times, next)
		next += l.When(next)
	}
	return times
}

const (
	baseDelay = 5 * time.Millisecond
	maxDelay  = 1000 * time.Second
	perSecond = 10.0
	burst     = 100.0
)

// Limiter is the workqueue's limiter for one key. Its zero value is a
// limiter with a full bucket and no failures.
type Limiter struct {
	failures int
	used     bool          // the bucket has been drawn from
	tokens   float64       // in the bucket after the last draw
	last     time.Duration // the time of the last draw
}

// When returns how long a rate-limited add at now waits before the key is
// queued again, and counts the add as a failure until Forget. Times are
// offsets from one origin and must not go back.
func (l *Limiter) When(now time.Duration) time.Duration {
	backoff := maxDelay
	if b := float64(baseDelay) * math.Pow(2, float64(l.failures)); b < float64(maxDelay) {
		backoff = time.Duration(b)
	}
	l.failures++

	tokens := burst
	if l.used {
		tokens = min(burst, l.tokens+(now-l.last).Seconds()*perSecond)
	}
	tokens--
	l.used, l.tokens, l.last = true, tokens, now
	var wait time.Duration
	if tokens < 0 {
		wait = time.Duration(-tokens / perSecond * float64(time.Second))
	}
	return max(backoff, wait)
}

// NumRequeues returns the rate-limited adds since the key was last
// forgotten: the controller drops a key whose sync failed once this reaches
// 15.
func (l *Limiter) NumRequeues() int { return l.failures }

// Forget resets the key's backoff, as the controller does after a sync
// that returned no error (or after it dropped the key); the bucket is
// shared and keeps its count.
func (l *Limiter) Forget() { l.failures = 0 }
