package deploysync

import (
	"fmt"
	"reflect"
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
			action.ReasonMinimumReplicasAvailable, "Deployment has minimum availability.", s.now))
	} else {
		facts.SetCondition(&st, facts.NewCondition(appsv1.DeploymentAvailable, corev1.ConditionFalse,
			action.ReasonMinimumReplicasUnavailable, "Deployment does not have minimum availability.", s.now))
	}
	return st
}

// syncDeploymentStatus writes the computed status if it differs; it does not
// judge progress (the paused, scaling and deleting paths).
func (s *session) syncDeploymentStatus(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) {
	st := s.calculateStatus(allRSs, newRS)
	if reflect.DeepEqual(s.d.Status, st) {
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
	cur := deployutil.GetCondition(d.Status, appsv1.DeploymentProgressing)
	complete := st.Replicas == st.UpdatedReplicas && cur != nil && cur.Reason == action.ReasonNewReplicaSetAvailable
	subject := fmt.Sprintf("Deployment %q", d.Name)
	if newRS != nil {
		subject = fmt.Sprintf("ReplicaSet %q", newRS.Name)
	}
	if hasDeadline && !complete && !s.limitProgress(&st, cur, subject) {
		switch {
		case facts.Complete(d, &st):
			facts.SetCondition(&st, facts.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
				action.ReasonNewReplicaSetAvailable, subject+" has successfully progressed.", s.now))
		case facts.Progressing(d, &st):
			c := facts.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
				action.ReasonReplicaSetUpdated, subject+" is progressing.", s.now)
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
				action.ReasonProgressDeadlineExceeded, subject+" has timed out progressing.", s.now))
		}
	}
	if failures := replicaFailures(allRSs, newRS); len(failures) > 0 {
		facts.SetCondition(&st, failures[0])
	} else {
		facts.RemoveCondition(&st, appsv1.DeploymentReplicaFailure)
	}
	if reflect.DeepEqual(d.Status, st) {
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
	c := deployutil.GetCondition(d.Status, appsv1.DeploymentProgressing)
	if !facts.HasProgressDeadline(d) || c == nil {
		return
	}
	if facts.Complete(d, st) || c.Reason == action.ReasonProgressDeadlineExceeded || s.limitHolds(c) {
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
	var vs []action.Value
	if old.ObservedGeneration != cur.ObservedGeneration {
		vs = append(vs, action.Num("observedGeneration", cur.ObservedGeneration))
	}
	count := func(name string, a, b int32) {
		if a != b {
			vs = append(vs, action.Num(name+".from", a), action.Num(name+".to", b))
		}
	}
	count("replicas", old.Replicas, cur.Replicas)
	count("updatedReplicas", old.UpdatedReplicas, cur.UpdatedReplicas)
	count("readyReplicas", old.ReadyReplicas, cur.ReadyReplicas)
	count("availableReplicas", old.AvailableReplicas, cur.AvailableReplicas)
	count("unavailableReplicas", old.UnavailableReplicas, cur.UnavailableReplicas)
	if a, b := old.TerminatingReplicas, cur.TerminatingReplicas; !ptr.Equal(a, b) {
		vs = append(vs, optCount("terminatingReplicas.from", a), optCount("terminatingReplicas.to", b))
	}
	for _, c := range cur.Conditions {
		o := deployutil.GetCondition(*old, c.Type)
		if o == nil || o.Status != c.Status || o.Reason != c.Reason || o.Message != c.Message || !o.LastUpdateTime.Equal(&c.LastUpdateTime) {
			vs = append(vs, action.Str(string(c.Type)+".status", string(c.Status)), action.Str(string(c.Type)+".reason", c.Reason))
		}
	}
	for _, c := range old.Conditions {
		if deployutil.GetCondition(*cur, c.Type) == nil {
			vs = append(vs, action.Str("drop", string(c.Type)))
		}
	}
	return action.Because(action.RuleStatus, vs...)
}

// optCount is the value of an optional count: the number, or "-" when it
// is unset.
func optCount(name string, n *int32) action.Value {
	if n == nil {
		return action.Str(name, "-")
	}
	return action.Num(name, *n)
}
