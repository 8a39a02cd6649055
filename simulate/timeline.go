package simulate

import (
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/replicaset"
)

// Outcome is how a run ended. The values complete the sentence "The run
// ended ...".
type Outcome string

const (
	// Complete: with the rollout complete — Progressing is
	// NewReplicaSetAvailable and every replica is updated and available —
	// and nothing left to happen.
	Complete Outcome = "Complete"
	// DeadlineExceeded: with the Progressing condition at
	// ProgressDeadlineExceeded and nothing left to happen.
	DeadlineExceeded Outcome = "ProgressDeadlineExceeded"
	// StoppedPaused: with the Deployment paused and nothing left to happen.
	StoppedPaused Outcome = "Paused"
	// Held: with the rollout held at its limit (Progressing is
	// RolloutLimited, see [deploysync.WithLimits]) and nothing left to
	// happen.
	Held Outcome = "Held"
	// Stalled: with nothing left to happen, but the rollout neither
	// complete nor timed out (for example broken pods and no progress
	// deadline).
	Stalled Outcome = "Stalled"
	// StepLimit: at the step limit, still going.
	StepLimit Outcome = "StepLimit"
)

// Timeline is the record of a run: one entry per step, how it ended, and the
// invariants it broke.
type Timeline struct {
	// Deployment names the Deployment ("namespace/name").
	Deployment string
	// Strategy describes the strategy at the start, e.g. "RollingUpdate
	// maxSurge 25% (3) maxUnavailable 25% (2)".
	Strategy string
	// Start is the simulated time of step 0.
	Start time.Time
	// Steps are the steps in order; Steps[i].Index is i.
	Steps []Step
	// Outcome is how the run ended.
	Outcome Outcome
	// Violations are the broken invariants, in the order found (see
	// [Invariant]).
	Violations []Violation
	// InputBroken are the invariants the state given to Run already broke
	// at step 0, each once (Step 0; see [Invariant]). They are not the
	// controller's doing: Err does not report them.
	InputBroken []Violation
	// Final is the state after the last step (owned by the caller), with
	// the pods the world holds then.
	Final deploysync.State

	// initial holds spec.replicas of the ReplicaSets at the start, by name.
	initial map[string]int32
}

// Step is one step of a run: the world moved to Time, the scripted changes
// due were made, then one sync ran and its plan was applied.
type Step struct {
	// Index is the step's number, from 0.
	Index int
	// Time is the simulated time of the sync.
	Time time.Time
	// Elapsed is Time minus the start.
	Elapsed time.Duration
	// Changes describe the scripted changes made before the sync.
	Changes []string
	// Branch is the branch of syncDeployment that decided.
	Branch deploysync.Branch
	// Actions are the plan's writes and events, each with its reason
	// (Explain).
	Actions []action.Action
	// Why is the plan's Why: when a rule holds the rollout back, why this
	// sync moves nothing on, with its numbers (see [deploysync.Plan.Why]);
	// nil otherwise.
	Why action.Reasons
	// Requeue is the plan's Requeue: sync again soon.
	Requeue bool
	// RequeueAfter is the plan's RequeueAfter: sync again after it.
	RequeueAfter time.Duration
	// RequeueWhy says why the sync asked for Requeue or RequeueAfter, with
	// its numbers: the progress deadline, from the Progressing condition's
	// lastUpdateTime and spec.progressDeadlineSeconds. It is "" without a
	// requeue.
	RequeueWhy string
	// Err is the plan's Err (a hash collision, a refused ReplicaSet create);
	// the step after retries.
	Err error
	// RetryAfter, for a step whose sync failed, is how long the
	// controller's workqueue waits before it retries (its rate limiter:
	// 5ms, doubled by each failure in a row); Failures is how many syncs
	// in a row failed, this one included. When the controller gives up on
	// the key after 15 retries, Dropped is set and RetryAfter is 0: the
	// next sync comes only with an event (a change of the Deployment).
	RetryAfter time.Duration
	Failures   int
	Dropped    bool
	// Replicas is the Deployment's spec.replicas at the sync; MaxSurge and
	// MaxUnavailable are its resolved fenceposts (0 for Recreate).
	Replicas, MaxSurge, MaxUnavailable int32
	// ReplicaSets are the Deployment's ReplicaSets after the plan, oldest
	// first.
	ReplicaSets []ReplicaSetState
	// Totals are the pods of all those ReplicaSets (and the terminating
	// pods of deleted ones) as the sync saw them.
	Totals Counts
	// Conditions are the Deployment's conditions after the plan.
	Conditions []appsv1.DeploymentCondition
	// Deleted are the pods the ReplicaSet controller deleted as the world
	// moved to this step, before the sync (so the sizes of the step before
	// caused them), in the order it chose them: the first of
	// [replicaset.DeletionOrder] for each ReplicaSet scaled down. Pods the
	// garbage collector deletes with their ReplicaSet are not listed.
	Deleted []Deletion
	// Refused are the ReplicaSets whose pods the apiserver refused (see
	// [WithRefusedImage]) for the first time as the world moved to this
	// step: those given the ReplicaFailure condition. The ReplicaSet
	// controller's retries, refused alike, are not listed.
	Refused []Refusal
	// Admitted are the ReplicaSets whose pods the apiserver admits again
	// after a refusal that ended (see [WithRefusedImageUntil]), as the
	// world moved to this step: the ReplicaSet controller's retry that
	// created them.
	Admitted []Admission
}

