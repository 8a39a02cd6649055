package deploysync

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/kversion"
	"github.com/deploysync/deploysync/internal/podindex"
	"github.com/deploysync/deploysync/recreate"
	"github.com/deploysync/deploysync/revision"
	"github.com/deploysync/deploysync/rolling"
	"github.com/deploysync/deploysync/scaling"
)

// Sync decides what one sync of the Deployment controller does with a
// state. It follows upstream's syncDeployment, branch by branch, in order:
//
//  1. SelectingAll: an empty selector gets a warning event and, if the
//     generation is new, an observedGeneration update — nothing else.
//  2. ReplicaSets are claimed: orphans whose labels match are adopted, owned
//     ones that stopped matching are released (not while the Deployment is
//     being deleted).
//  3. Deleting: a Deployment being deleted only gets its status updated
//     (and its new ReplicaSet's annotations synced).
//  4. The Progressing condition records a pause (DeploymentPaused) or a
//     resume (DeploymentResumed), when there is a progress deadline.
//  5. Paused: proportional scaling and history cleanup, no rollout.
//  6. Rollback: the deprecated rollback annotation rolls the template back
//     to a revision and is cleared.
//  7. ScalingEvent: spec.replicas changed since the ReplicaSets were sized;
//     they are scaled proportionally, the rollout waits.
//  8. Recreate or RollingUpdate: one step of the rollout, then history
//     cleanup if the rollout was already complete, then status and progress.
//
// Sync returns an [*InputError] (matching
// [ErrInvalidInput]) for a state an apps/v1 apiserver would not
// have accepted, or that cannot be a snapshot of one (the error
// names the rule); otherwise a plan — upstream's decision, its int32
// wrap-arounds included unless a Fix says otherwise. It never modifies the
// state; the plan's objects are its own.
func Sync(s State, opts ...Option) (Plan, error) {
	o := defaultOptions()
	if len(opts) > 0 {
		// Options take a pointer; only a sync with options pays for it.
		p := new(options)
		*p = o
		for _, opt := range opts {
			opt(p)
		}
		o = *p
	}
	if err := o.checkFixes(); err != nil {
		return Plan{}, err
	}
	if err := o.checkLimits(); err != nil {
		return Plan{}, err
	}
	if o.versionErr != nil {
		return Plan{}, o.versionErr
	}
	sel, err := facts.ValidateSelect(s.Deployment, s.ReplicaSets, s.Pods)
	if err != nil {
		return Plan{}, err
	}
	ss := newSession(s, o)
	ss.selector = sel
	branch, err := ss.syncDeployment()
	p := Plan{Branch: branch, Actions: ss.plan(), Why: ss.wait, Err: err}
	if err == nil {
		p.Requeue, p.RequeueAfter = ss.requeue, ss.requeueAfter
	}
	return p, nil
}

// syncDeployment is upstream's syncDeployment once its inputs are listed:
// the branches of Sync's doc, in their order.
func (s *session) syncDeployment() (Branch, error) {
	d := s.d
	if facts.IsSelectingAll(d) {
		s.event(corev1.EventTypeWarning, deployutil.EventSelectingAll,
			"This deployment is selecting all pods. A non-empty selector is required.",
			action.Because(action.RuleSelectingAll))
		if d.Status.ObservedGeneration < d.Generation {
			d.Status.ObservedGeneration = d.Generation
			s.updateStatus(action.Because(action.RuleObserveGeneration, action.Num("generation", d.Generation)))
		}
		return SelectingAll, nil
	}
	rsList := s.claim()
	if d.DeletionTimestamp != nil {
		s.syncStatusOnly(rsList)
		return Deleting, nil
	}
	s.checkPausedConditions()
	if d.Spec.Paused {
		s.sync(rsList)
		return Paused, nil
	}
	if _, ok := revision.RollbackRequest(d); ok {
		return Rollback, s.rollback(rsList)
	}
	if s.isScalingEvent(rsList) {
		s.sync(rsList)
		return ScalingEvent, nil
	}
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		return Recreate, s.rolloutRecreate(rsList)
	}
	return RollingUpdate, s.rolloutRolling(rsList)
}

