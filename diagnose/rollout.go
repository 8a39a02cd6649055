package diagnose

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/podindex"
	"github.com/deploysync/deploysync/internal/ratelimit"
)

func num(name string, n int32) action.Value { return action.Num(name, n) }

func str(name, s string) action.Value { return action.Str(name, s) }

// Rollout says what holds the rollout of s.Deployment back, most important
// first (in the order of the [Kind] constants). A finished rollout gets
// none: the latest generation observed, every replica updated and
// available, the new ReplicaSet at spec.replicas, no old or terminating
// replica or pod left — the library's one definition of rolled out, read
// on the ReplicaSets the next sync holds (those the Deployment controls and
// the orphans it adopts). Rollout takes the state and options
// deploysync.Sync takes, runs Sync on it (and once more after
// deploysync.Apply, to tell a scaling event that never ends), and refuses
// what Sync refuses.
func Rollout(s deploysync.State, opts ...deploysync.Option) ([]Cause, error) {
	plan, err := deploysync.Sync(s, opts...)
	if err != nil {
		return nil, err
	}
	d := s.Deployment
	claimed := ownedOrAdoptable(d, s.ReplicaSets)
	if facts.RolledOut(d, claimed, s.Pods) {
		return nil, nil
	}
	newRS, old := facts.SplitReplicaSets(d, claimed)
	dg := diagnosis{s: s, d: d, newRS: newRS, old: old, plan: plan}
	dg.deadline()
	dg.replicaFailure()
	dg.createFailed()
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
	s      deploysync.State
	d      *appsv1.Deployment
	newRS  *appsv1.ReplicaSet
	old    []*appsv1.ReplicaSet
	plan   deploysync.Plan
	causes []Cause
}

func (dg *diagnosis) add(k Kind, unblock string, values ...action.Value) {
	dg.causes = append(dg.causes, Cause{Kind: k, Values: values, Unblock: unblock})
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

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func (dg *diagnosis) deadline() {
	d, now := dg.d, dg.s.Now
	c := deployutil.GetCondition(d.Status, appsv1.DeploymentProgressing)
	if c != nil && c.Reason == deployutil.ReasonProgressDeadlineExceeded {
		since := c.LastTransitionTime.Time
		dg.add(DeadlineExceeded,
			"the controller goes on rolling out: the condition clears once the rollout progresses again; find why it is stuck in the causes below, or roll back (kubectl rollout undo)",
			num("progressDeadlineSeconds", ptr.Deref(d.Spec.ProgressDeadlineSeconds, 0)), str("since", rfc3339(since)),
			str("ago", now.Sub(since).Round(time.Second).String()), str("message", c.Message))
		return
	}
	if c == nil || !facts.HasProgressDeadline(d) || d.Spec.Paused {
		return
	}
	if facts.TimedOut(d, &d.Status, now) {
		end := c.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second)
		dg.add(DeadlineExceeded,
			"the next sync marks Progressing False (ProgressDeadlineExceeded); find why it is stuck in the causes below",
			str("lastUpdate", rfc3339(c.LastUpdateTime.Time)), num("progressDeadlineSeconds", *d.Spec.ProgressDeadlineSeconds),
			str("deadline", rfc3339(end)), str("ago", now.Sub(end).Round(time.Second).String()))
	}
}

func (dg *diagnosis) replicaFailure() {
	if c := deployutil.GetCondition(dg.d.Status, appsv1.DeploymentReplicaFailure); c != nil && c.Status == corev1.ConditionTrue {
		name, since := "", c.LastTransitionTime.Time
		if dg.newRS != nil {
			if rc := facts.ReplicaFailure(dg.newRS.Status.Conditions); rc != nil && rc.Status == corev1.ConditionTrue {
				name, since = dg.newRS.Name, rc.LastTransitionTime.Time
			}
		}
		dg.add(ReplicaFailure, replicaFailureUnblock(name, since, dg.s.Now)+podQuotaAdvice(dg.d, c.Message), str("reason", c.Reason), str("message", c.Message))
		return
	}
	for _, rs := range append([]*appsv1.ReplicaSet{dg.newRS}, dg.old...) {
		if rs == nil {
			continue
		}
		for _, c := range rs.Status.Conditions {
			if c.Type == appsv1.ReplicaSetReplicaFailure && c.Status == corev1.ConditionTrue {
				dg.add(ReplicaFailure, replicaFailureUnblock(rs.Name, c.LastTransitionTime.Time, dg.s.Now)+podQuotaAdvice(dg.d, c.Message),
					str("replicaSet", rs.Name), str("reason", c.Reason), str("message", c.Message))
			}
		}
	}
}

