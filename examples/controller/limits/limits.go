// Package limits runs limited rollouts (deploysync.WithLimits) beside
// kube-controller-manager's own Deployment controller: a Deployment that
// carries [Annotation] is kept away from that controller and rolled out by
// ours, one limit at a time; the others stay kube-controller-manager's.
//
// kube-controller-manager has no switch that leaves one Deployment alone.
// What it does to a paused Deployment is the least: it scales, cleans up
// and writes status, but never rolls out (syncDeployment in
// pkg/controller/deployment/deployment_controller.go of v1.37.2 sends a
// paused Deployment to sync(), sync.go). Pausing is not enough, though:
// sync() calls scale(), which spreads replicas proportionally over the
// active ReplicaSets of a RollingUpdate Deployment whenever they do not add
// up to replicas + maxSurge (sync.go, the IsRollingUpdate branch of
// scale()), and that is the state of every limited rollout. A paused
// Recreate Deployment has no such branch. And checkPausedConditions
// (sync.go) sets Progressing to Unknown/DeploymentPaused on every paused
// Deployment that has a progress deadline, which would overwrite ours on
// each of its syncs; with progressDeadlineSeconds at math.MaxInt32
// (HasProgressDeadline is false, util/deployment_util.go) it does not.
//
// So a limited Deployment is [Disguise]d: spec.paused true, strategy
// Recreate, progressDeadlineSeconds MaxInt32, and its own values of those
// three fields kept in [StashAnnotation] (OpenKruise's Advanced Deployment
// pauses and switches to Recreate the same way, with its own annotation).
// Our controller syncs the [View], the Deployment as its user wrote it, and
// writes through [Client], which puts the disguise back on every Deployment
// it writes. Removing [Annotation] ends it: the controller syncs once with
// no limit and writes the [Restore]d Deployment back to
// kube-controller-manager.
//
// What kube-controller-manager still writes to a disguised Deployment's
// status is the status computed from its ReplicaSets: the counts, the
// observed generation, the Available condition judged as for a Recreate
// Deployment (maxUnavailable 0). The counts and the generation are what
// deploysync writes too; the Available condition is not (deploysync
// judges it with the user's maxUnavailable), so [Client] writes it as
// kube-controller-manager judges it ([KCMAvailable]). Our status is then
// one kube-controller-manager finds nothing to change in, and the two
// controllers do not take turns rewriting it.
package limits

import (
	"encoding/json"
	"fmt"
	"math"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/deploysync/deploysync"
)

// Annotation holds a Deployment's limit: how many replicas its new
// ReplicaSet may have, an integer or a percentage of spec.replicas
// (deploysync.Limits.MaxUpdated).
const Annotation = "deploysync.dev/max-updated"

// StashAnnotation holds, as JSON ([Stash]), the Deployment's own values of
// the fields [Disguise] changes.
const StashAnnotation = "deploysync.dev/original-spec"

// Stash is the user's own strategy, paused and progressDeadlineSeconds of
// a disguised Deployment.
type Stash struct {
	// Strategy is the user's strategy (a RollingUpdate, with its
	// maxSurge and maxUnavailable).
	Strategy appsv1.DeploymentStrategy `json:"strategy"`
	// Paused is the user's spec.paused.
	Paused bool `json:"paused,omitempty"`
	// ProgressDeadlineSeconds is the user's progressDeadlineSeconds.
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty"`
}

// noDeadline is the progressDeadlineSeconds kube-controller-manager reads
// as no deadline.
const noDeadline = math.MaxInt32

// Limit returns the Deployment's limit from [Annotation] and whether it
// has one. The value is not checked here: deploysync.Sync returns a
// *deploysync.LimitError for one it cannot read.
func Limit(d *appsv1.Deployment) (deploysync.Limits, bool) {
	v, ok := d.Annotations[Annotation]
	if !ok {
		return deploysync.Limits{}, false
	}
	x := intstr.Parse(v)
	return deploysync.Limits{MaxUpdated: &x}, true
}