// claim decides ownership in the state's order and returns the claimed
// ReplicaSets as read.
func (s *session) claim() []*appsv1.ReplicaSet {
	claimed, changes := facts.ClaimWith(s.d, &s.selector, s.rss) // compiled by the validation
	for _, c := range changes {
		kind := releaseRS
		if c.Adopt {
			kind = adoptRS
		} else {
			if s.released == nil {
				s.released = map[string]bool{}
			}
			s.released[c.ReplicaSet.Name] = true
		}
		s.log = append(s.log, entry{kind: kind, name: c.ReplicaSet.Name, why: c.Why})
	}
	return claimed
}

// syncStatusOnly, sync and isScalingEvent return no error where upstream's
// do: they never create the new ReplicaSet, and without a create nothing
// can fail here (see getAllReplicaSetsAndSyncRevision).
func (s *session) syncStatusOnly(rsList []*appsv1.ReplicaSet) {
	newRS, old := s.getAllReplicaSetsAndSyncRevision(rsList)
	s.syncDeploymentStatus(append(old, newRS), newRS)
}

// sync is upstream's path for paused Deployments and scaling events.
func (s *session) sync(rsList []*appsv1.ReplicaSet) {
	newRS, old := s.getAllReplicaSetsAndSyncRevision(rsList)
	if newRS != nil || len(old) > 0 {
		// Upstream sorts the old ReplicaSets newest first in place here;
		// cleanup below sees that order.
		old = facts.SortedByCreationNewestFirst(old)
	}
	for _, sc := range scaling.Resizes(s.d, newRS, old, s.opts.scalingFixes()) {
		s.scale(sc)
	}
	if _, rollback := revision.RollbackRequest(s.d); s.d.Spec.Paused && !rollback {
		s.cleanup(old)
	}
	s.syncDeploymentStatus(append(old, newRS), newRS)
}

func (s *session) checkPausedConditions() {
	d := s.d
	if !facts.HasProgressDeadline(d) {
		return
	}
	c := facts.Condition(&d.Status, appsv1.DeploymentProgressing)
	if c != nil && c.Reason == deployutil.ReasonProgressDeadlineExceeded {
		return
	}
	pausedNoted := c != nil && c.Reason == deployutil.ReasonDeploymentPaused
	switch {
	case d.Spec.Paused && !pausedNoted:
		facts.SetCondition(&d.Status, facts.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown,
			deployutil.ReasonDeploymentPaused, "Deployment is paused", s.now))
		s.updateStatus(action.Because(action.RulePaused))
	case !d.Spec.Paused && pausedNoted:
		facts.SetCondition(&d.Status, facts.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown,
			deployutil.ReasonDeploymentResumed, "Deployment is resumed", s.now))
		s.updateStatus(action.Because(action.RuleResumed))
	}
}

func (s *session) isScalingEvent(rsList []*appsv1.ReplicaSet) bool {
	newRS, old := s.getAllReplicaSetsAndSyncRevision(rsList)
	return scaling.IsScalingEvent(s.d, newRS, old)
}

func (s *session) cleanup(old []*appsv1.ReplicaSet) {
	for _, del := range revision.Cleanup(s.d, old) {
		s.log = append(s.log, entry{kind: deleteRS, name: del.ReplicaSet.Name, why: del.Why})
	}
}

