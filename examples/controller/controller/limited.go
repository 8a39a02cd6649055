package controller

import (
	"context"
	"errors"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/examples/controller/limits"
	"github.com/deploysync/deploysync/execute"
)

// EnableLimits makes the controller one that runs beside
// kube-controller-manager's Deployment controller: it syncs only the
// Deployments that carry limits.Annotation (or still carry its stash),
// each with deploysync.WithLimits, and leaves every other Deployment to
// kube-controller-manager. See package limits for how the two keep out of
// each other's way. Call it before Run.
func (c *Controller) EnableLimits() { c.limited = true }

// step is what syncLimited does with a Deployment.
type step int

const (
	// leave: no limit and no stash; kube-controller-manager's.
	leave step = iota
	// disguise: a limit on a Deployment not (or no longer) disguised;
	// write the disguise first, the next sync rolls out.
	disguise
	// limit: a disguised Deployment with a limit; sync its view with
	// the limit.
	limit
	// handBack: a stash without a limit; sync the view once with no
	// limit (ending a hold, see deploysync.WithLimits), then restore the
	// user's fields.
	handBack
)

func (s step) String() string {
	return [...]string{"leave", "disguise", "limit", "hand back"}[s]
}

// nextStep decides syncLimited's step from the annotations and the spec.
func nextStep(d *appsv1.Deployment) step {
	_, limited := limits.Limit(d)
	_, stashed := d.Annotations[limits.StashAnnotation]
	switch {
	case limited && d.DeletionTimestamp != nil && !limits.Disguised(d):
		return leave // being deleted: no point taking it over now
	case limited && !limits.Disguised(d):
		return disguise
	case limited:
		return limit
	case stashed:
		return handBack
	}
	return leave
}

// syncLimited is Sync in the mode of EnableLimits.
func (c *Controller) syncLimited(ctx context.Context, key string, d *appsv1.Deployment) (execute.Result, error) {
	logger := klog.FromContext(ctx)
	st := nextStep(d)
	logger.V(4).Info("Limited rollout", "deployment", key, "step", st.String())
	switch st {
	case disguise:
		out, err := limits.Disguise(d)
		if err != nil {
			return execute.Result{}, err
		}
		written, err := c.client.UpdateDeployment(ctx, out)
		if err != nil {
			return execute.Result{}, err
		}
		c.written.Store(key, written.ResourceVersion)
		return execute.Result{}, nil
	case limit:
		view, err := limits.View(d)
		if err != nil {
			return execute.Result{}, err
		}
		l, _ := limits.Limit(d)
		res, err := c.syncWith(ctx, key, view, c.limitedClient, append(c.syncOptions[:len(c.syncOptions):len(c.syncOptions)], deploysync.WithLimits(l))...)
		var le *deploysync.LimitError
		if errors.As(err, &le) {
			// Retrying will not help; the next annotation enqueues it.
			logger.Error(err, "Deployment not synced", "deployment", key)
			c.client.Event(d, corev1.EventTypeWarning, "InvalidLimit", err.Error())
			return execute.Result{}, nil
		}
		return res, err
	case handBack:
		view, err := limits.View(d)
		if err != nil {
			return execute.Result{}, err
		}
		res, err := c.syncWith(ctx, key, view, c.limitedClient, append(c.syncOptions[:len(c.syncOptions):len(c.syncOptions)], deploysync.WithLimits(deploysync.Limits{}))...)
		if err != nil {
			return res, err
		}
		latest := d
		if res.Written != nil {
			latest = res.Written
		}
		out, err := limits.Restore(latest)
		if err != nil {
			return res, err
		}
		written, err := c.client.UpdateDeployment(ctx, out)
		if err != nil {
			return res, err
		}
		c.written.Store(key, written.ResourceVersion)
		return execute.Result{}, nil
	}
	return execute.Result{}, nil
}
