package simulate_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync"
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