func (s *session) rolloutRolling(rsList []*appsv1.ReplicaSet) error {
	d := s.d
	newRS, old, err := s.getAllReplicaSetsAndSyncRevisionOrCreate(rsList)
	if err != nil {
		return err
	}
	allRSs := append(old[:len(old):len(old)], newRS)
	step, limited, err := s.limits.Step(d, allRSs, old, newRS)
	if err != nil {
		return err
	}
	if limited {
		// WithLimits binds: its step is this sync's instead of upstream's.
		for _, sc := range step.Scales {
			s.scale(sc)
		}
		if step.Cleanup {
			s.cleanup(old)
		}
		s.syncRolloutStatus(allRSs, newRS)
		return nil
	}
	sc, ok, err := rolling.ScaleNew(d, allRSs, newRS)
	if err != nil {
		return err
	}
	if ok {
		s.scale(sc)
		s.syncRolloutStatus(allRSs, newRS)
		return nil
	}
	scales, scaled := rolling.ScaleDownOld(d, allRSs, facts.FilterActive(old), newRS)
	for _, sc := range scales {
		s.scale(sc)
	}
	if scaled {
		s.syncRolloutStatus(allRSs, newRS)
		return nil
	}
	// A scale-down stopped by upstream's swallowed error writes scales and
	// reports none: it does not wait.
	if len(scales) == 0 && (*newRS.Spec.Replicas != *d.Spec.Replicas || facts.SpecReplicas(facts.FilterActive(old)) > 0) {
		s.wait = action.Reasons{rollingWaits(d, allRSs)}
	}
	if facts.Complete(d, &d.Status) {
		s.cleanup(old)
	}
	s.syncRolloutStatus(allRSs, newRS)
	return nil
}

// rollingWaits is the reason a rolling update that is not done writes no
// scale: the numbers of maxSurge and maxUnavailable that hold it.
func rollingWaits(d *appsv1.Deployment, allRSs []*appsv1.ReplicaSet) action.Reason {
	replicas, maxUnavailable := *d.Spec.Replicas, facts.MaxUnavailable(d)
	return action.Because(action.RuleRollingWaits, action.Num("maxSurge", facts.MaxSurge(d)), action.Num("maxPods", facts.MaxReplicas(d)),
		action.Num("pods", facts.SpecReplicas(allRSs)), action.Num("available", facts.AvailableReplicas(allRSs)),
		action.Num("minAvailable", replicas-maxUnavailable), action.Num("replicas", replicas), action.Num("maxUnavailable", maxUnavailable))
}

func (s *session) rolloutRecreate(rsList []*appsv1.ReplicaSet) error {
	d := s.d
	newRS, old := s.getAllReplicaSetsAndSyncRevision(rsList)
	allRSs := append(old[:len(old):len(old)], newRS)
	if scales := recreate.ScaleDownOld(d, facts.FilterActive(old)); len(scales) > 0 {
		for _, sc := range scales {
			s.scale(sc)
		}
		s.syncRolloutStatus(allRSs, newRS)
		return nil
	}
	// Upstream's pod map of the claimed ReplicaSets (by selector up to
	// 1.35, by controller reference from 1.36: recreatePods).
	if running, why := recreate.OldPodsRunning(old, s.recreatePods(rsList)); running {
		s.wait = action.Reasons{action.Because(action.RuleRecreateWaits), why}
		s.syncRolloutStatus(allRSs, newRS)
		return nil
	}
	if newRS == nil {
		var err error
		if newRS, old, err = s.getAllReplicaSetsAndSyncRevisionOrCreate(rsList); err != nil {
			return err
		}
		allRSs = append(old[:len(old):len(old)], newRS)
	}
	if sc, ok := recreate.ScaleUpNew(d, newRS); ok {
		s.scale(sc)
	}
	if facts.Complete(d, &d.Status) {
		s.cleanup(old)
	}
	s.syncRolloutStatus(allRSs, newRS)
	return nil
}

// recreatePods is the pod map Recreate consults before it scales up: up to
// 1.35 the pods that match the Deployment's selector grouped by their
// controller's UID (pkg/controller/deployment/deployment_controller.go,
// getPodMapForDeployment, v1.35.4); from 1.36 the pods whose controller
// reference names the ReplicaSet, found in the pod index
// (controller.FilterPodsByOwner, v1.36.3).
func (s *session) recreatePods(rsList []*appsv1.ReplicaSet) map[types.UID][]*corev1.Pod {
	if !s.opts.version.AtLeast(kversion.V1_36) {
		return podindex.BySelector(s.d, rsList, s.pods)
	}
	return podindex.ByController(rsList, s.pods)
}
