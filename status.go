package deploysync

import (
	"reflect"
	"slices"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
)

// calculateStatus computes the Deployment's status from its ReplicaSets as
// read (before this sync's scaling, as upstream), with the Available
// condition set.
func (s *session) calculateStatus(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) appsv1.DeploymentStatus {
	d := s.d
	available := facts.AvailableReplicas(allRSs)
	unavailable := max(facts.SpecReplicas(allRSs)-available, 0)
	st := appsv1.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            facts.StatusReplicas(allRSs),
		UpdatedReplicas:     facts.StatusReplicas([]*appsv1.ReplicaSet{newRS}),
		ReadyReplicas:       facts.ReadyReplicas(allRSs),
		AvailableReplicas:   available,
		UnavailableReplicas: unavailable,
		CollisionCount:      d.Status.CollisionCount,
	}
	if s.opts.gateTerminatingReplicas() {
		st.TerminatingReplicas = facts.TerminatingReplicas(allRSs)
	}
	st.Conditions = append(st.Conditions, d.Status.Conditions...) // a copy; nil if there are none
	if available >= *d.Spec.Replicas-facts.MaxUnavailable(d) {
		facts.SetCondition(&st, facts.NewCondition(appsv1.DeploymentAvailable, corev1.ConditionTrue,
			deployutil.ReasonMinimumReplicasAvailable, "Deployment has minimum availability.", s.now))
	} else {
		facts.SetCondition(&st, facts.NewCondition(appsv1.DeploymentAvailable, corev1.ConditionFalse,
			deployutil.ReasonMinimumReplicasUnavailable, "Deployment does not have minimum availability.", s.now))
	}
	return st
}

// syncDeploymentStatus writes the computed status if it differs; it does not
// judge progress (the paused, scaling and deleting paths).
func (s *session) syncDeploymentStatus(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) {
	st := s.calculateStatus(allRSs, newRS)
	if sameStatus(&s.d.Status, &st) {
		return
	}
	why := statusWhy(&s.d.Status, &st)
	s.d.Status = st
	s.updateStatus(why)
}

// syncRolloutStatus writes the computed status with the Progressing
// condition judged, or, if nothing changed, schedules the next look at the
// progress deadline.
func (s *session) syncRolloutStatus(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) {
	d := s.d
	st := s.calculateStatus(allRSs, newRS)
	hasDeadline := facts.HasProgressDeadline(d)
	if !hasDeadline {
		facts.RemoveCondition(&st, appsv1.DeploymentProgressing)
	}
	cur := facts.Condition(&d.Status, appsv1.DeploymentProgressing)
	complete := st.Replicas == st.UpdatedReplicas && cur != nil && cur.Reason == deployutil.ReasonNewReplicaSetAvailable
	var subject string
	if newRS != nil {
		subject = "ReplicaSet " + strconv.Quote(newRS.Name)
	} else {
		subject = "Deployment " + strconv.Quote(d.Name)
	}
	if hasDeadline && !complete {
		switch lc, replace, limited := s.limits.Progressing(d, &st, cur, subject, s.now); {
		case limited:
			// WithLimits decides: a hold, or the end of one.
			if replace {
				facts.RemoveCondition(&st, appsv1.DeploymentProgressing)
			}
			facts.SetCondition(&st, lc)
		case facts.Complete(d, &st):
			facts.SetCondition(&st, facts.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
				deployutil.ReasonNewReplicaSetAvailable, subject+" has successfully progressed.", s.now))
		case facts.Progressing(d, &st):
			c := facts.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
				deployutil.ReasonReplicaSetUpdated, subject+" is progressing.", s.now)
			if cur != nil {
				if cur.Status == corev1.ConditionTrue {
					c.LastTransitionTime = cur.LastTransitionTime
				}
				// Removing first makes the condition fresh even when its
				// reason stays ReplicaSetUpdated: progress restarts the
				// deadline.
				facts.RemoveCondition(&st, appsv1.DeploymentProgressing)
			}
			facts.SetCondition(&st, c)
		case facts.TimedOut(d, &st, s.now):
			facts.SetCondition(&st, facts.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse,
				deployutil.ReasonProgressDeadlineExceeded, subject+" has timed out progressing.", s.now))
		}
	}
	if failures := replicaFailures(allRSs, newRS); len(failures) > 0 {
		facts.SetCondition(&st, failures[0])
	} else {
		facts.RemoveCondition(&st, appsv1.DeploymentReplicaFailure)
	}
	if sameStatus(&d.Status, &st) {
		s.requeueStuck(&st)
		return
	}
	why := statusWhy(&d.Status, &st)
	d.Status = st
	s.updateStatus(why)
}

// replicaFailures returns the ReplicaFailure conditions of the new
// ReplicaSet, or if it has none, those of all ReplicaSets in order.
func replicaFailures(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) []appsv1.DeploymentCondition {
	collect := func(rss []*appsv1.ReplicaSet) []appsv1.DeploymentCondition {
		var out []appsv1.DeploymentCondition
		for _, rs := range rss {
			if rs == nil {
				continue
			}
			for _, c := range rs.Status.Conditions {
				if c.Type == appsv1.ReplicaSetReplicaFailure {
					out = append(out, facts.ReplicaSetCondition(c))
				}
			}
		}
		return out
	}
	if newRS != nil {
		if out := collect([]*appsv1.ReplicaSet{newRS}); len(out) > 0 {
			return out
		}
	}
	return collect(allRSs)
}

