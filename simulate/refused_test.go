package simulate_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/replicaset"
	"github.com/deploysync/deploysync/simulate"
)

// TestRefusedConditionsAreReplicaSetSyncs holds the world's ReplicaFailure
// conditions to package replicaset (upstream's ReplicaSet controller,
// proven against pkg/controller/replicaset): at every step of the refused
// scenario, each ReplicaSet's conditions as the world leaves them are what
// replicaset.Sync writes for the ReplicaSet, pods and time the world
// started the step from, its first create failing with the apiserver's
// error when the template is refused.
func TestRefusedConditionsAreReplicaSetSyncs(t *testing.T) {
	opts := []simulate.Option{simulate.WithRefusedImage("nginx:refused", refusedMessage), simulate.WithChanges(
		simulate.SetImage(0, "web", "nginx:refused"), simulate.SetImage(10*time.Second, "web", "nginx:1.28"))}
	s := steady(t, deployment(10))
	run := func(steps int) *simulate.Timeline {
		t.Helper()
		tl, err := simulate.Run(s, append(slices.Clone(opts), simulate.WithMaxSteps(steps))...)
		if err != nil {
			t.Fatal(err)
		}
		return tl
	}
	full := run(100_000)
	if full.Outcome != simulate.Complete {
		t.Fatalf("outcome %s, want Complete", full.Outcome)
	}
	set, cleared := 0, 0
	prev := run(1).Final
	for n := 1; n < len(full.Steps); n++ {
		next := run(n + 1).Final
		var pods []*corev1.Pod
		for _, ps := range prev.Pods {
			pods = append(pods, ps...)
		}
		for _, rs := range prev.ReplicaSets {
			st := replicaset.State{ReplicaSet: rs, Pods: pods, ReplicaSets: prev.ReplicaSets, Now: full.Steps[n].Time}
			if active(prev.Pods[rs.UID]) < int(*rs.Spec.Replicas) && rs.Spec.Template.Spec.Containers[0].Image == "nginx:refused" {
				st.PodWriteError = refusedMessage
			}
			plan, err := replicaset.Sync(st)
			if err != nil {
				t.Fatalf("step %d: replicaset.Sync(%s): %v", n, rs.Name, err)
			}
			want := rs.Status.Conditions
			if plan.Status != nil {
				want = plan.Status.ReplicaSet.Status.Conditions
			}
			got := byName(next.ReplicaSets, rs.Name).Status.Conditions
			if !sameConditions(got, want) {
				t.Errorf("step %d, %s: the world's conditions %+v, replicaset.Sync's %+v", n, rs.Name, got, want)
			}
			switch before, after := failure(rs), failure(byName(next.ReplicaSets, rs.Name)); {
			case before == nil && after != nil:
				set++
			case before != nil && after == nil:
				cleared++
			}
		}
		prev = next
	}
	// The check is not empty: the condition came and went.
	if set != 1 || cleared != 1 {
		t.Errorf("ReplicaFailure set %d times and cleared %d, want once each", set, cleared)
	}
}

func active(ps []*corev1.Pod) int {
	n := 0
	for _, p := range ps {
		if p.DeletionTimestamp == nil {
			n++
		}
	}
	return n
}

func byName(rss []*appsv1.ReplicaSet, name string) *appsv1.ReplicaSet {
	for _, rs := range rss {
		if rs.Name == name {
			return rs
		}
	}
	return &appsv1.ReplicaSet{}
}

func failure(rs *appsv1.ReplicaSet) *appsv1.ReplicaSetCondition {
	for i := range rs.Status.Conditions {
		if rs.Status.Conditions[i].Type == appsv1.ReplicaSetReplicaFailure {
			return &rs.Status.Conditions[i]
		}
	}
	return nil
}

// sameConditions compares conditions with their times in whole seconds,
// as the apiserver stores the time replicaset.Sync stamps.
func sameConditions(a, b []appsv1.ReplicaSetCondition) bool {
	return slices.EqualFunc(a, b, func(x, y appsv1.ReplicaSetCondition) bool {
		x.LastTransitionTime = metav1.NewTime(x.LastTransitionTime.Truncate(time.Second))
		y.LastTransitionTime = metav1.NewTime(y.LastTransitionTime.Truncate(time.Second))
		return x == y
	})
}

