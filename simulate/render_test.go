package simulate

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
)

// TestTableFoldsIdleReplicaSets builds a timeline of 3 active and 40 idle
// ReplicaSets: the table has a column for each active one and counts the
// idle ones in the legend; with MaxColumns or fewer ReplicaSets every one
// keeps its column.
func TestTableFoldsIdleReplicaSets(t *testing.T) {
	for _, tt := range []struct {
		name         string
		idle         int
		wantCols     int
		wantFoldLine string
		reason       string
	}{
		{"many", 40, 3, "+ 40 more at 0", "43 ReplicaSets exceed MaxColumns: the 40 at 0 throughout fold"},
		{"few", MaxColumns - 3, MaxColumns, "", "8 ReplicaSets fit: idle ones keep their columns, as before"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var rss []ReplicaSetState
			for i := range tt.idle {
				rss = append(rss, ReplicaSetState{Name: fmt.Sprintf("web-idle%02d", i), Revision: fmt.Sprint(i + 1)})
			}
			rss = append(rss,
				ReplicaSetState{Name: "web-old", Revision: "100", Replicas: 2, Pods: Counts{Pods: 2, Ready: 2, Available: 2}},
				ReplicaSetState{Name: "web-drained", Revision: "101", Pods: Counts{Terminating: 1}},
				ReplicaSetState{Name: "web-new", Revision: "102", New: true})
			tl := &Timeline{Deployment: "ns/web", Steps: []Step{{ReplicaSets: rss}}}
			table := tl.Table()
			header := strings.SplitN(table, "\n", 2)[0]
			for _, name := range []string{"old", "drained", "new"} {
				if !strings.Contains(header, name) {
					t.Errorf("header %q lacks the active ReplicaSet %s (%s)", header, name, tt.reason)
				}
			}
			if got := len(tl.Active()); got != tt.wantCols {
				t.Errorf("%d columns, want %d (%s)", got, tt.wantCols, tt.reason)
			}
			if strings.Contains(header, "idle00") != (tt.wantFoldLine == "") {
				t.Errorf("header %q: idle00 shown = %v, want %v (%s)", header, strings.Contains(header, "idle00"), tt.wantFoldLine == "", tt.reason)
			}
			if tt.wantFoldLine != "" && !strings.Contains(table, tt.wantFoldLine) {
				t.Errorf("table lacks %q:\n%s", tt.wantFoldLine, table)
			}
			if tt.wantFoldLine == "" && strings.Contains(table, "more at 0") {
				t.Errorf("table folds although %d ReplicaSets fit:\n%s", tt.idle+3, table)
			}
		})
	}
}

// TestDescribeCountsDeletes: a step deleting 5 ReplicaSets names 3 and
// counts the other 2.
func TestDescribeCountsDeletes(t *testing.T) {
	var acts []action.Action
	for i := range 5 {
		acts = append(acts, &action.DeleteReplicaSet{Name: fmt.Sprintf("web-%d", i)})
	}
	tl := &Timeline{Deployment: "ns/web"}
	got := tl.describe(nil, &Step{Actions: acts})
	if want := "delete 0, delete 1, delete 2, and 2 more deletes"; got != want {
		t.Errorf("describe = %q, want %q", got, want)
	}
}

// TestTranscriptTimes: a condition updated during the run or shortly before
// it reads as an offset; one from more than a day before the start (an
// exported file's) reads as a date, not as "-72562h35m47s".
func TestTranscriptTimes(t *testing.T) {
	start := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	tl := &Timeline{Start: start}
	for _, tt := range []struct {
		at     time.Time
		want   string
		reason string
	}{
		{start.Add(12 * time.Second), "+12s", "during the run"},
		{start.Add(-2 * time.Second), "-2s", "just before the start"},
		{start.Add(-72562 * time.Hour), "2018-08-20T02:00:00Z, before the start", "years before: absolute"},
	} {
		if got := tl.when(tt.at); got != tt.want {
			t.Errorf("when(%v) = %q, want %q (%s)", tt.at, got, tt.want, tt.reason)
		}
	}
	d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{ProgressDeadlineSeconds: ptr.To[int32](600)}}
	d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Reason: "ReplicaSetUpdated",
		LastUpdateTime: metav1.NewTime(start.Add(-72562 * time.Hour))}}
	plan := deploysync.Plan{Requeue: true}
	s := Step{Requeue: true, Conditions: d.Status.Conditions, RequeueWhy: requeueWhy(d, plan, start, start)}
	tl.Steps = []Step{s}
	out := tl.Transcript()
	for _, want := range []string{"then requeue now (rate limited): the progress deadline has passed (Progressing updated 2018-08-20T02:00:00Z, before the start + progressDeadlineSeconds 600 = 2018-08-20T02:10:00Z, before the start, ",
		"(updated 2018-08-20T02:00:00Z, before the start)"} {
		if !strings.Contains(out, want) {
			t.Errorf("transcript lacks %q:\n%s", want, out)
		}
	}
}

