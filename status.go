package deploysync

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync/deployutil"
)

// calculateStatus computes the Deployment's status from its ReplicaSets as
// read (before this sync's scaling, as upstream), with the Available
// condition set.
func (s *session) calculateStatus(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) appsv1.DeploymentStatus {
	d := s.d
	available := deployutil.AvailableReplicas(allRSs)
	unavailable := max(deployutil.SpecReplicas(allRSs)-available, 0)
	st := appsv1.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            deployutil.StatusReplicas(allRSs),
		UpdatedReplicas:     deployutil.StatusReplicas([]*appsv1.ReplicaSet{newRS}),
		ReadyReplicas:       deployutil.ReadyReplicas(allRSs),
		AvailableReplicas:   available,
		UnavailableReplicas: unavailable,
		CollisionCount:      d.Status.CollisionCount,
	}
	if s.opts.gateTerminatingReplicas() {
		st.TerminatingReplicas = deployutil.TerminatingReplicas(allRSs)
	}
	st.Conditions = append(st.Conditions, d.Status.Conditions...) // a copy; nil if there are none
	if available >= *d.Spec.Replicas-deployutil.MaxUnavailable(d) {
		deployutil.SetCondition(&st, deployutil.NewCondition(appsv1.DeploymentAvailable, corev1.ConditionTrue,
			deployutil.ReasonMinimumReplicasAvailable, "Deployment has minimum availability.", s.now))
	} else {
		deployutil.SetCondition(&st, deployutil.NewCondition(appsv1.DeploymentAvailable, corev1.ConditionFalse,
			deployutil.ReasonMinimumReplicasUnavailable, "Deployment does not have minimum availability.", s.now))
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
	hasDeadline := deployutil.HasProgressDeadline(d)
	if !hasDeadline {
		deployutil.RemoveCondition(&st, appsv1.DeploymentProgressing)
	}
	cur := deployutil.GetCondition(d.Status, appsv1.DeploymentProgressing)
	complete := st.Replicas == st.UpdatedReplicas && cur != nil && cur.Reason == deployutil.ReasonNewReplicaSetAvailable
	subject := fmt.Sprintf("Deployment %q", d.Name)
	if newRS != nil {
		subject = fmt.Sprintf("ReplicaSet %q", newRS.Name)
	}
	if hasDeadline && !complete {
		switch {
		case deployutil.Complete(d, &st):
			deployutil.SetCondition(&st, deployutil.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
				deployutil.ReasonNewReplicaSetAvailable, subject+" has successfully progressed.", s.now))
		case deployutil.Progressing(d, &st):
			c := deployutil.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
				deployutil.ReasonReplicaSetUpdated, subject+" is progressing.", s.now)
			if cur != nil {
				if cur.Status == corev1.ConditionTrue {
					c.LastTransitionTime = cur.LastTransitionTime
				}
				// Removing first makes the condition fresh even when its
				// reason stays ReplicaSetUpdated: progress restarts the
				// deadline.
				deployutil.RemoveCondition(&st, appsv1.DeploymentProgressing)
			}
			deployutil.SetCondition(&st, c)
		case deployutil.TimedOut(d, &st, s.now):
			deployutil.SetCondition(&st, deployutil.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse,
				deployutil.ReasonProgressDeadlineExceeded, subject+" has timed out progressing.", s.now))
		}
	}
	if failures := replicaFailures(allRSs, newRS); len(failures) > 0 {
		deployutil.SetCondition(&st, failures[0])
	} else {
		deployutil.RemoveCondition(&st, appsv1.DeploymentReplicaFailure)
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
					out = append(out, deployutil.ReplicaSetCondition(c))
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
	if !deployutil.HasProgressDeadline(d) || c == nil {
		return
	}
	if deployutil.Complete(d, st) || c.Reason == deployutil.ReasonProgressDeadlineExceeded {
		return
	}
	after := c.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second).Sub(s.now)
	if after < time.Second {
		s.requeue = true
		return
	}
	s.requeueAfter = after + time.Second
}

// statusWhy describes what a status write changes.
func statusWhy(old, cur *appsv1.DeploymentStatus) string {
	var parts []string
	if old.ObservedGeneration != cur.ObservedGeneration {
		parts = append(parts, fmt.Sprintf("observe generation %d", cur.ObservedGeneration))
	}
	counts := func(s *appsv1.DeploymentStatus) string {
		t := "-"
		if s.TerminatingReplicas != nil {
			t = fmt.Sprint(*s.TerminatingReplicas)
		}
		return fmt.Sprintf("%d/%d/%d/%d/%d/%s", s.Replicas, s.UpdatedReplicas, s.ReadyReplicas, s.AvailableReplicas, s.UnavailableReplicas, t)
	}
	if a, b := counts(old), counts(cur); a != b {
		parts = append(parts, "replicas/updated/ready/available/unavailable/terminating "+a+" → "+b)
	}
	for _, c := range cur.Conditions {
		o := deployutil.GetCondition(*old, c.Type)
		if o == nil || o.Status != c.Status || o.Reason != c.Reason || o.Message != c.Message || !o.LastUpdateTime.Equal(&c.LastUpdateTime) {
			parts = append(parts, fmt.Sprintf("%s=%s (%s)", c.Type, c.Status, c.Reason))
		}
	}
	for _, c := range old.Conditions {
		if deployutil.GetCondition(*cur, c.Type) == nil {
			parts = append(parts, fmt.Sprintf("drop %s", c.Type))
		}
	}
	if len(parts) == 0 {
		return "refresh the status"
	}
	return "status: " + strings.Join(parts, ", ")
}