// podQuotaAdvice reads a refusal by the ResourceQuota admission plugin,
// worded as the apiserver words it ("exceeded quota: NAME, requested:
// pods=1, used: pods=U, limited: pods=L"; the resource may be count/pods),
// and, when the quota's pods are used up, says what gives a rolling update
// room: it asks for maxSurge pods beyond spec.replicas, and terminating
// pods stay counted until they are gone. "" for any other message.
func podQuotaAdvice(d *appsv1.Deployment, msg string) string {
	_, rest, ok := strings.Cut(msg, "exceeded quota: ")
	if !ok {
		return ""
	}
	name, rest, _ := strings.Cut(rest, ",")
	used, okUsed := quotaValue(rest, "used: ")
	limit, okLimit := quotaValue(rest, "limited: ")
	if !okUsed || !okLimit || used < limit {
		return ""
	}
	if !facts.IsRollingUpdate(d) {
		return fmt.Sprintf("; quota %s is full (%d of %d pods): Recreate makes the new pods once the old ones are gone, so the namespace needs room for spec.replicas (%d) beside its other pods",
			name, used, limit, ptr.Deref(d.Spec.Replicas, 1))
	}
	surge, unavailable := facts.MaxSurge(d), facts.MaxUnavailable(d)
	if surge == 0 {
		return fmt.Sprintf("; quota %s is full (%d of %d pods): with maxSurge 0 the new pods come as old ones are gone (terminating pods count until then), so something else holds the room",
			name, used, limit)
	}
	stuck := "the rollout moves only as old pods are gone (maxUnavailable " + fmt.Sprint(unavailable) + "), each new pod at a retry of the ReplicaSet controller"
	if unavailable == 0 {
		stuck = "with maxUnavailable 0 no old pod goes before a new one is available, so the rollout cannot move"
	}
	return fmt.Sprintf("; quota %s is full (%d of %d pods) and the rolling update asks for maxSurge (%d) more pods than spec.replicas: %s; "+
		"raise the quota's pods by %d, or set maxSurge 0 and maxUnavailable at least 1, so that old pods go first (terminating pods count until they are gone)",
		name, used, limit, surge, stuck, surge)
}

