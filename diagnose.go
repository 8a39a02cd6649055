package deploysync

import (
	"errors"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/podindex"
)

// CauseReason names one kind of thing that holds a rollout back.
type CauseReason string

// The causes [Diagnose] names, in the order it lists them (most important
// first).
const (
	// CauseDeadlineExceeded: Progressing is False with reason
	// ProgressDeadlineExceeded, or the next sync marks it so.
	CauseDeadlineExceeded CauseReason = "ProgressDeadlineExceeded"
	// CauseReplicaFailure: the ReplicaSet controller cannot create pods
	// (quota, admission, pod security): a ReplicaFailure condition.
	CauseReplicaFailure CauseReason = "ReplicaFailure"
	// CauseHashCollision: the new ReplicaSet's name is taken; the sync
	// raises status.collisionCount and creates nothing.
	CauseHashCollision CauseReason = "HashCollision"
	// CauseStaleDesiredReplicas: a desired-replicas annotation that no
	// longer matches spec.replicas sends every sync down the scaling branch
	// without changing anything (kubernetes#102551).
	CauseStaleDesiredReplicas CauseReason = "StaleDesiredReplicas"
	// CausePaused: the Deployment is paused, so its template is not rolled
	// out.
	CausePaused CauseReason = "Paused"
	// CauseRecreateWaiting: a Recreate rollout waits until no old pod runs.
	CauseRecreateWaiting CauseReason = "RecreateWaitingForOldPods"
	// CauseNewPodsUnavailable: pods of the new ReplicaSet are not yet
	// available (not ready, or not ready for minReadySeconds).
	CauseNewPodsUnavailable CauseReason = "NewPodsUnavailable"
	// CauseScaleDownBlocked: old ReplicaSets may not shrink, because that
	// would leave fewer than replicas − maxUnavailable pods available.
	CauseScaleDownBlocked CauseReason = "ScaleDownBlocked"
	// CauseSurgeExhausted: the new ReplicaSet may not grow, because the
	// ReplicaSets already hold replicas + maxSurge pods.
	CauseSurgeExhausted CauseReason = "SurgeExhausted"
	// CauseSelectorOverlap: a ReplicaSet of another Deployment matches this
	// Deployment's selector.
	CauseSelectorOverlap CauseReason = "SelectorOverlap"
	// CauseOrphanAdoption: a ReplicaSet without a controller matches the
	// selector; the next sync adopts it.
	CauseOrphanAdoption CauseReason = "OrphanAdoption"
	// CauseNextSync: nothing blocks; the controller has work to do on its
	// next sync (it has not acted on the latest state yet).
	CauseNextSync CauseReason = "NextSync"
)

// Cause is one thing that holds a rollout back.
type Cause struct {
	// Reason is the kind of cause.
	Reason CauseReason `json:"reason"`
	// Message says what holds the rollout back, with its numbers.
	Message string `json:"message"`
	// Unblock says what would let the rollout go on.
	Unblock string `json:"unblock"`
}

// String is "Reason: Message (Unblock)".
func (c Cause) String() string {
	return fmt.Sprintf("%s: %s (%s)", c.Reason, c.Message, c.Unblock)
}

// Diagnose says what holds a rollout back, most important first; a
// completed rollout (the new ReplicaSet at spec.replicas with every replica
// available, no old or terminating pod left, the latest generation
// observed) gets none. It takes the state and options [Sync] takes, runs
// Sync on it (and once more after [Apply], to tell a scaling event that
// never ends), and refuses what Sync refuses.
func Diagnose(s State, opts ...Option) ([]Cause, error) {
	plan, err := Sync(s, opts...)
	if err != nil {
		return nil, err
	}
	d := s.Deployment
	claimed := ownedOrAdoptable(d, s.ReplicaSets)
	newRS, old := facts.SplitReplicaSets(d, claimed)
	if complete(d, newRS, old) {
		return nil, nil
	}
	dg := diagnosis{s: s, d: d, newRS: newRS, old: old, plan: plan}
	dg.deadline()
	dg.replicaFailure()
	dg.collision()
	dg.staleDesiredReplicas(opts)
	dg.paused()
	dg.recreate(claimed)
	dg.newPods()
	dg.fenceposts()
	dg.strangers()
	dg.nextSync()
	return dg.causes, nil
}