// TestRefusedImage covers what a refusal does to a run, one case per row.
func TestRefusedImage(t *testing.T) {
	initContainer := func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox:refused"}}
	}
	fresh := func(d *appsv1.Deployment) deploysync.State {
		d = deployutil.SetDefaults(d)
		d.UID, d.Generation = "web-uid", 1
		return deploysync.State{Deployment: d, Now: start}
	}
	tests := []struct {
		name, reason string
		state        func(t *testing.T) deploysync.State
		image        string
		want         simulate.Outcome
		refusals     int    // Step.Refused entries over the run
		condition    string // the Deployment's ReplicaFailure reason at the end, "" for none
		pods         int32  // pods at the end
	}{
		{name: "new deployment", reason: "no pod is ever made; the rollout times out with the condition on the Deployment",
			state: func(t *testing.T) deploysync.State { return fresh(deployment(5)) }, image: "nginx:1.27",
			want: simulate.DeadlineExceeded, refusals: 1, condition: "FailedCreate", pods: 0},
		{name: "init container", reason: "an init container's image is refused as a container's is",
			state: func(t *testing.T) deploysync.State { return fresh(deployment(5, initContainer)) }, image: "busybox:refused",
			want: simulate.DeadlineExceeded, refusals: 1, condition: "FailedCreate", pods: 0},
		{name: "another image", reason: "a refusal of an image the template does not hold changes nothing",
			state: func(t *testing.T) deploysync.State { return fresh(deployment(5)) }, image: "nginx:other",
			want: simulate.Complete, refusals: 0, condition: "", pods: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl, err := simulate.Run(tt.state(t), simulate.WithRefusedImage(tt.image, refusedMessage))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, s := range tl.Steps {
				for _, r := range s.Refused {
					n++
					if r.Message != refusedMessage || r.Missing != 5 {
						t.Errorf("step %d: refusal %+v, want 5 missing and the message given", s.Index, r)
					}
				}
			}
			c := deployutil.GetCondition(tl.Final.Deployment.Status, appsv1.DeploymentReplicaFailure)
			reason := ""
			if c != nil {
				reason = c.Reason
				if c.Message != refusedMessage {
					t.Errorf("the Deployment's ReplicaFailure says %q, want the apiserver's message", c.Message)
				}
			}
			last := tl.Steps[len(tl.Steps)-1]
			if tl.Outcome != tt.want || n != tt.refusals || reason != tt.condition || last.Totals.Pods != tt.pods {
				t.Errorf("outcome %s, %d refusals, ReplicaFailure %q, %d pods; want %s, %d, %q, %d (%s)",
					tl.Outcome, n, reason, last.Totals.Pods, tt.want, tt.refusals, tt.condition, tt.pods, tt.reason)
			}
			if tt.refusals > 0 && !strings.Contains(tl.Transcript(), "refused ("+refusedMessage+")") {
				t.Error("the transcript does not say the pods were refused, with the apiserver's words")
			}
		})
	}
	if _, err := simulate.Run(fresh(deployment(1)), simulate.WithRefusedImage("nginx:1.27", "")); err == nil ||
		!strings.Contains(err.Error(), "nginx:1.27") {
		t.Errorf("a refusal without a message: %v, want an error naming the image", err)
	}
}