// quotaValue reads the pods in the list after key ("used: pods=3,cpu=1")
// of a quota refusal.
func quotaValue(s, key string) (int64, bool) {
	_, list, ok := strings.Cut(s, key)
	if !ok {
		return 0, false
	}
	list, _, _ = strings.Cut(list, " ")
	for _, kv := range strings.Split(list, ",") {
		k, v, _ := strings.Cut(kv, "=")
		if k == "pods" || k == "count/pods" {
			n, err := strconv.ParseInt(v, 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// replicaFailureUnblock says what brings the pods once the refusal is
// fixed. The ReplicaSet controller retries a failed sync with the
// workqueue's backoff and never drops it: each wait doubles, so by the
// time a refusal has lasted T its wait is at least about T (the waits
// before sum to less than the last), and the first retry after the fix
// comes within about T more unless writes of the ReplicaSet late in the
// refusal (each a failed sync) doubled it again; a wait is never more
// than the limiter's 1000s. name is the refused ReplicaSet ("" if
// unknown); since, when the condition was set (zero if unknown).
func replicaFailureUnblock(name string, since, now time.Time) string {
	const fix = "fix what the ReplicaSet controller reports (a quota, an admission webhook, pod security)"
	rs := "the ReplicaSet"
	if name != "" {
		rs = "replicaset " + name
	}
	retries := "the fix is no event, but the ReplicaSet controller retries with backoff (5ms doubled per failed sync, at most 16m40s apart) and never gives up"
	if since.IsZero() || now.Before(since) {
		return fmt.Sprintf("%s: %s, and creates the pods at its next retry; to have them at once, change %s (kubectl annotate), an event it syncs on", fix, retries, rs)
	}
	ago := now.Sub(since)
	// The condition's time is in whole seconds: a second at least.
	within := min(max(ago, time.Second), 1000*time.Second).Round(time.Second)
	return fmt.Sprintf("%s: %s; refused since %s (%s ago), so the pods come at its next retry, "+
		"within about %s of the fix, as long as it has been refused (longer if the ReplicaSet was written late in the refusal); to have them at once, change %s (kubectl annotate), an event it syncs on",
		fix, retries, rfc3339(since), ago.Round(time.Second), within, rs)
}

// createFailed reports a refused create of the new ReplicaSet. The
// controller's first failure set the condition (lastTransitionTime); the
// retries come as internal/ratelimit's FailedSyncs says, the schedule
// measured on kube-controller-manager.
func (dg *diagnosis) createFailed() {
	c := deployutil.GetCondition(dg.d.Status, appsv1.DeploymentProgressing)
	if c == nil || c.Status != corev1.ConditionFalse || c.Reason != deployutil.ReasonReplicaSetCreateError {
		return
	}
	since := c.LastTransitionTime.Time
	ago := dg.s.Now.Sub(since)
	dg.add(ReplicaSetCreateFailed, createFailedUnblock(since, ago), str("since", rfc3339(since)),
		str("ago", ago.Round(time.Second).String()), str("message", c.Message))
}

// createFailedUnblock says what brings the rollout back once the refusal
// is fixed, given the first failure's time and how long ago it was.
func createFailedUnblock(since time.Time, ago time.Duration) string {
	const fix = "fix what refuses it (raise the quota, change the policy)"
	syncs := ratelimit.FailedSyncs()
	last := syncs[len(syncs)-1]
	for _, at := range syncs {
		if at > ago {
			return fmt.Sprintf("%s: the raise is no event, but the controller retries with backoff (5ms doubled per failure), "+
				"next at about %s (%s after the first failure), and creates it then; after %d retries, about %s, it stops, "+
				"and then only a change of the Deployment brings it back (kubectl annotate, kubectl rollout restart)",
				fix, rfc3339(since.Add(at).Truncate(time.Second)), at.Round(min(at, 10*time.Millisecond)), // ms below 10 ms
				ratelimit.MaxRetries, rfc3339(since.Add(last).Truncate(time.Second)))
		}
	}
	return fmt.Sprintf("%s, then change the Deployment (kubectl annotate, kubectl rollout restart): unless something changed it since, "+
		"the controller stopped retrying after %d retries, about %s after the first failure, and a raised quota is no event",
		fix, ratelimit.MaxRetries, last.Round(time.Second))
}

func (dg *diagnosis) collision() {
	var hc *deploysync.HashCollisionError
	if !errors.As(dg.plan.Err, &hc) {
		return
	}
	dg.add(HashCollision,
		"usually none: the next sync computes another name; if it repeats every sync, something keeps creating ReplicaSets under these names (another owner with a copy of the template)",
		str("replicaSet", hc.Name), num("collisionCount", hc.CollisionCount))
}

// staleDesiredReplicas tells a scaling event that never ends: this sync and
// the one after its plan both take the scaling branch and resize nothing.
func (dg *diagnosis) staleDesiredReplicas(opts []deploysync.Option) {
	if dg.plan.Branch != deploysync.ScalingEvent || resizes(dg.plan, dg.s.ReplicaSets, false) {
		return
	}
	after, err := deploysync.Apply(dg.s, dg.plan)
	if err != nil {
		return
	}
	again, err := deploysync.Sync(after, opts...)
	if err != nil || again.Branch != deploysync.ScalingEvent || resizes(again, after.ReplicaSets, false) {
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
	dg.add(StaleDesiredReplicas,
		"run with WithFixes(FixStaleDesiredReplicas), or scale the Deployment to another size and back, so the annotations are rewritten (kubernetes#102551)",
		num("replicas", *dg.d.Spec.Replicas), str("stale", strings.Join(stale, ", ")))
}

// resizes reports whether the plan changes spec.replicas of one of rss;
// down only counts shrinking.
func resizes(p deploysync.Plan, rss []*appsv1.ReplicaSet, down bool) bool {
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
	switch {
	case !dg.d.Spec.Paused:
	case dg.newRS != nil:
		dg.add(Paused, "kubectl rollout resume", str("replicaSet", dg.newRS.Name))
	default:
		dg.add(Paused, "kubectl rollout resume")
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
	dg.add(RecreateWaiting,
		"the old pods must finish: terminating ones within their terminationGracePeriodSeconds; a pod stuck terminating needs its node or finalizers looked at",
		num("reported", reported), action.Num("running", running), action.Num("terminating", terminating))
}

func (dg *diagnosis) newPods() {
	rs := dg.newRS
	if rs == nil || rs.Status.AvailableReplicas >= *rs.Spec.Replicas || *rs.Spec.Replicas == 0 {
		return
	}
	avail, ready := rs.Status.AvailableReplicas, rs.Status.ReadyReplicas
	values := []action.Value{num("available", avail), num("size", *rs.Spec.Replicas), str("replicaSet", rs.Name), num("ready", ready)}
	if m := dg.d.Spec.MinReadySeconds; m > 0 && ready > avail {
		values = append(values, num("notYetAvailable", ready-avail), num("minReadySeconds", m))
	}
	dg.add(NewPodsUnavailable,
		fmt.Sprintf("the new pods must become ready: kubectl describe pods -l %s=%s", deployutil.PodTemplateHashLabel, rs.Labels[deployutil.PodTemplateHashLabel]),
		values...)
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
		if minAvail := replicas - unavailable; avail <= minAvail {
			dg.add(ScaleDownBlocked,
				"new pods becoming available (or a larger maxUnavailable) lets old ones go",
				num("oldReplicas", oldSize), num("available", avail), num("minAvailable", minAvail), num("replicas", replicas), num("maxUnavailable", unavailable))
		}
	}
	if dg.newRS != nil && *dg.newRS.Spec.Replicas < replicas {
		total := facts.SpecReplicas(all)
		if limit := replicas + surge; total >= limit {
			dg.add(SurgeExhausted,
				"old pods going (which needs the availability above), or a larger maxSurge, lets the new ReplicaSet grow",
				str("replicaSet", dg.newRS.Name), num("size", *dg.newRS.Spec.Replicas), num("replicas", replicas),
				num("pods", total), num("maxSurge", surge), num("maxPods", limit))
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
			dg.add(SelectorOverlap,
				"give the Deployments selectors that no other Deployment's pods match: each controller keeps to its own ReplicaSets, but Services, kubectl and autoscalers see both sets of pods",
				str("replicaSet", rs.Name), str("deployment", ref.Name), str("selector", sel.String()))
		case ref == nil && rs.DeletionTimestamp == nil && d.DeletionTimestamp == nil:
			dg.add(OrphanAdoption,
				"none: the next sync adopts it; relabel it out of the selector if it is not this Deployment's",
				str("replicaSet", rs.Name), num("size", *rs.Spec.Replicas))
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
	const now = "none: the controller does it on its next sync"
	switch len(writes) {
	case 0:
		if len(dg.causes) == 0 {
			dg.add(NextSync, "wait for the next sync")
		}
	case 1:
		dg.add(NextSync, now, str("action", writes[0]))
	default:
		dg.add(NextSync, now, action.Num("writes", len(writes)), str("actions", strings.Join(writes, "; ")))
	}
}
