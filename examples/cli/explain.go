package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/diagnose"
	"github.com/deploysync/deploysync/simulate"
)

// staleDesired returns an active ReplicaSet of the Deployment whose
// desired-replicas annotation differs from the Deployment's spec.replicas:
// while one exists, every sync is a scaling event.
func staleDesired(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (*appsv1.ReplicaSet, int32, bool) {
	for _, rs := range ownReplicaSets(d, rss) {
		if ptr.Deref(rs.Spec.Replicas, 0) == 0 {
			continue
		}
		if n, ok := desiredReplicas(rs); ok && n != *d.Spec.Replicas {
			return rs, n, true
		}
	}
	return nil, 0, false
}

// staleExplanation explains the deadlock of kubernetes/kubernetes#102551 and
// names the fix.
func staleExplanation(d *appsv1.Deployment, rs *appsv1.ReplicaSet, desired int32) string {
	return fmt.Sprintf("ReplicaSet %s has %d replicas, as the Deployment asks, but its desired-replicas annotation still says %d: "+
		"every sync takes this for a scaling event, finds nothing to resize and writes nothing, so the annotation stays stale and the rollout never starts "+
		"(upstream bug kubernetes/kubernetes#102551; kube-controller-manager v1.37 behaves the same). "+
		"The library's opt-in fix %s refreshes the annotation: try --fix %s",
		rs.Name, *rs.Spec.Replicas, desired, deploysync.FixStaleDesiredReplicas, deploysync.FixStaleDesiredReplicas)
}

// idleReason says why a plan without actions does nothing.
func idleReason(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, p deploysync.Plan, fixes []deploysync.Fix) string {
	mine := ownReplicaSets(d, rss)
	replicas := *d.Spec.Replicas
	switch p.Branch {
	case deploysync.Paused:
		return "the Deployment is paused (spec.paused): the controller keeps the ReplicaSets at their sizes and rolls nothing out until it is resumed"
	case deploysync.SelectingAll:
		return "the Deployment's selector is empty: the controller does nothing with it"
	case deploysync.Deleting:
		return "the Deployment is being deleted and its status is up to date"
	case deploysync.ScalingEvent:
		if rs, n, ok := staleDesired(d, mine); ok && !hasFix(fixes, deploysync.FixStaleDesiredReplicas) {
			return staleExplanation(d, rs, n)
		}
		return "the ReplicaSets already have the sizes the scaling asks for"
	}
	var updated, available, total int32
	for _, rs := range mine {
		available += rs.Status.AvailableReplicas
		total += ptr.Deref(rs.Spec.Replicas, 0)
		if deployutil.EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			updated = rs.Status.AvailableReplicas
		}
	}
	if updated >= replicas && total == replicas && available >= replicas {
		return fmt.Sprintf("the rollout is complete: all %d replicas are updated and available, the status already says so, and no old ReplicaSet is beyond revisionHistoryLimit", replicas)
	}
	if p.Branch == deploysync.Recreate {
		return fmt.Sprintf("Recreate waits for pods: %d of %d replicas of the new template are available; nothing changes until a pod does", updated, replicas)
	}
	surge, unavailable := fenceposts(d)
	return fmt.Sprintf("the rollout waits for pods: %d of %d replicas of the new template are available, %d pods are available in all, "+
		"and the ReplicaSets ask for %d; maxSurge %d allows at most %d and maxUnavailable %d needs at least %d available, "+
		"so no ReplicaSet can change until more new pods become available (the controller syncs again when a pod changes)",
		updated, replicas, available, total, surge, replicas+surge, unavailable, replicas-unavailable)
}

func hasFix(fixes []deploysync.Fix, f deploysync.Fix) bool {
	for _, x := range fixes {
		if x == f {
			return true
		}
	}
	return false
}

// requeueReason says why a plan asks for an immediate requeue: the progress
// deadline is less than a second away.
func requeueReason(d *appsv1.Deployment, now metav1.Time) string {
	c := deployutil.GetCondition(d.Status, appsv1.DeploymentProgressing)
	if c == nil || d.Spec.ProgressDeadlineSeconds == nil {
		return ""
	}
	deadline := c.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second)
	return fmt.Sprintf("why requeue: the progress deadline (Progressing last updated %s + progressDeadlineSeconds %d = %s) has passed or is less than a second away (now %s) "+
		"while the rollout is neither complete nor marked failed: the controller checks it again at once, through its rate-limited queue",
		c.LastUpdateTime.UTC().Format(time.RFC3339), *d.Spec.ProgressDeadlineSeconds, deadline.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
}