// TestRefusedReplicaSets follows a refused ReplicaSet create through the
// Deployment controller's workqueue: the first failure's status write is
// an event (the next sync one tick later), every later failure waits the
// limiter's backoff for that many failures in a row (5ms × 2^(n−1)), the
// 16th failure drops the key, and only a change of the Deployment syncs it
// again. Lifting the refusal is no event: the next sync is the next retry.
func TestRefusedReplicaSets(t *testing.T) {
	const tick = 10 * time.Millisecond
	for _, tt := range []struct {
		name    string
		until   time.Duration
		changes []simulate.Change
		// failed is the number of failed syncs; resumed, when the first
		// sync that creates the new ReplicaSet comes (0: none).
		failed  int
		dropped bool
		resumed time.Duration
		want    simulate.Outcome
		reason  string
	}{
		{"lifted at 7s", 7 * time.Second, nil, 11, false, 10240 * time.Millisecond, simulate.Complete,
			"the 11th failure, at 5.12s, waits 5.12s: the retry at 10.24s is the first after the lift"},
		{"lifted before the first retry", time.Millisecond, nil, 1, false, tick, simulate.Complete,
			"the first failure's status write brings a sync one tick later, after the lift"},
		{"never lifted", 0, nil, 16, true, 0, simulate.Stalled,
			"15 retries, then the controller drops the Deployment and nothing is due"},
		{"lifted after the drop, then annotated", 180 * time.Second, []simulate.Change{simulate.Annotate(340*time.Second, "example.com/retry", "1")},
			16, true, 340 * time.Second, simulate.Complete,
			"the lift at 180s comes after the drop at 163.84s, and no retry at 327.68s; the annotation at 340s is an event"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tl, err := simulate.Run(steady(t, deployment(10)), simulate.WithRefusedReplicaSets(tt.until, quotaMessage),
				simulate.WithChanges(append([]simulate.Change{upgrade}, tt.changes...)...))
			if err != nil {
				t.Fatal(err)
			}
			if tl.Outcome != tt.want {
				t.Errorf("outcome %s, want %s (%s)", tl.Outcome, tt.want, tt.reason)
			}
			var failed []simulate.Step
			resumed := time.Duration(-1)
			for _, s := range tl.Steps {
				if s.Err != nil {
					failed = append(failed, s)
				}
				for _, a := range s.Actions {
					if _, ok := a.(*action.CreateReplicaSet); ok && resumed < 0 {
						resumed = s.Elapsed
					}
				}
			}
			if len(failed) != tt.failed {
				t.Fatalf("%d failed syncs, want %d (%s)", len(failed), tt.failed, tt.reason)
			}
			for i, s := range failed {
				if !strings.Contains(s.Err.Error(), "exceeded quota") || s.Failures != i+1 {
					t.Errorf("failed sync %d: error %v, failures %d in a row; want the apiserver's error and %d", i+1, s.Err, s.Failures, i+1)
				}
				c := deployutil.GetCondition(appsv1.DeploymentStatus{Conditions: s.Conditions}, appsv1.DeploymentProgressing)
				if c == nil || c.Status != corev1.ConditionFalse || c.Reason != deployutil.ReasonReplicaSetCreateError || !c.LastTransitionTime.Time.Equal(start) {
					t.Errorf("failed sync %d: Progressing %+v, want False/ReplicaSetCreateError since the first failure", i+1, c)
				}
				last := i == len(failed)-1
				switch {
				case last && tt.dropped:
					if !s.Dropped || s.RetryAfter != 0 {
						t.Errorf("failed sync %d: dropped %v, retry after %v; want dropped", i+1, s.Dropped, s.RetryAfter)
					}
				case s.Dropped || s.RetryAfter != 5*time.Millisecond<<i:
					t.Errorf("failed sync %d: dropped %v, retry after %v; want the limiter's %v", i+1, s.Dropped, s.RetryAfter, 5*time.Millisecond<<i)
				}
				if i == 0 || last && resumed < 0 {
					continue
				}
				// A retry comes at the first tick at or after its wait; the
				// second sync is the first failure's status event.
				want := failed[i-1].Elapsed + failed[i-1].RetryAfter
				if i == 1 {
					want = tick
				}
				if want = (want + tick - 1) / tick * tick; s.Elapsed != want {
					t.Errorf("failed sync %d at %v, want %v", i+1, s.Elapsed, want)
				}
			}
			if tt.resumed == 0 && resumed >= 0 || tt.resumed > 0 && resumed != tt.resumed {
				t.Errorf("the new ReplicaSet is created at %v, want %v (%s)", resumed, tt.resumed, tt.reason)
			}
		})
	}
}

func TestRefusedReplicaSetsOptionErrors(t *testing.T) {
	for _, tt := range []struct {
		until   time.Duration
		message string
		reason  string
	}{
		{time.Second, "", "the apiserver's error is what the condition and the event carry"},
		{-time.Second, quotaMessage, "a refusal cannot end before the start"},
	} {
		_, err := simulate.Run(steady(t, deployment(10)), simulate.WithRefusedReplicaSets(tt.until, tt.message))
		if err == nil || !strings.Contains(err.Error(), "refused ReplicaSets") {
			t.Errorf("until %v, message %q: error %v, want one naming the option (%s)", tt.until, tt.message, err, tt.reason)
		}
	}
}

