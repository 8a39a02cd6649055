package replicaset

import (
	"reflect"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/kversion"
)

// The reasons of the ReplicaFailure condition, upstream's.
const (
	ReasonFailedCreate = "FailedCreate"
	ReasonFailedDelete = "FailedDelete"
)

// failureMessage is the error upstream's manageReplicas returns for a
// failed pod write: a create's error as the apiserver words it, a delete's
// wrapped.
func failureMessage(diff int, msg string) string {
	if diff > 0 {
		return "unable to delete pods: " + msg
	}
	return msg
}

// status computes the status upstream's calculateStatus gives after the
// pod writes (failed says whether one failed) and plans its write unless
// updateReplicaSetStatus would skip it.
func (p *Plan) status(rs *appsv1.ReplicaSet, active, terminating []*corev1.Pod, gate, failed bool, state State, m kversion.Minor) {
	st := *rs.Status.DeepCopy()
	var why action.Reasons
	templ := rs.Spec.Template.Labels
	labeled, ready, available := 0, 0, 0
	for _, pod := range active {
		if hasLabels(pod.Labels, templ) {
			labeled++
		}
		if c := readyCondition(pod); c != nil && c.Status == corev1.ConditionTrue {
			ready++
			if availableAt(c, rs.Spec.MinReadySeconds, state.Now, m) {
				available++
			}
		}
	}
	var term *int32
	if gate {
		term = ptr.To(int32(len(terminating)))
	}
	cur := facts.ReplicaFailure(rs.Status.Conditions)
	switch {
	case failed && cur == nil:
		reason := ReasonFailedCreate
		if p.Diff > 0 {
			reason = ReasonFailedDelete
		}
		msg := failureMessage(p.Diff, state.PodWriteError)
		st.Conditions = append(facts.WithoutReplicaFailure(st.Conditions), appsv1.ReplicaSetCondition{
			Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(state.Now), Reason: reason, Message: msg})
		why = append(why, action.Because(action.RuleFailureSet, action.Str("reason", reason), action.Str("message", msg)))
	case failed:
		why = append(why, action.Because(action.RuleFailureKept, action.Str("reason", cur.Reason)))
	case cur != nil:
		st.Conditions = facts.WithoutReplicaFailure(st.Conditions)
		why = append(why, action.Because(action.RuleFailureCleared, action.Str("reason", cur.Reason)))
	}
	st.Replicas, st.FullyLabeledReplicas = int32(len(active)), int32(labeled)
	st.ReadyReplicas, st.AvailableReplicas = int32(ready), int32(available)
	st.TerminatingReplicas = term
	old := &rs.Status
	if old.Replicas == st.Replicas && old.FullyLabeledReplicas == st.FullyLabeledReplicas &&
		old.ReadyReplicas == st.ReadyReplicas && old.AvailableReplicas == st.AvailableReplicas &&
		ptr.Equal(old.TerminatingReplicas, st.TerminatingReplicas) && rs.Generation == old.ObservedGeneration &&
		reflect.DeepEqual(old.Conditions, st.Conditions) {
		return
	}
	st.ObservedGeneration = rs.Generation
	out := rs.DeepCopy()
	out.Status = st
	termText := "unset"
	if term != nil {
		termText = strconv.Itoa(int(*term))
	}
	why = append(action.Reasons{action.Because(action.RuleReplicaSetStatus, action.Num("replicas", st.Replicas), action.Num("fullyLabeled", st.FullyLabeledReplicas),
		action.Num("ready", st.ReadyReplicas), action.Num("available", st.AvailableReplicas),
		action.Num("minReadySeconds", rs.Spec.MinReadySeconds), action.Str("terminating", termText),
		action.Num("observedGeneration", st.ObservedGeneration))}, why...)
	p.Status = &StatusUpdate{ReplicaSet: out, Why: why}
}

// hasLabels reports whether labels holds every pair of want (the template's
// labels as a selector: an empty template matches every pod).
func hasLabels(labels, want map[string]string) bool {
	for k, v := range want {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// availableAt is upstream's IsPodAvailable for a ready pod's Ready
// condition c: minReadySeconds 0, or a ready time at least minReadySeconds
// before now (1.33: more than minReadySeconds before now, so a pod ready
// exactly minReadySeconds ago is not yet available there).
func availableAt(c *corev1.PodCondition, minReadySeconds int32, now time.Time, m kversion.Minor) bool {
	if minReadySeconds == 0 {
		return true
	}
	if c.LastTransitionTime.IsZero() {
		return false
	}
	at := c.LastTransitionTime.Add(time.Duration(minReadySeconds) * time.Second)
	if !m.AtLeast(kversion.V1_34) {
		return at.Before(now)
	}
	return !at.After(now)
}

// requeue plans upstream's availability check: while minReadySeconds is set
// and some ready pods are not available, look again when the first ready
// pod becomes available, or after minReadySeconds when none will.
func (p *Plan) requeue(rs *appsv1.ReplicaSet, active []*corev1.Pod, now time.Time) {
	st := rs.Status
	if p.Status != nil {
		st = p.Status.ReplicaSet.Status
	}
	mrs := rs.Spec.MinReadySeconds
	if mrs <= 0 || st.ReadyReplicas == st.AvailableReplicas {
		return
	}
	wait := time.Duration(mrs) * time.Second
	var first *corev1.Pod
	var soonest time.Duration
	for _, pod := range active {
		c := readyCondition(pod)
		if c == nil || c.Status != corev1.ConditionTrue || c.LastTransitionTime.IsZero() {
			continue
		}
		if next := c.LastTransitionTime.Add(wait).Sub(now); next > 0 && (first == nil || next < soonest) {
			first, soonest = pod, next
		}
	}
	ready, avail := action.Num("ready", st.ReadyReplicas), action.Num("available", st.AvailableReplicas)
	if first == nil {
		p.RequeueAfter = wait
		p.RequeueWhy = ptr.To(action.Because(action.RuleRequeueMinReady, action.Num("minReadySeconds", mrs), ready, avail))
		return
	}
	p.RequeueAfter = soonest
	p.RequeueWhy = ptr.To(action.Because(action.RuleRequeueAvailable, action.Str("after", soonest.String()), action.Str("pod", first.Name),
		action.Num("minReadySeconds", mrs), ready, avail))
}

// requeue133 is 1.33's look again: after minReadySeconds when every wanted
// pod is ready and not every one is available.
func (p *Plan) requeue133(rs *appsv1.ReplicaSet) {
	st := rs.Status
	if p.Status != nil {
		st = p.Status.ReplicaSet.Status
	}
	mrs := rs.Spec.MinReadySeconds
	if mrs <= 0 || st.ReadyReplicas != *rs.Spec.Replicas || st.AvailableReplicas == *rs.Spec.Replicas {
		return
	}
	p.RequeueAfter = time.Duration(mrs) * time.Second
	p.RequeueWhy = ptr.To(action.Because(action.RuleRequeueAllReady, action.Num("minReadySeconds", mrs),
		action.Num("ready", st.ReadyReplicas), action.Num("available", st.AvailableReplicas)))
}