type diagnosis struct {
	s      State
	d      *appsv1.Deployment
	newRS  *appsv1.ReplicaSet
	old    []*appsv1.ReplicaSet
	plan   Plan
	causes []Cause
}

func (dg *diagnosis) add(r CauseReason, unblock, format string, args ...any) {
	dg.causes = append(dg.causes, Cause{Reason: r, Message: fmt.Sprintf(format, args...), Unblock: unblock})
}

// complete is the strict notion of done.
func complete(d *appsv1.Deployment, newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) bool {
	if newRS == nil || d.Status.ObservedGeneration < d.Generation {
		return false
	}
	want := *d.Spec.Replicas
	if *newRS.Spec.Replicas != want || newRS.Status.AvailableReplicas < want || newRS.Status.Replicas != want ||
		ptrValue(newRS.Status.TerminatingReplicas) > 0 {
		return false
	}
	for _, rs := range old {
		if *rs.Spec.Replicas != 0 || rs.Status.Replicas != 0 || ptrValue(rs.Status.TerminatingReplicas) > 0 {
			return false
		}
	}
	return true
}

func ptrValue(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// ownedOrAdoptable is what the sync's claim will hold: the ReplicaSets
// the Deployment controls whose labels match, and the orphans it adopts.
func ownedOrAdoptable(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	claimed, _, err := facts.Claim(d, rss)
	if err != nil {
		return nil
	}
	return claimed
}

func (dg *diagnosis) deadline() {
	d := dg.d
	c := deployutil.GetCondition(d.Status, appsv1.DeploymentProgressing)
	if c != nil && c.Reason == action.ReasonProgressDeadlineExceeded {
		since := c.LastTransitionTime.Time
		dg.add(CauseDeadlineExceeded,
			"the controller goes on rolling out: the condition clears once the rollout progresses again; find why it is stuck in the causes below, or roll back (kubectl rollout undo)",
			"no progress for progressDeadlineSeconds (%d s): Progressing is False since %s (%s ago): %s",
			ptrValue(d.Spec.ProgressDeadlineSeconds), since.UTC().Format(time.RFC3339), dg.s.Now.Sub(since).Round(time.Second), c.Message)
		return
	}
	if c == nil || !facts.HasProgressDeadline(d) || d.Spec.Paused {
		return
	}
	if facts.TimedOut(d, &d.Status, dg.s.Now) {
		end := c.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second)
		dg.add(CauseDeadlineExceeded,
			"the next sync marks Progressing False (ProgressDeadlineExceeded); find why it is stuck in the causes below",
			"no progress since %s: the deadline of %d s passed at %s, %s ago",
			c.LastUpdateTime.UTC().Format(time.RFC3339), *d.Spec.ProgressDeadlineSeconds, end.UTC().Format(time.RFC3339), dg.s.Now.Sub(end).Round(time.Second))
	}
}

func (dg *diagnosis) replicaFailure() {
	if c := deployutil.GetCondition(dg.d.Status, appsv1.DeploymentReplicaFailure); c != nil && c.Status == corev1.ConditionTrue {
		dg.add(CauseReplicaFailure, "fix what the ReplicaSet controller reports (a quota, an admission webhook, pod security): until then it creates no pods",
			"the ReplicaSet controller cannot create pods: %s: %s", c.Reason, c.Message)
		return
	}
	for _, rs := range append([]*appsv1.ReplicaSet{dg.newRS}, dg.old...) {
		if rs == nil {
			continue
		}
		for _, c := range rs.Status.Conditions {
			if c.Type == appsv1.ReplicaSetReplicaFailure && c.Status == corev1.ConditionTrue {
				dg.add(CauseReplicaFailure, "fix what the ReplicaSet controller reports (a quota, an admission webhook, pod security): until then it creates no pods",
					"ReplicaSet %s cannot create pods: %s: %s", rs.Name, c.Reason, c.Message)
			}
		}
	}
}

func (dg *diagnosis) collision() {
	var hc *HashCollisionError
	if !errors.As(dg.plan.Err, &hc) {
		return
	}
	dg.add(CauseHashCollision,
		"usually none: the next sync computes another name; if it repeats every sync, something keeps creating ReplicaSets under these names (another owner with a copy of the template)",
		"the new ReplicaSet's name %s is taken by a ReplicaSet that is not this Deployment's with its template; collisionCount becomes %d", hc.Name, hc.CollisionCount)
}