// Admission is the ReplicaSet controller's first sync of a ReplicaSet
// after the refusal of its pods ended (see [WithRefusedImageUntil]) or the
// quota came to have room for some (see [WithPodQuota]).
type Admission struct {
	// ReplicaSet names it; Created is the pods that sync created.
	ReplicaSet string
	Created    int32
	// At is when the sync came (from the start; the step is the first
	// tick at or after it), Until when the refusal ended, and Failures the
	// failed syncs before it.
	At, Until time.Duration
	Failures  int
	// Refused is the creates of that sync the quota of [WithPodQuota]
	// refused past its room; 0 when every missing pod was made.
	Refused int32
}

// Refusal is a ReplicaSet whose pod creates the apiserver refused.
type Refusal struct {
	// ReplicaSet names it.
	ReplicaSet string
	// Missing is how many pods it is short: spec.replicas minus its pods.
	// The ReplicaSet controller tried one (a slow-start batch of one) and
	// skipped the others.
	Missing int32
	// Created is the pods the sync made before the refusal: the room of
	// the quota of [WithPodQuota] (then the first refused batch is the
	// one past the room); 0 for a refusal of every pod.
	Created int32
	// Message is the apiserver's error, the condition's message.
	Message string
}

// Deletion is one pod the ReplicaSet controller deleted in a scale-down,
// with what ranked it first.
type Deletion struct {
	// ReplicaSet and Pod name the ReplicaSet and the pod; Node is the
	// pod's spec.nodeName.
	ReplicaSet, Pod, Node string
	// Position is the pod's place in the deletion order of its ReplicaSet
	// at that step, from 1.
	Position int
	// Rank is what the order read of the pod.
	Rank replicaset.Rank
	// Why says the rank in a few words, e.g. "Running, ready 4s, 3 on
	// node-1": phase, readiness and for how long, deletion cost if any,
	// related pods on the pod's node.
	Why string
	// Tied is how many of the pods the ReplicaSet keeps at this step
	// upstream's order cannot tell from this one: the same in every rule of
	// [replicaset.DeletionOrder], ready and creation times to the instant.
	// Among such pods the ReplicaSet controller deletes those its cache
	// lists first, an order no snapshot shows, so a real cluster may delete
	// one of them instead (the simulator lists pods in creation order, ties
	// by name, or in [WithCacheOrder]'s order). 0 when the choice of this
	// pod is upstream's for any order.
	Tied int
	// Unsettled is how many of the kept pods, not tied with this one,
	// upstream's comparison does not put after it ([replicaset.Unsettled]:
	// pods of one logarithmic bucket go by UID or by their next rules, a
	// comparison that can go round in a circle). Where it is above 0 the
	// order the controller's cache lists the pods decides, and a real
	// cluster may delete one of those pods instead; where it and Tied are 0
	// for every pod of a scale-down, a real controller deletes these very
	// pods whatever its cache's order. [WithCacheOrder] runs the world
	// with other orders.
	Unsettled int
}

