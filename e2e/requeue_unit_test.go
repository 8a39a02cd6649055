package e2e

import (
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// TestCountRequeues holds the measure TestE2E/requeue compares the two
// worlds on to what each row says.
func TestCountRequeues(t *testing.T) {
	ms := func(vs ...int) []time.Duration {
		out := make([]time.Duration, len(vs))
		for i, v := range vs {
			out[i] = time.Duration(v) * time.Millisecond
		}
		return out
	}
	for _, tt := range []struct {
		name   string
		syncs  []time.Duration
		end    time.Duration
		want   requeueCounts
		reason string
	}{
		{"burst then steady", ms(0, 5, 10, 15, 115, 215, 315), 400 * time.Millisecond, requeueCounts{syncs: 7, burst: 4, steady: 100 * time.Millisecond},
			"four syncs 5 ms apart, then 100 ms gaps: the burst ends at the first long one; every gap starts in the last second"},
		{"window end", ms(0, 5, 10, 15, 115, 215, 315), 215 * time.Millisecond, requeueCounts{syncs: 5, burst: 4, steady: 5 * time.Millisecond},
			"a sync at or after the end is not counted; gaps 5, 5, 5, 100 ms: the median is the third"},
		{"last second only", ms(0, 5, 10, 15, 1115, 1215, 1315, 1415), 1500 * time.Millisecond, requeueCounts{syncs: 8, burst: 4, steady: 100 * time.Millisecond},
			"the burst's gaps start before the last second (500 ms on): only the 100 ms gaps count"},
		{"no gap", ms(0, 5, 10), time.Second, requeueCounts{syncs: 3, steady: 5 * time.Millisecond},
			"no gap of 50 ms: no burst end"},
		{"median", ms(0, 60, 160, 360), time.Second, requeueCounts{syncs: 4, burst: 1, steady: 100 * time.Millisecond},
			"gaps 60, 100, 200 ms: the median is the middle one"},
		{"none", nil, time.Second, requeueCounts{}, "no sync"},
	} {
		if got := countRequeues(tt.syncs, tt.end); got != tt.want {
			t.Errorf("%s: countRequeues = %v, want %v (%s)", tt.name, got, tt.want, tt.reason)
		}
	}
}

func TestWithin(t *testing.T) {
	for _, tt := range []struct {
		got, want int
		ok        bool
		reason    string
	}{
		{110, 100, true, "10% over is within"},
		{90, 100, true, "10% under is within"},
		{111, 100, false, "11% over is not"},
		{3, 130, false, "the 1 s grid's count against the limiter's"},
	} {
		if ok := within(tt.got, tt.want); ok != tt.ok {
			t.Errorf("within(%d, %d) = %v, want %v (%s)", tt.got, tt.want, ok, tt.ok, tt.reason)
		}
	}
}

// TestSyncLog: the sink keeps the two messages per Deployment, by the
// key kube-controller-manager logs them with, and nothing else.
func TestSyncLog(t *testing.T) {
	l := newSyncLog()
	log := logr.New(l)
	ref := klog.KRef("ns", "web")
	log.V(4).Info("Started syncing deployment", "deployment", ref, "startTime", time.Now())
	log.V(4).Info("Queueing up deployment for a progress check now", "deployment", ref)
	log.V(4).Info("Finished syncing deployment", "deployment", ref)
	log.V(5).Info("Started syncing deployment", "deployment", ref)
	log.V(4).Info("Started syncing deployment", "deployment", klog.KRef("ns", "other"))
	syncs, requeues := l.times("ns/web")
	if len(syncs) != 1 || len(requeues) != 1 {
		t.Errorf("ns/web: %d syncs and %d requeues, want 1 and 1 (V(5) and other messages dropped)", len(syncs), len(requeues))
	}
	if s, _ := l.times("ns/other"); len(s) != 1 {
		t.Errorf("ns/other: %d syncs, want 1", len(s))
	}
}