// staleDesiredReplicas tells a scaling event that never ends: this sync and
// the one after its plan both take the scaling branch and resize nothing.
func (dg *diagnosis) staleDesiredReplicas(opts []Option) {
	if dg.plan.Branch != ScalingEvent || resizes(dg.plan, dg.s.ReplicaSets, false) {
		return
	}
	after, err := Apply(dg.s, dg.plan)
	if err != nil {
		return
	}
	again, err := Sync(after, opts...)
	if err != nil || again.Branch != ScalingEvent || resizes(again, after.ReplicaSets, false) {
		return
	}
	var stale []string
	for _, rs := range append(dg.old, dg.newRS) {
		if rs == nil || *rs.Spec.Replicas == 0 {
			continue
		}
		if n, ok := facts.DesiredReplicas(rs); !ok || n != *dg.d.Spec.Replicas {
			stale = append(stale, fmt.Sprintf("%s has %s=%q", rs.Name, deployutil.DesiredReplicasAnnotation, rs.Annotations[deployutil.DesiredReplicasAnnotation]))
		}
	}
	dg.add(CauseStaleDesiredReplicas,
		"run with WithFixes(FixStaleDesiredReplicas), or scale the Deployment to another size and back, so the annotations are rewritten (kubernetes#102551)",
		"every sync is a scaling event that resizes nothing, so the rollout never runs: spec.replicas is %d but %s", *dg.d.Spec.Replicas, strings.Join(stale, ", "))
}

// resizes reports whether the plan changes spec.replicas of one of rss;
// down only counts shrinking.
func resizes(p Plan, rss []*appsv1.ReplicaSet, down bool) bool {
	size := map[string]int32{}
	for _, rs := range rss {
		if rs != nil {
			size[rs.Name] = *rs.Spec.Replicas
		}
	}
	for _, a := range p.Actions {
		u, ok := a.(*action.UpdateReplicaSet)
		if !ok {
			continue
		}
		was, known := size[u.ReplicaSet.Name]
		if n := *u.ReplicaSet.Spec.Replicas; known && (n < was || (!down && n != was)) {
			return true
		}
	}
	return false
}

func (dg *diagnosis) paused() {
	if dg.d.Spec.Paused {
		what := "its pod template is not rolled out"
		if dg.newRS == nil {
			what = "no ReplicaSet has its pod template, and none is created while paused"
		}
		dg.add(CausePaused, "kubectl rollout resume", "the Deployment is paused: %s", what)
	}
}

func (dg *diagnosis) recreate(claimed []*appsv1.ReplicaSet) {
	if dg.d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		return
	}
	byRS := podindex.ByController(claimed, dg.s.Pods)
	running, terminating := 0, 0
	for _, rs := range dg.old {
		for _, p := range byRS[rs.UID] {
			switch {
			case p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded:
			case p.DeletionTimestamp != nil:
				terminating++
			default:
				running++
			}
		}
	}
	reported := facts.StatusReplicas(dg.old)
	if running == 0 && terminating == 0 && reported == 0 {
		return
	}
	dg.add(CauseRecreateWaiting,
		"the old pods must finish: terminating ones within their terminationGracePeriodSeconds; a pod stuck terminating needs its node or finalizers looked at",
		"Recreate starts new pods only when no old one runs: old ReplicaSets report %d pods; of the old pods, %d running, %d terminating", reported, running, terminating)
}

func (dg *diagnosis) newPods() {
	rs := dg.newRS
	if rs == nil || rs.Status.AvailableReplicas >= *rs.Spec.Replicas || *rs.Spec.Replicas == 0 {
		return
	}
	n, avail, ready := *rs.Spec.Replicas, rs.Status.AvailableReplicas, rs.Status.ReadyReplicas
	msg := fmt.Sprintf("%d of %d pods of the new ReplicaSet %s are available (%d ready", avail, n, rs.Name, ready)
	if m := dg.d.Spec.MinReadySeconds; m > 0 && ready > avail {
		msg += fmt.Sprintf("; %d of them not yet ready for minReadySeconds %d s", ready-avail, m)
	}
	msg += ")"
	dg.add(CauseNewPodsUnavailable,
		fmt.Sprintf("the new pods must become ready: kubectl describe pods -l %s=%s", deployutil.PodTemplateHashLabel, rs.Labels[deployutil.PodTemplateHashLabel]),
		"%s", msg)
}

