package simulate_test

import (
	"strings"
	"testing"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/simulate"
)

// TestRunInputAlreadyBelowAvailability runs a state exported mid-rollout
// whose old ReplicaSet is already at 0 while it holds the only available
// pod (the ReplicaSet controller has not deleted it yet): the controller
// cannot keep replicas 1 - maxUnavailable 0 = 1 available while the new pod
// starts, whatever it does. The run completes; the timeline reports the
// input's state once, in InputBroken and in the summary; Err is nil.
func TestRunInputAlreadyBelowAvailability(t *testing.T) {
	s := steady(t, deployment(1))
	d := s.Deployment.DeepCopy()
	d.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
	d.Generation++
	s.Deployment = d
	plan, err := deploysync.Sync(s)
	if err != nil {
		t.Fatal(err)
	}
	mid, err := deploysync.Apply(s, plan)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range plan.Actions {
		if c, ok := a.(*action.CreateReplicaSet); ok {
			for _, rs := range mid.ReplicaSets {
				if rs.Name == c.ReplicaSet.Name {
					rs.UID = "new-uid"
				}
			}
		}
	}
	if len(mid.ReplicaSets) != 2 {
		t.Fatalf("%d ReplicaSets after the first sync, want the old and the new", len(mid.ReplicaSets))
	}
	for _, rs := range mid.ReplicaSets {
		if rs.UID != "new-uid" {
			zero := int32(0)
			rs.Spec.Replicas = &zero // status still counts its 1 available pod
		}
	}
	tl, err := simulate.Run(mid)
	if err != nil {
		t.Fatal(err)
	}
	if tl.Outcome != simulate.Complete || tl.Err() != nil {
		t.Errorf("outcome %s, err %v; want Complete and no violation", tl.Outcome, tl.Err())
	}
	if len(tl.InputBroken) != 1 || tl.InputBroken[0].Invariant != simulate.AvailabilityBound {
		t.Fatalf("InputBroken %v, want one AvailabilityBound", tl.InputBroken)
	}
	sum := tl.Summary()
	if !strings.Contains(sum, "input:          already breaks 1 invariant (") || !strings.Contains(sum, "keep 0 of its 1 available pods") || strings.Contains(sum, "VIOLATED") {
		t.Errorf("summary does not report the input once and no violation:\n%s", sum)
	}
	if min, step := tl.MinAvailable(); min != 0 || step < 1 {
		t.Errorf("min available %d at step %d, want 0 after step 0: the old pod goes before the new one is available", min, step)
	}
}