// TestRefusedCreateAfterAdoption holds the rule that only a refused sync
// whose writes are the Deployment's unchanged status and events is quiet:
// a sync that adopts an orphaned ReplicaSet and then has its create
// refused patched the ReplicaSet, an informer event that brings the next
// sync one tick later, where a quiet failure waits the limiter's 5ms. The
// state is a first refused sync's (the condition already set), with an
// orphan of the Deployment's selector added to it.
func TestRefusedCreateAfterAdoption(t *testing.T) {
	first, err := simulate.Run(steady(t, deployment(10)), simulate.WithRefusedReplicaSets(0, quotaMessage),
		simulate.WithChanges(upgrade), simulate.WithMaxSteps(1))
	if err != nil {
		t.Fatal(err)
	}
	if first.Steps[0].Err == nil {
		t.Fatalf("the first sync was not refused: %+v", first.Steps[0])
	}
	orphan := first.Final.ReplicaSets[0].DeepCopy()
	orphan.Name, orphan.UID, orphan.OwnerReferences = "web-orphan", "orphan-uid", nil
	orphan.Spec.Replicas = ptr.To[int32](0)
	orphan.Status = appsv1.ReplicaSetStatus{}
	for _, labels := range []map[string]string{orphan.Labels, orphan.Spec.Template.Labels, orphan.Spec.Selector.MatchLabels} {
		labels[appsv1.DefaultDeploymentUniqueLabelKey] = "orphan"
	}
	orphan.Spec.Template.Spec.Containers[0].Image = "nginx:1.26"
	const tick = time.Millisecond
	for _, tt := range []struct {
		name   string
		orphan bool
		// adopted says the first sync adopts; second, when the second
		// failed sync comes.
		adopted bool
		second  time.Duration
		reason  string
	}{
		{"an adoption before the refused create", true, true, tick,
			"the adoption patch is an informer event: the next sync comes one tick later"},
		{"the same sync with nothing to adopt", false, false, 5 * time.Millisecond,
			"the status write changes nothing: the retry waits the limiter's first 5ms"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := first.Final
			s.ReplicaSets = slices.Clone(s.ReplicaSets)
			if tt.orphan {
				s.ReplicaSets = append(s.ReplicaSets, orphan)
			}
			tl, err := simulate.Run(s, simulate.WithRefusedReplicaSets(0, quotaMessage), simulate.WithTick(tick), simulate.WithMaxSteps(2))
			if err != nil {
				t.Fatal(err)
			}
			if len(tl.Steps) != 2 || tl.Steps[0].Err == nil || tl.Steps[1].Err == nil {
				t.Fatalf("want two refused syncs, got %d steps: %+v", len(tl.Steps), tl.Steps)
			}
			adopted := false
			for _, a := range tl.Steps[0].Actions {
				if ad, ok := a.(*action.AdoptReplicaSet); ok && ad.Name == orphan.Name {
					adopted = true
				}
			}
			if adopted != tt.adopted {
				t.Errorf("the first sync adopts %s: %v, want %v", orphan.Name, adopted, tt.adopted)
			}
			if got := tl.Steps[1].Elapsed - tl.Steps[0].Elapsed; got != tt.second {
				t.Errorf("the second refused sync %v after the first, want %v (%s)", got, tt.second, tt.reason)
			}
		})
	}
}