// fenceposts reports the RollingUpdate bounds that stop both ReplicaSets.
func (dg *diagnosis) fenceposts() {
	d := dg.d
	if !facts.IsRollingUpdate(d) || d.Spec.Paused {
		return
	}
	surge, unavailable, err := deployutil.Fenceposts(d)
	if err != nil {
		return
	}
	replicas := *d.Spec.Replicas
	oldSize := facts.SpecReplicas(dg.old)
	all := append(dg.old[:len(dg.old):len(dg.old)], dg.newRS)
	if dg.newRS == nil {
		all = dg.old
	}
	if dg.newRS != nil && oldSize > 0 && !resizes(dg.plan, dg.old, true) {
		avail := facts.AvailableReplicas(all)
		minAvail := replicas - unavailable
		if avail <= minAvail {
			dg.add(CauseScaleDownBlocked,
				"new pods becoming available (or a larger maxUnavailable) lets old ones go",
				"old ReplicaSets keep %d replicas: %d pods are available and at least %d must stay so (replicas %d − maxUnavailable %d), so none may go",
				oldSize, avail, minAvail, replicas, unavailable)
		}
	}
	if dg.newRS != nil && *dg.newRS.Spec.Replicas < replicas {
		total := facts.SpecReplicas(all)
		if limit := replicas + surge; total >= limit {
			dg.add(CauseSurgeExhausted,
				"old pods going (which needs the availability above), or a larger maxSurge, lets the new ReplicaSet grow",
				"the new ReplicaSet %s stays at %d of %d: the ReplicaSets hold %d pods and replicas %d + maxSurge %d = %d are allowed",
				dg.newRS.Name, *dg.newRS.Spec.Replicas, replicas, total, replicas, surge, limit)
		}
	}
}

// strangers reports ReplicaSets of other owners that the selector matches
// and orphans the next sync adopts.
func (dg *diagnosis) strangers() {
	d := dg.d
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil || sel.Empty() {
		return
	}
	for _, rs := range dg.s.ReplicaSets {
		if !sel.Matches(labels.Set(rs.Labels)) {
			continue
		}
		ref := metav1.GetControllerOfNoCopy(rs)
		switch {
		case ref != nil && ref.UID != d.UID && ref.Kind == "Deployment":
			dg.add(CauseSelectorOverlap,
				"give the Deployments selectors that no other Deployment's pods match: each controller keeps to its own ReplicaSets, but Services, kubectl and autoscalers see both sets of pods",
				"ReplicaSet %s of Deployment %s matches this Deployment's selector %s", rs.Name, ref.Name, sel)
		case ref == nil && rs.DeletionTimestamp == nil && d.DeletionTimestamp == nil:
			dg.add(CauseOrphanAdoption,
				"none: the next sync adopts it; relabel it out of the selector if it is not this Deployment's",
				"ReplicaSet %s has no controller and matches the selector: the next sync adopts it with its %d replicas", rs.Name, *rs.Spec.Replicas)
		}
	}
}

func (dg *diagnosis) nextSync() {
	if dg.plan.Err != nil {
		return // the failure is a cause of its own (a hash collision)
	}
	var writes []string
	for _, a := range dg.plan.Actions {
		if _, ok := a.(*action.Event); ok {
			continue
		}
		writes = append(writes, a.String())
	}
	if len(writes) == 0 {
		if len(dg.causes) == 0 {
			dg.add(CauseNextSync, "wait for the next sync",
				"nothing blocks the rollout and the next sync writes nothing: the cluster has to catch up (pods starting or stopping, the ReplicaSet controller's status)")
		}
		return
	}
	n := fmt.Sprintf("%d writes", len(writes))
	if len(writes) == 1 {
		n = "1 write"
	}
	dg.add(CauseNextSync, "none: the controller does it on its next sync",
		"the controller has not acted on this state yet; its next sync does %s: %s", n, strings.Join(writes, "; "))
}