// outcomeNote explains how a run ended when it did not complete.
func outcomeNote(tl *simulate.Timeline, fixes []deploysync.Fix) string {
	d := tl.Final.Deployment
	switch tl.Outcome {
	case simulate.DeadlineExceeded:
		c := deployutil.GetCondition(d.Status, appsv1.DeploymentProgressing)
		msg := ""
		if c != nil {
			msg = ": " + c.Message
		}
		return withReplicaFailure(fmt.Sprintf("the rollout made no progress for progressDeadlineSeconds (%d s) and the controller marked it failed%s",
			ptrOr(d.Spec.ProgressDeadlineSeconds), msg), tl.Final)
	case simulate.Stalled:
		if rs, n, ok := staleDesired(d, tl.Final.ReplicaSets); ok && !hasFix(fixes, deploysync.FixStaleDesiredReplicas) {
			return "the rollout stalled: " + staleExplanation(d, rs, n)
		}
		if s, ok := droppedStep(tl); ok {
			return fmt.Sprintf("the rollout stalled: the new ReplicaSet's create failed %d times in a row (%v), and the controller dropped the Deployment after 15 retries; "+
				"it syncs it again only when the Deployment changes (an edit, an annotation, kubectl rollout restart)", s.Failures, s.Err)
		}
		if replicaFailure(d) != nil {
			return withReplicaFailure("the rollout stalled: nothing is left to happen, yet it is neither complete nor past a progress deadline", tl.Final)
		}
		return "the rollout stalled: nothing is left to happen, yet it is neither complete nor past a progress deadline (pods that never become ready, and no progressDeadlineSeconds?)"
	case simulate.StepLimit:
		return "the run reached the step limit while still going: raise --max-steps, or --tick for coarser steps"
	case simulate.StoppedPaused:
		return "the Deployment is paused: nothing rolls out until it is resumed"
	case simulate.Held:
		c := deployutil.GetCondition(d.Status, appsv1.DeploymentProgressing)
		return "the rollout is held at --max-updated (Progressing " + c.Reason + "): " + c.Message + " Raise the limit to go on."
	}
	return ""
}

// droppedStep is the last step when its sync failed and the controller
// gave up on the Deployment (--refused-replicasets past 15 retries).
func droppedStep(tl *simulate.Timeline) (simulate.Step, bool) {
	if len(tl.Steps) == 0 || !tl.Steps[len(tl.Steps)-1].Dropped {
		return simulate.Step{}, false
	}
	return tl.Steps[len(tl.Steps)-1], true
}

// replicaFailure is the Deployment's ReplicaFailure condition when True
// (pods the apiserver refuses, --refused-image), else nil.
func replicaFailure(d *appsv1.Deployment) *appsv1.DeploymentCondition {
	c := deployutil.GetCondition(d.Status, appsv1.DeploymentReplicaFailure)
	if c == nil || c.Status != corev1.ConditionTrue {
		return nil
	}
	return c
}

// withReplicaFailure adds to note, a sentence, why pods are missing when
// the Deployment has a ReplicaFailure condition: its reason and message.
func withReplicaFailure(note string, s deploysync.State) string {
	c := replicaFailure(s.Deployment)
	if c == nil {
		return note
	}
	note = strings.TrimSuffix(note, ".") + fmt.Sprintf(". Pods are missing: the ReplicaSet controller cannot create them (ReplicaFailure %s: %s)", c.Reason, c.Message)
	// What diagnose says would let it go on (a full pod quota: what the
	// strategy asks of it, and the ways out).
	causes, err := diagnose.Rollout(s)
	if err != nil {
		return note
	}
	for _, cause := range causes {
		if cause.Kind == diagnose.ReplicaFailure && cause.Unblock != "" {
			return note + ". To go on: " + cause.Unblock
		}
	}
	return note
}

func ptrOr(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// indent prefixes every line but the first.
func indent(s, prefix string) string { return strings.ReplaceAll(s, "\n", "\n"+prefix) }

// checkPodLimit refuses, before the run starts, a simulation whose pods
// would exceed the limit: the ReplicaSets as given, or the Deployment's
// replicas plus maxSurge during the rollout.
func checkPodLimit(m *Manifest, limit int64) error {
	d := m.Deployment
	var specs, now int64
	for _, rs := range ownReplicaSets(d, m.ReplicaSets) {
		if rs.Spec.Replicas != nil {
			specs += int64(*rs.Spec.Replicas)
		}
		now += int64(rs.Status.Replicas)
	}
	var replicas int64
	if d.Spec.Replicas != nil {
		replicas = int64(*d.Spec.Replicas)
	}
	s, _ := fenceposts(d)
	surge := int64(s)
	need := max(specs, now, replicas+surge)
	if need <= limit {
		return nil
	}
	return fmt.Errorf("the rollout needs up to %d pods (spec.replicas %d + maxSurge %d; the ReplicaSets ask for %d and hold %d), more than the pod limit %d: "+
		"raise it with --max-pods %d if the machine has the memory (and --max-steps: the ReplicaSet controller creates at most 500 pods per ReplicaSet and step), "+
		"or simulate a smaller copy of the Deployment (fewer replicas: the decisions are the same arithmetic)",
		need, replicas, surge, specs, now, limit, need)
}

// fenceposts returns a RollingUpdate's maxSurge and maxUnavailable as the
// controller uses them (maxUnavailable at most spec.replicas); 0 and 0 for
// Recreate, or if they do not resolve (Sync then says why).
func fenceposts(d *appsv1.Deployment) (surge, unavailable int32) {
	s, u, err := deployutil.Fenceposts(d)
	if err != nil || d.Spec.Replicas == nil {
		return 0, 0
	}
	return s, min(u, *d.Spec.Replicas)
}

// desiredReplicas reads a ReplicaSet's desired-replicas annotation as the
// controller does: an integer in [0, 2³¹−1], or not there.
func desiredReplicas(rs *appsv1.ReplicaSet) (int32, bool) {
	v, ok := rs.Annotations[deployutil.DesiredReplicasAnnotation]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil || n > math.MaxInt32 {
		return 0, false
	}
	return int32(n), true
}
