package play

import (
	"fmt"
	"strings"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/simulate"
)

// Call is one call made by the function a branch of syncDeployment hands
// the Deployment to (rolloutRolling, rolloutRecreate, sync, syncStatusOnly),
// in upstream's order, with what it did in this sync. The page draws the
// calls under that function on its diagram; everything about them is read
// off the plan's reasons here, never guessed by the page.
type Call struct {
	// Name is upstream's function name ("reconcileNewReplicaSet").
	Name string `json:"name"`
	// Depth is 1 for a call made by the call of depth 0 before it
	// (cleanupUnhealthyReplicas within reconcileOldReplicaSets), else 0.
	Depth int `json:"depth,omitempty"`
	// State is what the call did: "acted" (a reason of the plan is its
	// rule's), "waited" (a reason of the plan's Why is), "idle" (reached,
	// nothing to do) or "skipped" (not reached: an earlier call made the
	// function return).
	State string `json:"state"`
	// Note says what it did or why it waited, from the reasons and their
	// numbers; "" for idle and skipped calls.
	Note string `json:"note,omitempty"`
	// Only is upstream's condition for making the call at all ("the
	// rollout is complete"), "" for none: an idle call with a condition
	// may not have been made.
	Only string `json:"only,omitempty"`
}

// The states of a Call.
const (
	acted   = "acted"
	waited  = "waited"
	idle    = "idle"
	skipped = "skipped"
)

// callSpec describes a call: the rules whose reasons it gives, and whether
// upstream's function returns once it has acted.
type callSpec struct {
	name  string
	depth int
	rules []action.Rule
	// returnsOn is the state after which upstream's function returns
	// (with its status sync): acted or waited, "" for never.
	returnsOn string
	// only is upstream's condition for making the call at all ("" for
	// none).
	only string
}

// newRSRules are the reasons of getAllReplicaSetsAndSyncRevision: finding
// or creating the new ReplicaSet and recording its revision.
var newRSRules = []action.Rule{action.RuleCreateNew, action.RuleCreateNewLimited, action.RuleNewStartsEvent,
	action.RuleRecordRevision, action.RuleRecordFoundRevision, action.RuleStartTracking, action.RuleNoteCreated,
	action.RuleSyncNewReplicaSet, action.RuleHashCollision, action.RuleHashCollisionReleased,
	action.RuleCreateRefused, action.RuleCreateRefusedEvent, action.RuleCreateFailed, action.RuleCreateFailedEvent}

const getAll = "getAllReplicaSetsAndSyncRevision"

// calls lists, per function a branch hands the Deployment to, its calls
// in upstream's order (pkg/controller/deployment's rolling.go, recreate.go
// and sync.go). The last call of each is the status sync, which always
// runs.
var calls = map[deploysync.Branch][]callSpec{
	deploysync.RollingUpdate: {
		{name: getAll, rules: newRSRules},
		{name: "reconcileNewReplicaSet", rules: []action.Rule{action.RuleRollingScaleUpNew, action.RuleScaleDownNew}, returnsOn: acted},
		{name: "reconcileOldReplicaSets", returnsOn: acted},
		{name: "cleanupUnhealthyReplicas", depth: 1, rules: []action.Rule{action.RuleRollingScaleDownUnavailable}},
		{name: "scaleDownOldReplicaSetsForRollingUpdate", depth: 1, rules: []action.Rule{action.RuleRollingScaleDownOld}},
		{name: "cleanupDeployment", rules: []action.Rule{action.RuleCleanup}, only: "the rollout is complete"},
		{name: "syncRolloutStatus", rules: []action.Rule{action.RuleStatus}},
	},
	deploysync.Recreate: {
		{name: "scaleDownOldReplicaSetsForRecreate", rules: []action.Rule{action.RuleRecreateScaleDownOld}, returnsOn: acted},
		{name: "oldPodsRunning", rules: []action.Rule{action.RuleRecreateWaits, action.RuleRecreateOldPodsReported, action.RuleRecreateOldPodRunning}, returnsOn: waited},
		{name: getAll, rules: newRSRules},
		{name: "scaleUpNewReplicaSetForRecreate", rules: []action.Rule{action.RuleRecreateScaleUpNew}},
		{name: "cleanupDeployment", rules: []action.Rule{action.RuleCleanup}, only: "the rollout is complete"},
		{name: "syncRolloutStatus", rules: []action.Rule{action.RuleStatus}},
	},
	deploysync.Paused:       syncCalls,
	deploysync.ScalingEvent: syncCalls,
	deploysync.Deleting: {
		{name: getAll, rules: newRSRules},
		{name: "syncDeploymentStatus", rules: []action.Rule{action.RuleStatus}},
	},
}

var syncCalls = []callSpec{
	{name: getAll, rules: newRSRules},
	{name: "scale", rules: []action.Rule{action.RuleOnlyActive, action.RuleSaturated, action.RuleProportional,
		action.RuleUnhealthyFirst, action.RuleUnhealthyFirstNew, action.RuleUnhealthyFirstGave, action.RuleUnhealthyFirstLate,
		action.RuleUnhealthyFirstHealthy, action.RuleShare, action.RuleFixStaleDesired}},
	{name: "cleanupDeployment", rules: []action.Rule{action.RuleCleanup}, only: "the Deployment is paused and not rolling back"},
	{name: "syncDeploymentStatus", rules: []action.Rule{action.RuleStatus}},
}