// TestTranscriptFoldsRequeues: a run of three or more rate-limited
// requeues that do the same and nothing else shows its first and last step
// and one line for those between; a run of two, or one broken by an action,
// a different wait or a timed requeue, is shown whole.
func TestTranscriptFoldsRequeues(t *testing.T) {
	write := &action.Event{Reason: "ScalingReplicaSet"}
	waitFor := func(pod string) action.Reasons {
		return action.Reasons{action.Because(action.RuleRecreateWaits),
			action.Because(action.RuleRecreateOldPodRunning, action.Str("pod", pod), action.Str("replicaSet", "web-1"), action.Str("phase", "Running"))}
	}
	requeue := func(i int) Step {
		return Step{Index: i, Elapsed: time.Duration(i) * 10 * time.Millisecond, Branch: "Recreate", Requeue: true,
			Why:        waitFor("web-1"),
			RequeueWhy: fmt.Sprintf("the progress deadline passed %d0ms ago", i)}
	}
	for _, tt := range []struct {
		name   string
		edit   func(steps []Step)
		steps  int
		want   []string // the step lines and fold lines, in order
		reason string
	}{
		{"five alike", nil, 5, []string{"step 0 ", "steps 1 to 3 +10ms to +30ms: 3 syncs as step 0,", "step 4 "},
			"steps 1 to 3 do what step 0 did; step 4, the run's last, shows where it ends"},
		{"two alike", nil, 2, []string{"step 0 ", "step 1 "}, "nothing between the first and the last to fold"},
		{"three alike", nil, 3, []string{"step 0 ", "steps 1 to 1 +10ms to +10ms: 1 syncs as step 0,", "step 2 "},
			"the smallest fold: one step between"},
		{"an action breaks the run", func(s []Step) { s[2].Actions = []action.Action{write} }, 5,
			[]string{"step 0 ", "step 1 ", "step 2 ", "step 3 ", "step 4 "}, "step 2 writes: runs 0–1 and 3–4 have two steps each"},
		{"another wait breaks the run", func(s []Step) { s[3].Why = waitFor("web-2") }, 6,
			[]string{"step 0 ", "steps 1 to 1 ", "step 2 ", "step 3 ", "step 4 ", "step 5 "}, "steps 0–2 fold around step 1; step 3 waits for another pod"},
		{"a timed requeue is no fold", func(s []Step) {
			for i := range s {
				s[i].Requeue, s[i].RequeueAfter = false, time.Minute
			}
		}, 4, []string{"step 0 ", "step 1 ", "step 2 ", "step 3 "}, "only rate-limited requeues come in runs"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tl := &Timeline{Deployment: "ns/web"}
			for i := range tt.steps {
				tl.Steps = append(tl.Steps, requeue(i))
			}
			if tt.edit != nil {
				tt.edit(tl.Steps)
			}
			var got []string
			for _, l := range strings.Split(tl.Transcript(), "\n") {
				if strings.HasPrefix(l, "step ") || strings.HasPrefix(l, "steps ") {
					got = append(got, l)
				}
			}
			ok := len(got) == len(tt.want)
			for i := 0; ok && i < len(got); i++ {
				ok = strings.HasPrefix(got[i], tt.want[i])
			}
			if !ok {
				t.Errorf("step lines\n%s\nwant them to start\n%s\n(%s)", strings.Join(got, "\n"), strings.Join(tt.want, "\n"), tt.reason)
			}
		})
	}
}

// TestRequeueWhy: a requeue's reason gives the progress deadline's sum, and
// only when that sum is what made Sync requeue.
func TestRequeueWhy(t *testing.T) {
	start := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	deployment := func(reason string, updated time.Duration) *appsv1.Deployment {
		d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{ProgressDeadlineSeconds: ptr.To[int32](600)}}
		d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Reason: reason,
			LastUpdateTime: metav1.NewTime(start.Add(updated))}}
		return d
	}
	for _, tt := range []struct {
		name   string
		d      *appsv1.Deployment
		plan   deploysync.Plan
		now    time.Duration
		want   string
		reason string
	}{
		{"after", deployment("ReplicaSetUpdated", 2*time.Second), deploysync.Plan{RequeueAfter: 600 * time.Second}, 3 * time.Second,
			"one second past the progress deadline, to check it (Progressing updated +2s + progressDeadlineSeconds 600 = +10m2s)",
			"+2s + 600s = +10m2s; at +3s that is 599s away, and Sync asks for 599s + 1s"},
		{"after, other numbers", deployment("ReplicaSetUpdated", 2*time.Second), deploysync.Plan{RequeueAfter: 30 * time.Second}, 3 * time.Second, "",
			"a RequeueAfter the deadline does not give has no reason made up for it"},
		{"now, soon", deployment("ReplicaSetUpdated", 0), deploysync.Plan{Requeue: true}, 599*time.Second + 500*time.Millisecond,
			"the progress deadline is less than a second away (Progressing updated +0s + progressDeadlineSeconds 600 = +10m, in 500ms)",
			"the deadline +10m is half a second after +9m59.5s"},
		{"now, passed", deployment("NewReplicaSetAvailable", -time.Hour), deploysync.Plan{Requeue: true}, 0,
			"the progress deadline has passed (Progressing updated -1h + progressDeadlineSeconds 600 = -50m, 50m ago), and Progressing NewReplicaSetAvailable never times out",
			"a complete rollout's condition does not time out, so the deadline stays passed"},
		{"timed out", deployment("ProgressDeadlineExceeded", 0), deploysync.Plan{Requeue: true}, 700 * time.Second, "",
			"Sync requeues for no deadline that has already timed out"},
		{"no requeue", deployment("ReplicaSetUpdated", 0), deploysync.Plan{}, time.Second, "", "no requeue, no reason"},
		{"failed", deployment("ReplicaSetUpdated", 0), deploysync.Plan{Requeue: true, Err: errors.New("collision")}, 599 * time.Second, "",
			"a failed sync's retry is the error's, printed with it"},
	} {
		if tt.reason == "" {
			t.Fatal("reason must be provided")
		}
		if got := requeueWhy(tt.d, tt.plan, start, start.Add(tt.now)); got != tt.want {
			t.Errorf("%s: requeueWhy = %q, want %q (%s)", tt.name, got, tt.want, tt.reason)
		}
	}
}
