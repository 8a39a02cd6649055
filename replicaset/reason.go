package replicaset

import (
	"fmt"
	"strings"

	"github.com/deploysync/deploysync/action"
)

// Rule identifies a decision of the ReplicaSet controller. The values are
// the constants' names without "Rule"; they are stable, so tools may switch
// on them. Each constant's documentation says what the rule decides, then
// the names of its values in order.
type Rule string

// The rules of a ReplicaSet sync.
const (
	// RuleCreatePods: fewer active pods than spec.replicas; create the
	// difference, at most burst. Values: replicaSet, active, replicas,
	// create, burst, batches.
	RuleCreatePods Rule = "CreatePods"
	// RuleDeletePods: more active pods than spec.replicas; delete the
	// difference, at most burst. Values: replicaSet, active, replicas,
	// delete, burst.
	RuleDeletePods Rule = "DeletePods"
	// RuleDeleteRanked: a pod is among the first of upstream's deletion
	// order. Values: pod, position, of, node, onNode, phase, ready, cost,
	// restarts.
	RuleDeleteRanked Rule = "DeleteRanked"
	// RuleDeleteAll: every active pod goes, so upstream does not sort.
	// Values: pod, position, of.
	RuleDeleteAll Rule = "DeleteAll"
	// RuleAdoptPod: an orphan active pod whose labels match the selector is
	// adopted. Values: pod, replicaSet.
	RuleAdoptPod Rule = "AdoptPod"
	// RuleReleasePod: an owned active pod whose labels no longer match the
	// selector is released. Values: pod, replicaSet.
	RuleReleasePod Rule = "ReleasePod"
	// RuleStatus: the status changes. Values: replicas, fullyLabeled, ready,
	// available, minReadySeconds, terminating, observedGeneration.
	RuleStatus Rule = "Status"
	// RuleFailureSet: a pod write failed and no ReplicaFailure condition is
	// there yet. Values: reason, message.
	RuleFailureSet Rule = "FailureSet"
	// RuleFailureKept: a pod write failed and a ReplicaFailure condition is
	// already there; upstream keeps it as it is. Values: reason.
	RuleFailureKept Rule = "FailureKept"
	// RuleFailureCleared: the pod writes succeed; the ReplicaFailure
	// condition goes. Values: reason.
	RuleFailureCleared Rule = "FailureCleared"
	// RuleRequeueAvailable: some ready pods are not yet available; look
	// again when the first becomes available. Values: after, pod,
	// minReadySeconds, ready, available.
	RuleRequeueAvailable Rule = "RequeueAvailable"
	// RuleRequeueMinReady: some ready pods are not available and none
	// becomes so later (no ready time); look again after minReadySeconds.
	// Values: minReadySeconds, ready, available.
	RuleRequeueMinReady Rule = "RequeueMinReady"
	// RuleRequeueAllReady: (1.33) every wanted pod is ready and not every
	// one available; look again after minReadySeconds. Values:
	// minReadySeconds, ready, available.
	RuleRequeueAllReady Rule = "RequeueAllReady"
	// RuleInSync: (a plan's Why) as many active pods as spec.replicas.
	// Values: active, replicas.
	RuleInSync Rule = "InSync"
	// RuleBeingDeleted: (a plan's Why) the ReplicaSet is being deleted: no
	// pod is created, deleted, adopted or released.
	RuleBeingDeleted Rule = "BeingDeleted"
	// RuleExpectationsPending: (a plan's Why) earlier creates or deletes are
	// not yet observed; the sync only writes the status. Values: active,
	// replicas.
	RuleExpectationsPending Rule = "ExpectationsPending"
	// RuleWritesFail: (a plan's Why) the pod writes of this sync fail
	// ([State.PodWriteError]); the sync returns the error and is retried
	// with backoff instead of requeued. Values: message.
	RuleWritesFail Rule = "WritesFail"
)