// Function returns the function the branch hands the Deployment to, as
// the page's diagram names it.
func Function(b deploysync.Branch) string {
	switch b {
	case deploysync.SelectingAll:
		return "warning event"
	case deploysync.Deleting:
		return "syncStatusOnly"
	case deploysync.Paused, deploysync.ScalingEvent:
		return "sync"
	case deploysync.Rollback:
		return "rollback"
	case deploysync.Recreate:
		return "rolloutRecreate"
	case deploysync.RollingUpdate:
		return "rolloutRolling"
	}
	return ""
}

// flow returns the calls of the step's branch function and what each did,
// read off the plan's reasons: a reason belongs to the call whose rule it
// is (a scale event's to none: the scale's own reason says it); the
// replica annotations of a ReplicaSet of the right size to the call that
// sizes that ReplicaSet (the new one's or an old one's); the plan's Why
// to the call that waits. The branches without such calls (SelectingAll,
// Rollback) have none.
func flow(s *simulate.Step) []Call {
	specs := calls[s.Branch]
	if specs == nil {
		return nil
	}
	notes := make([][]string, len(specs))
	state := make([]string, len(specs))
	index := func(r action.Rule) int { return indexOf(specs, r) }
	mark := func(i int, st, note string) {
		if i < 0 {
			return
		}
		if state[i] != acted {
			state[i] = st
		}
		if note != "" {
			notes[i] = append(notes[i], note)
		}
	}
	newRS := map[string]bool{}
	for _, rs := range s.ReplicaSets {
		newRS[rs.Name] = rs.New
	}
	for _, a := range s.Actions {
		for _, r := range a.Reasons() {
			i := index(r.Rule)
			if u, ok := a.(*action.UpdateReplicaSet); ok && r.Rule == action.RuleReplicasAnnotations {
				i = sizer(specs, newRS[u.ReplicaSet.Name])
			}
			mark(i, acted, r.String())
		}
	}
	for k, r := range s.Why {
		switch r.Rule {
		case action.RuleRollingWaits:
			v := values(r)
			mark(index(action.RuleRollingScaleUpNew), waited, fmt.Sprintf("maxSurge %d allows %d pods and %d exist", v["maxSurge"], v["maxPods"], v["pods"]))
			mark(index(action.RuleRollingScaleDownOld), waited, fmt.Sprintf("%d pods are available and %d must stay (replicas %d − maxUnavailable %d)",
				v["available"], v["minAvailable"], v["replicas"], v["maxUnavailable"]))
		case action.RuleRecreateWaits:
			if k+1 < len(s.Why) {
				continue // the reason after it names the pods
			}
			mark(index(r.Rule), waited, r.String())
		default:
			mark(index(r.Rule), waited, r.String())
		}
	}
	if s.RequeueWhy != "" {
		// requeueStuck: the status sync's last word.
		mark(len(specs)-1, acted, "requeue: "+s.RequeueWhy)
	}
	out := reach(specs, state, notes)
	if s.Err != nil {
		// The new ReplicaSet's create failed (a hash collision, a refusal):
		// getAllReplicaSetsAndSyncRevision returned the error, and the
		// function with it, the status sync too.
		after := false
		for i := range out {
			if after && out[i].State == idle {
				out[i].State = skipped
			}
			after = after || out[i].Name == getAll && out[i].State == acted
		}
	}
	return out
}

// sizer returns the call that sizes the new ReplicaSet (isNew) or the old
// ones in a branch's calls, -1 if none.
func sizer(specs []callSpec, isNew bool) int {
	want := map[bool][]action.Rule{
		true:  {action.RuleRollingScaleUpNew, action.RuleRecreateScaleUpNew, action.RuleProportional},
		false: {action.RuleRollingScaleDownOld, action.RuleRecreateScaleDownOld, action.RuleProportional},
	}[isNew]
	for i, sp := range specs {
		for _, r := range sp.rules {
			for _, w := range want {
				if r == w {
					return i
				}
			}
		}
	}
	return -1
}

// reach fills in the calls that did not act or wait: skipped when upstream
// returned before them, idle otherwise. A call of depth 0 followed by
// calls of depth 1 did what they did.
func reach(specs []callSpec, state []string, notes [][]string) []Call {
	out := make([]Call, len(specs))
	returned := false
	for i, sp := range specs {
		if sp.depth == 0 {
			for j := i + 1; j < len(specs) && specs[j].depth == 1; j++ {
				if state[j] == acted || state[j] == waited && state[i] == "" {
					state[i] = state[j]
				}
			}
		}
		st := state[i]
		switch {
		case st != "":
		case returned && i < len(specs)-1:
			st = skipped
		default:
			st = idle
		}
		out[i] = Call{Name: sp.name, Depth: sp.depth, State: st, Only: sp.only, Note: strings.Join(notes[i], "; ")}
		if sp.depth == 0 && sp.returnsOn != "" && st == sp.returnsOn {
			returned = true
		}
	}
	return out
}

// indexOf returns the call of specs whose rule r is, -1 if none.
func indexOf(specs []callSpec, r action.Rule) int {
	for i, sp := range specs {
		for _, x := range sp.rules {
			if x == r {
				return i
			}
		}
	}
	return -1
}

func values(r action.Reason) map[string]int64 {
	out := map[string]int64{}
	for _, v := range r.Values {
		out[v.Name] = v.Int
	}
	return out
}