// Stashed returns the Deployment's [Stash], whether it has one, and an
// error naming the annotation when its value is not a Stash.
func Stashed(d *appsv1.Deployment) (Stash, bool, error) {
	v, ok := d.Annotations[StashAnnotation]
	if !ok {
		return Stash{}, false, nil
	}
	var s Stash
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		return Stash{}, true, fmt.Errorf("annotation %s of deployment %s/%s: %w", StashAnnotation, d.Namespace, d.Name, err)
	}
	return s, true, nil
}

// Disguised reports whether d is disguised: it has a [Stash] and the
// disguise's paused, strategy and progressDeadlineSeconds.
func Disguised(d *appsv1.Deployment) bool {
	_, ok := d.Annotations[StashAnnotation]
	return ok && wearsDisguise(d)
}

func wearsDisguise(d *appsv1.Deployment) bool {
	return d.Spec.Paused && d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType &&
		d.Spec.Strategy.RollingUpdate == nil &&
		d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds == noDeadline
}

// Disguise returns a copy of d that kube-controller-manager leaves alone,
// with the user's values in [StashAnnotation]. The user's values are d's
// own where d has no stash; where it has one, each of the three fields
// that differs from the disguise was changed by someone since (kubectl
// rollout resume, a strategy patched back) and that value is taken as the
// user's new one, the stash's otherwise.
func Disguise(d *appsv1.Deployment) (*appsv1.Deployment, error) {
	s, ok, err := Stashed(d)
	if err != nil {
		return nil, err
	}
	if !ok {
		s = Stash{Strategy: *d.Spec.Strategy.DeepCopy(), Paused: d.Spec.Paused, ProgressDeadlineSeconds: copyInt32(d.Spec.ProgressDeadlineSeconds)}
	} else {
		if !d.Spec.Paused {
			s.Paused = false
		}
		if d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType || d.Spec.Strategy.RollingUpdate != nil {
			s.Strategy = *d.Spec.Strategy.DeepCopy()
		}
		if p := d.Spec.ProgressDeadlineSeconds; p == nil || *p != noDeadline {
			s.ProgressDeadlineSeconds = copyInt32(p)
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	out := d.DeepCopy()
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	out.Annotations[StashAnnotation] = string(b)
	wear(out)
	return out, nil
}

// wear sets the disguise's fields on d.
func wear(d *appsv1.Deployment) {
	d.Spec.Paused = true
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	d.Spec.ProgressDeadlineSeconds = ptrInt32(noDeadline)
}

// View returns a copy of the disguised d as its user wrote it: the
// stash's strategy, paused and progressDeadlineSeconds. Its annotations
// are d's, the stash included, so that the annotations deploysync copies
// to the new ReplicaSet are the ones kube-controller-manager copies from
// the disguised Deployment.
func View(d *appsv1.Deployment) (*appsv1.Deployment, error) {
	s, ok, err := Stashed(d)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("deployment %s/%s has no annotation %s", d.Namespace, d.Name, StashAnnotation)
	}
	out := d.DeepCopy()
	out.Spec.Strategy = *s.Strategy.DeepCopy()
	out.Spec.Paused = s.Paused
	out.Spec.ProgressDeadlineSeconds = copyInt32(s.ProgressDeadlineSeconds)
	return out, nil
}

// Restore returns the [View] of d without [StashAnnotation]: the Deployment
// handed back to kube-controller-manager.
func Restore(d *appsv1.Deployment) (*appsv1.Deployment, error) {
	out, err := View(d)
	if err != nil {
		return nil, err
	}
	delete(out.Annotations, StashAnnotation)
	return out, nil
}

func ptrInt32(v int32) *int32 { return &v }

func copyInt32(p *int32) *int32 {
	if p == nil {
		return nil
	}
	return ptrInt32(*p)
}