// sentences holds each rule's value names and its sentence (a fmt format
// taking the values in order).
var sentences = map[Rule]struct{ values, format string }{
	RuleCreatePods: {"replicaSet active replicas create burst batches",
		"%s has %d active pods and wants %d: create %d (at most %d a sync), in slow-start batches %s"},
	RuleDeletePods: {"replicaSet active replicas delete burst",
		"%s has %d active pods and wants %d: delete %d (at most %d a sync)"},
	RuleDeleteRanked: {"pod position of node onNode phase ready cost restarts",
		"delete pod %s, %d of %d in the deletion order: node %q with %d related active pods, phase %s, %s, deletion cost %d, most restarts %d"},
	RuleDeleteAll: {"pod position of",
		"delete pod %s (%d of %d): every active pod goes, unsorted"},
	RuleAdoptPod:   {"pod replicaSet", "adopt orphan pod %s: its labels match the selector of %s"},
	RuleReleasePod: {"pod replicaSet", "release pod %s: its labels no longer match the selector of %s"},
	RuleStatus: {"replicas fullyLabeled ready available minReadySeconds terminating observedGeneration",
		"status: replicas %d, fully labeled %d, ready %d, available %d (minReadySeconds %d), terminating %s, observed generation %d"},
	RuleFailureSet:       {"reason message", "set condition ReplicaFailure (%s): %s"},
	RuleFailureKept:      {"reason", "keep the ReplicaFailure condition (%s) as it is"},
	RuleFailureCleared:   {"reason", "remove the ReplicaFailure condition (%s): the pod writes succeed"},
	RuleRequeueAvailable: {"after pod minReadySeconds ready available", "look again in %s, when pod %s has been ready for minReadySeconds %d (%d ready, %d available)"},
	RuleRequeueMinReady:  {"minReadySeconds ready available", "look again after minReadySeconds %d: %d ready, %d available, and no ready time says when more become available"},
	RuleRequeueAllReady:  {"minReadySeconds ready available", "look again after minReadySeconds %d: all %d wanted pods are ready, %d available"},
	RuleInSync:           {"active replicas", "%d active pods, %d wanted: nothing to create or delete"},
	RuleBeingDeleted:     {"", "the ReplicaSet is being deleted: no pod is created, deleted, adopted or released"},
	RuleExpectationsPending: {"active replicas",
		"earlier creates or deletes are not yet observed: %d active pods, %d wanted, nothing created or deleted this sync"},
	RuleWritesFail: {"message", "the pod writes fail (%s): the sync returns the error and is retried with backoff"},
}

// Reason is why a decision follows from the state: its [Rule] and the
// values the rule used, in the order its documentation names them. The
// values are the root package's [action.Value]s.
type Reason struct {
	Rule   Rule
	Values []action.Value
}

// because builds a reason.
func because(rule Rule, values ...action.Value) Reason { return Reason{Rule: rule, Values: values} }

// Value returns the value called name and whether the reason has one.
func (r Reason) Value(name string) (action.Value, bool) {
	for _, v := range r.Values {
		if v.Name == name {
			return v, true
		}
	}
	return action.Value{}, false
}

// String renders the reason as its rule's sentence; a rule this package
// does not define, or values that are not the rule's, render as the rule's
// name followed by name=value pairs.
func (r Reason) String() string {
	s, ok := sentences[r.Rule]
	if !ok || !r.fits(s.values) {
		var b strings.Builder
		b.WriteString(string(r.Rule))
		for _, v := range r.Values {
			b.WriteString(" " + v.Name + "=" + v.String())
		}
		return b.String()
	}
	args := make([]any, len(r.Values))
	for i, v := range r.Values {
		if v.IsText {
			args[i] = v.Text
		} else {
			args[i] = v.Int
		}
	}
	return fmt.Sprintf(s.format, args...)
}

// fits reports whether the reason's value names are names, in order.
func (r Reason) fits(names string) bool {
	want := strings.Fields(names)
	if len(want) != len(r.Values) {
		return false
	}
	for i, n := range want {
		if r.Values[i].Name != n {
			return false
		}
	}
	return true
}