// requeueStuck schedules the next sync at the progress deadline, when the
// rollout is neither complete nor already timed out.
func (s *session) requeueStuck(st *appsv1.DeploymentStatus) {
	d := s.d
	c := facts.Condition(&d.Status, appsv1.DeploymentProgressing)
	if !facts.HasProgressDeadline(d) || c == nil {
		return
	}
	if facts.Complete(d, st) || c.Reason == deployutil.ReasonProgressDeadlineExceeded || s.limits.Holds(c) {
		return
	}
	after := c.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second).Sub(s.now)
	if after < time.Second {
		s.requeue = true
		return
	}
	s.requeueAfter = after + time.Second
}

// statusWhy describes what a status write changes, field by field (see
// action.RuleStatus).
func statusWhy(old, cur *appsv1.DeploymentStatus) action.Reason {
	var buf [16]action.Value // the values gathered here, copied once at the end
	vs := buf[:0]
	if old.ObservedGeneration != cur.ObservedGeneration {
		vs = append(vs, action.Num("observedGeneration", cur.ObservedGeneration))
	}
	vs = appendCount(vs, "replicas.from", "replicas.to", old.Replicas, cur.Replicas)
	vs = appendCount(vs, "updatedReplicas.from", "updatedReplicas.to", old.UpdatedReplicas, cur.UpdatedReplicas)
	vs = appendCount(vs, "readyReplicas.from", "readyReplicas.to", old.ReadyReplicas, cur.ReadyReplicas)
	vs = appendCount(vs, "availableReplicas.from", "availableReplicas.to", old.AvailableReplicas, cur.AvailableReplicas)
	vs = appendCount(vs, "unavailableReplicas.from", "unavailableReplicas.to", old.UnavailableReplicas, cur.UnavailableReplicas)
	if a, b := old.TerminatingReplicas, cur.TerminatingReplicas; !ptr.Equal(a, b) {
		vs = append(vs, optCount("terminatingReplicas.from", a), optCount("terminatingReplicas.to", b))
	}
	for i := range cur.Conditions {
		c := &cur.Conditions[i]
		o := facts.Condition(old, c.Type)
		if o == nil || o.Status != c.Status || o.Reason != c.Reason || o.Message != c.Message || !o.LastUpdateTime.Equal(&c.LastUpdateTime) {
			status, reason := conditionValueNames(c.Type)
			vs = append(vs, action.Str(status, string(c.Status)), action.Str(reason, c.Reason))
		}
	}
	for i := range old.Conditions {
		if facts.Condition(cur, old.Conditions[i].Type) == nil {
			vs = append(vs, action.Str("drop", string(old.Conditions[i].Type)))
		}
	}
	if len(vs) == 0 {
		return action.Because(action.RuleStatus)
	}
	return action.Because(action.RuleStatus, slices.Clone(vs)...)
}

// appendCount appends a count's change, if it changed, as two values.
func appendCount(vs []action.Value, from, to string, a, b int32) []action.Value {
	if a != b {
		vs = append(vs, action.Num(from, a), action.Num(to, b))
	}
	return vs
}

// conditionValueNames names the values of a changed condition in a status
// reason: "<type>.status" and "<type>.reason" (constants for the types the
// controller writes).
func conditionValueNames(t appsv1.DeploymentConditionType) (status, reason string) {
	switch t {
	case appsv1.DeploymentAvailable:
		return "Available.status", "Available.reason"
	case appsv1.DeploymentProgressing:
		return "Progressing.status", "Progressing.reason"
	case appsv1.DeploymentReplicaFailure:
		return "ReplicaFailure.status", "ReplicaFailure.reason"
	}
	return string(t) + ".status", string(t) + ".reason"
}

// sameStatus is reflect.DeepEqual on two statuses, as upstream compares the
// status it computed with the one it read, without boxing them: every field
// of DeploymentStatus and DeploymentCondition (TestSameStatusFields fails
// when k8s.io/api adds one). A slice is nil or not on both sides, as
// reflect.DeepEqual requires; times are equal when == says so (the same
// instant, monotonic reading and location), otherwise as reflect.DeepEqual
// says (a location deeply equal but at another address).
func sameStatus(a, b *appsv1.DeploymentStatus) bool {
	if a.ObservedGeneration != b.ObservedGeneration || a.Replicas != b.Replicas || a.UpdatedReplicas != b.UpdatedReplicas ||
		a.ReadyReplicas != b.ReadyReplicas || a.AvailableReplicas != b.AvailableReplicas || a.UnavailableReplicas != b.UnavailableReplicas ||
		!ptr.Equal(a.TerminatingReplicas, b.TerminatingReplicas) || !ptr.Equal(a.CollisionCount, b.CollisionCount) ||
		(a.Conditions == nil) != (b.Conditions == nil) || len(a.Conditions) != len(b.Conditions) {
		return false
	}
	for i := range a.Conditions {
		x, y := &a.Conditions[i], &b.Conditions[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message ||
			!sameTime(x.LastUpdateTime.Time, y.LastUpdateTime.Time) || !sameTime(x.LastTransitionTime.Time, y.LastTransitionTime.Time) {
			return false
		}
	}
	return true
}

func sameTime(a, b time.Time) bool {
	return a == b || reflect.DeepEqual(a, b)
}

// optCount is the value of an optional count: the number, or "-" when it
// is unset.
func optCount(name string, n *int32) action.Value {
	if n == nil {
		return action.Str(name, "-")
	}
	return action.Num(name, *n)
}
