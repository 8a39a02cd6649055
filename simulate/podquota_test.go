package simulate_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/simulate"
)

// TestPodQuota holds WithPodQuota to values worked by hand from its
// rules (the quota counts terminating pods until gone; a sync short of
// room makes the room's pods and fails; the ReplicaSet controller's
// limiter waits 5ms doubled per failure), one row per rule.
func TestPodQuota(t *testing.T) {
	fresh := func(t testing.TB, replicas int32) deploysync.State {
		d := deployutil.SetDefaults(deployment(replicas))
		d.UID, d.Generation = "web-uid", 1
		return deploysync.State{Deployment: d, Now: start}
	}
	rolling := func(surge, unavailable int32) func(testing.TB) deploysync.State {
		return func(t testing.TB) deploysync.State {
			return steady(t, deployment(4, fenceposts(intstr.FromInt32(surge), intstr.FromInt32(unavailable))))
		}
	}
	for _, tt := range []struct {
		name  string
		state func(testing.TB) deploysync.State
		quota int64
		// refused: the first refusal's pods made and missing after it
		// (-1: no refusal); at, until, failures: the first admission (at
		// 0: none).
		made, missing int32
		at, until     time.Duration
		failures      int
		want          simulate.Outcome
		reason        string
	}{
		{"terminating pods count", rolling(0, 1), 4, 0, 1, 5155 * time.Millisecond, 5010 * time.Millisecond, 10, simulate.Complete,
			"the old pod deleted at 10ms is gone at 5.01s; the new ReplicaSet, scaled to 1 at 10ms, fails from 10 to 18ms (the condition's write, then its event's sync to 22), " +
				"then each add its wait after the sync's end (4ms): 23, 47, 91, 175, 339, 663 ms, 1.307, 2.591 s; the next, at 5.155s, is the first after the room"},
		{"a deadlock", rolling(1, 0), 4, 0, 1, 0, 0, 0, simulate.DeadlineExceeded,
			"maxUnavailable 0 deletes no old pod until a new one is available, and the quota admits none: no room ever comes"},
		{"room for the surge and a terminating pod", rolling(1, 0), 6, -1, 0, 0, 0, 0, simulate.Complete,
			"at most 4 pods, the surge pod and the old pod terminating for it: 6 fit; (at 5, the surge pod's successor would wait for that old pod's end)"},
		{"room for some from the start", func(t testing.TB) deploysync.State { return fresh(t, 5) }, 3, 3, 2, 0, 0, 0, simulate.DeadlineExceeded,
			"a new Deployment of 5 under a quota of 3: the first sync makes 3 pods and the other 2 are refused for good"},
		{"a quota of none", func(t testing.TB) deploysync.State { return fresh(t, 2) }, 0, 0, 2, 0, 0, 0, simulate.DeadlineExceeded,
			"a quota of 0 pods admits none"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tl, err := simulate.Run(tt.state(t), simulate.WithPodQuota("pods", tt.quota), simulate.WithChanges(upgrade))
			if err != nil {
				t.Fatal(err)
			}
			if tl.Outcome != tt.want {
				t.Errorf("outcome %s, want %s (%s)", tl.Outcome, tt.want, tt.reason)
			}
			var refusal *simulate.Refusal
			var admission *simulate.Admission
			for i := range tl.Steps {
				s := &tl.Steps[i]
				if refusal == nil && len(s.Refused) > 0 {
					refusal = &s.Refused[0]
				}
				if admission == nil && len(s.Admitted) > 0 {
					admission = &s.Admitted[0]
				}
			}
			switch {
			case tt.made < 0 && refusal != nil:
				t.Errorf("refused %+v, want no refusal (%s)", *refusal, tt.reason)
			case tt.made >= 0 && refusal == nil:
				t.Errorf("no refusal, want one after %d pods made (%s)", tt.made, tt.reason)
			case refusal != nil:
				if refusal.Created != tt.made || refusal.Missing != tt.missing {
					t.Errorf("refusal made %d, missing %d; want %d and %d (%s)", refusal.Created, refusal.Missing, tt.made, tt.missing, tt.reason)
				}
				want := "exceeded quota: pods, requested: pods=1"
				if !strings.Contains(refusal.Message, want) || !strings.HasSuffix(refusal.Message, "limited: pods="+strconv.FormatInt(tt.quota, 10)) {
					t.Errorf("refusal message %q, want the ResourceQuota admission's (%q …, limited: pods=%d)", refusal.Message, want, tt.quota)
				}
			}
			switch {
			case tt.at == 0 && admission != nil:
				t.Errorf("admitted %+v, want none (%s)", *admission, tt.reason)
			case tt.at != 0 && admission == nil:
				t.Errorf("no admission, want the retry at +%v (%s)", tt.at, tt.reason)
			case admission != nil:
				if admission.At != tt.at || admission.Until != tt.until || admission.Failures != tt.failures || admission.Created != 1 {
					t.Errorf("admitted %+v; want 1 pod at +%v after %d failures, the room at +%v (%s)", *admission, tt.at, tt.failures, tt.until, tt.reason)
				}
			}
		})
	}
}

// TestPodQuotaOptionErrors: a quota needs a name and a limit not negative.
func TestPodQuotaOptionErrors(t *testing.T) {
	for _, tt := range []struct {
		name  string
		quota string
		pods  int64
	}{
		{"no name", "", 4},
		{"a negative limit", "pods", -1},
	} {
		_, err := simulate.Run(steady(t, deployment(4)), simulate.WithPodQuota(tt.quota, tt.pods))
		if err == nil || !strings.Contains(err.Error(), "pod quota") {
			t.Errorf("%s: err %v, want the pod quota's error", tt.name, err)
		}
	}
}