// TestRefusedImageUntil holds the world's ReplicaSet controller to its
// workqueue when a refusal of pods ends: the pods come at its first retry
// at or after the end, the failed syncs before it counted as kube-
// controller-manager's were on the e2e cluster (11 refused creates for a
// lift at 7s, the 12th sync creating them at +10.273s there).
func TestRefusedImageUntil(t *testing.T) {
	const tick = 10 * time.Millisecond
	for _, tt := range []struct {
		name    string
		until   time.Duration
		changes []simulate.Change
		// at and failures: the admitting retry (at 0: none); refused, the
		// step listing the refusal (-1: none).
		at       time.Duration
		failures int
		created  int32
		refused  bool
		want     simulate.Outcome
		reason   string
		// timed: the default sync times (WithReplicaSetSyncTime); the
		// other rows have instantaneous syncs, the model's arithmetic
		// alone.
		timed bool
	}{
		{"lifted at 7s, syncs timed", 7 * time.Second, []simulate.Change{simulate.SetImage(0, "web", "nginx:refused")},
			10252 * time.Millisecond, 11, 5, true, simulate.Complete,
			"syncs of 4ms, 8ms with a status write: the create's from 0 to 8 (its condition's write brings one at 8, to 12), the scale to 5 at 10 comes in it and waits: 12 to 20 (observedGeneration, one more at 20), " +
				"the first add (13) came in that sync too; 20 to 24, then each add its wait after the sync's end: 64, 148, 312, 636 ms, 1.280, 2.564, 5.128 s, each failing; the next, 5.12s after 5.132, creates", true},
		{"lifted at 7s", 7 * time.Second, []simulate.Change{simulate.SetImage(0, "web", "nginx:refused")},
			10105 * time.Millisecond, 11, 5, true, simulate.Complete,
			"failed syncs at 0 and 0 (the create, then the condition's write), 5ms, 10ms twice (the scale to 5, then observedGeneration), 25, 185, 505 ms, 1.145, 2.425, 4.985 s; the next waits 5.12s", false},
		{"lifted before the first retry", 3 * time.Millisecond, []simulate.Change{simulate.SetImage(0, "web", "nginx:refused")},
			5 * time.Millisecond, 2, 3, false, simulate.Complete,
			"the first sync and the one its condition's write brings fail at 0; the pending add at 5ms comes after the lift and creates the 3 pods; " +
				"the condition set at 0 and dropped at 5ms falls within one tick: the world's step at 10ms shows neither", false},
		{"ended before the ReplicaSet was made", 5 * time.Second, []simulate.Change{simulate.SetImage(10*time.Second, "web", "nginx:refused")},
			0, 0, 0, false, simulate.Complete,
			"a template refused only before its ReplicaSet exists is never refused", false},
		{"lifted after a day", 24 * time.Hour, []simulate.Change{simulate.SetImage(0, "web", "nginx:refused")},
			24*time.Hour + 910585*time.Millisecond, 104, 5, true, simulate.Complete,
			"the chain of the 7s row goes on doubling to 655.36s (the retry at 1310.585s, the 19th failure), then waits the limiter's ceiling, 1000s: " +
				"2310.585s + 85×1000s, after 85 more failures, is the first retry after 24h", false},
		{"never lifted", 0, []simulate.Change{simulate.SetImage(0, "web", "nginx:refused")},
			0, 0, 0, true, simulate.DeadlineExceeded,
			"WithRefusedImage: no pod is ever made and the progress deadline passes", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := []simulate.Option{simulate.WithRefusedImageUntil("nginx:refused", refusedMessage, tt.until),
				simulate.WithTick(tick), simulate.WithChanges(tt.changes...)}
			if !tt.timed {
				opts = append(opts, simulate.WithReplicaSetSyncTime(0, 0))
			}
			tl, err := simulate.Run(steady(t, deployment(10)), opts...)
			if err != nil {
				t.Fatal(err)
			}
			if tl.Outcome != tt.want {
				t.Errorf("outcome %s, want %s (%s)", tl.Outcome, tt.want, tt.reason)
			}
			var admitted []simulate.Admission
			refused := false
			for _, s := range tl.Steps {
				refused = refused || len(s.Refused) > 0
				for _, a := range s.Admitted {
					admitted = append(admitted, a)
					if want := (a.At + tick - 1) / tick * tick; s.Elapsed != want {
						t.Errorf("admission at +%v listed at step +%v, want the first tick at or after it, +%v", a.At, s.Elapsed, want)
					}
				}
			}
			if refused != tt.refused {
				t.Errorf("refused %v, want %v (%s)", refused, tt.refused, tt.reason)
			}
			switch {
			case tt.at == 0 && len(admitted) > 0:
				t.Errorf("admitted %+v, want none (%s)", admitted, tt.reason)
			case tt.at > 0 && len(admitted) != 1:
				t.Fatalf("admitted %+v, want one (%s)", admitted, tt.reason)
			case tt.at > 0:
				a := admitted[0]
				if a.At != tt.at || a.Failures != tt.failures || a.Until != tt.until || a.Created != tt.created {
					t.Errorf("admitted %+v, want at %v after %d failures, until %v, %d pods created (%s)", a, tt.at, tt.failures, tt.until, tt.created, tt.reason)
				}
			}
		})
	}
	_, err := simulate.Run(steady(t, deployment(10)), simulate.WithRefusedImageUntil("nginx:refused", refusedMessage, -time.Second))
	if err == nil || !strings.Contains(err.Error(), "before the start") {
		t.Errorf("a refusal ending before the start: error %v, want one saying so", err)
	}
}