// ReplicaSetState is one ReplicaSet at a step.
type ReplicaSetState struct {
	// Name is the ReplicaSet's name.
	Name string
	// Revision is its revision annotation after the plan ("" if none).
	Revision string
	// New reports whether it is the Deployment's new ReplicaSet (its
	// template is the Deployment's) after the plan.
	New bool
	// Replicas is spec.replicas after the plan.
	Replicas int32
	// Pods are its pods as the sync saw them (see [Counts]).
	Pods Counts
}

// Counts are pods by state. Pods are those not terminating (what a
// ReplicaSet's status.replicas counts); Ready and Available are among them
// (available: ready for at least minReadySeconds; on 1.33 for more); Terminating are deleted
// pods not yet gone.
type Counts struct {
	// Pods are the pods not terminating; Ready and Available are among them.
	Pods, Ready, Available int32
	// Terminating are deleted pods that have not stopped yet.
	Terminating int32
}

// Syncs returns the number of syncs of the run (one per step).
func (t *Timeline) Syncs() int { return len(t.Steps) }

// Duration returns the simulated time from the first to the last step.
func (t *Timeline) Duration() time.Duration {
	if len(t.Steps) == 0 {
		return 0
	}
	return t.Steps[len(t.Steps)-1].Elapsed
}

// PeakPods returns the most pods that were not terminating at any step, and
// the most pods including terminating ones.
//
// The world's ReplicaSet controller does a reaction's writes in their
// order: an old ReplicaSet's deletions before the creates of the scale-up
// the Deployment controller wrote after them. A real
// kube-controller-manager can commit such a create first for a moment (its
// workers race, or the new ReplicaSet was queued before the old one), and
// then the cluster briefly has more pods than this peak: one more in
// rolling 1000 replicas on the e2e cluster (each overtaking create the
// only one of its scale-up), in both runs with five ReplicaSet workers
// (kube-controller-manager's default) and in some with one
// (e2e/README.md, "A peak the overtaking accounts for").
func (t *Timeline) PeakPods() (pods, withTerminating int32) {
	for _, s := range t.Steps {
		pods = max(pods, s.Totals.Pods)
		withTerminating = max(withTerminating, s.Totals.Pods+s.Totals.Terminating)
	}
	return pods, withTerminating
}

// MinAvailable returns the fewest available pods at any step after step 0,
// and the first step where that happened; (0, -1) for a run of one step.
func (t *Timeline) MinAvailable() (available int32, step int) {
	step = -1
	for _, s := range t.Steps[min(1, len(t.Steps)):] {
		if step < 0 || s.Totals.Available < available {
			available, step = s.Totals.Available, s.Index
		}
	}
	return available, step
}

// Err returns nil if no invariant was broken, otherwise an error listing the
// violations (each matches [ErrInvariant] with [errors.Is]).
func (t *Timeline) Err() error {
	errs := make([]error, len(t.Violations))
	for i := range t.Violations {
		errs[i] = &t.Violations[i]
	}
	return errors.Join(errs...)
}

// ErrInvariant is matched by every [*Violation].
var ErrInvariant = errors.New("invariant violated")

// Violation is a broken invariant at a step.
type Violation struct {
	// Step is the index of the step at which the invariant broke.
	Step int
	// Invariant is the broken invariant.
	Invariant Invariant
	// Detail gives the numbers.
	Detail string
}

// Error names the step, the invariant and what was seen.
func (v *Violation) Error() string {
	return fmt.Sprintf("step %d: %s: %s", v.Step, v.Invariant, v.Detail)
}

// Is reports whether target is [ErrInvariant].
func (v *Violation) Is(target error) bool { return target == ErrInvariant }
