package deploysync

import (
	"fmt"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/revision"
)

// getAllReplicaSetsAndSyncRevision is upstream's call of that name without
// a create: it splits the claimed ReplicaSets into the new one (nil if none)
// and the old ones (oldest first, zero-sized included) and syncs the new
// one's revision. Without a create it cannot fail: upstream's only errors
// on that path are the API's answers to its writes, and a plan's writes are
// intents that get no answer. Only creating the new ReplicaSet can fail
// (see getAllReplicaSetsAndSyncRevisionOrCreate).
func (s *session) getAllReplicaSetsAndSyncRevision(rsList []*appsv1.ReplicaSet) (*appsv1.ReplicaSet, []*appsv1.ReplicaSet) {
	if s.split == nil {
		newRS, old := facts.SplitReplicaSets(s.d, rsList)
		s.split = &split{newRS: newRS, old: old}
	}
	old := s.split.old[:len(s.split.old):len(s.split.old)]
	if s.split.newRS == nil {
		return nil, old
	}
	if s.split.synced == nil {
		s.split.synced = s.syncNewReplicaSet(s.split.newRS, old)
	}
	// Upstream syncs an existing new ReplicaSet again with the same cache
	// and the same Deployment: the same write, stale, or none.
	return s.split.synced, old
}

// getAllReplicaSetsAndSyncRevisionOrCreate is the same call with a create: a
// missing new ReplicaSet is created, which fails on a hash collision or
// when its size cannot be computed (facts.NewReplicaSetReplicas).
func (s *session) getAllReplicaSetsAndSyncRevisionOrCreate(rsList []*appsv1.ReplicaSet) (*appsv1.ReplicaSet, []*appsv1.ReplicaSet, error) {
	newRS, old := s.getAllReplicaSetsAndSyncRevision(rsList)
	if newRS != nil {
		return newRS, old, nil
	}
	newRS, err := s.createNewReplicaSet(old, revision.Max(old)+1)
	if err != nil {
		return nil, nil, err
	}
	return newRS, old, nil
}

// syncNewReplicaSet brings the existing new ReplicaSet's annotations and
// minReadySeconds up to date (returning right after such a write, as
// upstream: the Deployment's revision waits for the next sync), or records
// its revision on the Deployment.
func (s *session) syncNewReplicaSet(existing *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	d := s.d
	next := revision.Max(old) + 1
	ann, changed := revision.NewReplicaSetAnnotations(d, existing, next, true, s.opts.historyLimit)
	c := *existing
	c.Annotations = ann
	if changed || existing.Spec.MinReadySeconds != d.Spec.MinReadySeconds {
		c.Spec.MinReadySeconds = d.Spec.MinReadySeconds
		s.writeRS(existing, &c, newRSSyncReason(existing, &c))
		return &c
	}
	// Annotations copied in memory ride along with later writes.
	s.derive(&c, existing)
	needsUpdate := setRevision(d, c.Annotations[deployutil.RevisionAnnotation])
	var why []string
	if needsUpdate {
		why = append(why, fmt.Sprintf("record revision %s of the new ReplicaSet on the Deployment", c.Annotations[deployutil.RevisionAnnotation]))
	}
	if facts.HasProgressDeadline(d) && deployutil.GetCondition(d.Status, appsv1.DeploymentProgressing) == nil {
		facts.SetCondition(&d.Status, facts.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
			action.ReasonFoundNewReplicaSet, fmt.Sprintf("Found new replica set %q", c.Name), s.now))
		needsUpdate = true
		why = append(why, "start tracking progress: there is a progress deadline and no Progressing condition yet")
	}
	if needsUpdate {
		s.updateStatus(strings.Join(why, "; "))
	}
	return &c
}

func newRSSyncReason(from, to *appsv1.ReplicaSet) string {
	var parts []string
	if from.Spec.MinReadySeconds != to.Spec.MinReadySeconds {
		parts = append(parts, fmt.Sprintf("minReadySeconds %d→%d as the Deployment's", from.Spec.MinReadySeconds, to.Spec.MinReadySeconds))
	}
	if r := to.Annotations[deployutil.RevisionAnnotation]; r != from.Annotations[deployutil.RevisionAnnotation] {
		parts = append(parts, fmt.Sprintf("revision %s→%s: it is the new ReplicaSet again", orNone(from.Annotations[deployutil.RevisionAnnotation]), r))
	}
	for k, v := range to.Annotations {
		if k == deployutil.RevisionAnnotation || k == deployutil.RevisionHistoryAnnotation {
			continue
		}
		if old, ok := from.Annotations[k]; !ok || old != v {
			parts = append(parts, "copy the Deployment's annotations")
			break
		}
	}
	return "sync the new ReplicaSet " + to.Name + ": " + strings.Join(parts, "; ")
}

func (s *session) createNewReplicaSet(old []*appsv1.ReplicaSet, next int64) (*appsv1.ReplicaSet, error) {
	d := s.d
	hash, err := s.newReplicaSetHash()
	if err != nil {
		return nil, err
	}
	tpl := d.Spec.Template
	tpl.Labels = withLabel(d.Spec.Template.Labels, deployutil.PodTemplateHashLabel, hash)
	zero := int32(0)
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:            s.newReplicaSetName(hash),
			Namespace:       d.Namespace,
			OwnerReferences: []metav1.OwnerReference{deployutil.ControllerRef(d)},
			Labels:          tpl.Labels,
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas:        &zero,
			MinReadySeconds: d.Spec.MinReadySeconds,
			Selector:        selectorWithLabel(d.Spec.Selector, deployutil.PodTemplateHashLabel, hash),
			Template:        tpl,
		},
	}
	n, err := facts.NewReplicaSetReplicas(d, append(old[:len(old):len(old)], rs), rs)
	if err != nil {
		return nil, err
	}
	n, limited := s.limitCreate(old, n)
	rs.Spec.Replicas = &n
	rs.Annotations, _ = revision.NewReplicaSetAnnotations(d, rs, next, false, s.opts.historyLimit)
	newRevision := strconv.FormatInt(next, 10)
	if rejected := rejectedCreate(rs); rejected != nil {
		return nil, s.createFailed(rejected)
	}

	created := rs
	if taken := s.lookup(rs.Name); taken != nil {
		// Upstream reads the name from its cache. Unless that cache lags,
		// it shows this sync's release: no controller, a collision.
		ref := metav1.GetControllerOfNoCopy(taken)
		if s.released[rs.Name] && !s.opts.laggingCache {
			return nil, s.hashCollision(rs.Name, "is released by this sync: no longer this Deployment's")
		}
		if ref == nil || ref.UID != d.UID || !deployutil.EqualIgnoreHash(&d.Spec.Template, &taken.Spec.Template) {
			return nil, s.hashCollision(rs.Name, "is not this Deployment's ReplicaSet with this template")
		}
		// The name is ours already, with our template: carry on with it.
		created = taken
	} else {
		s.log = append(s.log, entry{kind: createRS, name: rs.Name, sent: rs, why: fmt.Sprintf(
			"no ReplicaSet matches the pod template; create %s (pod-template-hash %s, revision %d) with %d replicas%s", rs.Name, hash, next, n, limited)})
		if n > 0 {
			s.event(corev1.EventTypeNormal, action.EventScalingReplicaSet,
				fmt.Sprintf("Scaled up replica set %s from 0 to %d", rs.Name, n), "the new ReplicaSet starts with replicas")
		}
	}
	needsUpdate := setRevision(d, newRevision)
	var why []string
	if needsUpdate {
		why = append(why, "record revision "+newRevision+" on the Deployment")
	}
	if created == rs && facts.HasProgressDeadline(d) {
		facts.SetCondition(&d.Status, facts.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
			action.ReasonNewReplicaSetCreated, fmt.Sprintf("Created new replica set %q", rs.Name), s.now))
		needsUpdate = true
		why = append(why, "note the new ReplicaSet in the Progressing condition")
	}
	if needsUpdate {
		s.updateStatus(strings.Join(why, "; "))
	}
	return created, nil
}

func (s *session) hashCollision(name, why string) error {
	d := s.d
	n := int32(1)
	if d.Status.CollisionCount != nil {
		n = *d.Status.CollisionCount + 1 // int32: 2³¹−1 wraps to −2³¹, as upstream's
	}
	d.Status.CollisionCount = &n
	s.updateStatus(fmt.Sprintf("hash collision: %s exists and %s; collisionCount %d gives the next sync another name", name, why, n))
	return &HashCollisionError{Name: name, CollisionCount: n}
}

// setRevision sets the Deployment's revision annotation; it reports whether
// that changed it.
func setRevision(d *appsv1.Deployment, rev string) bool {
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	if d.Annotations[deployutil.RevisionAnnotation] == rev {
		return false
	}
	d.Annotations[deployutil.RevisionAnnotation] = rev
	return true
}

func withLabel(labels map[string]string, k, v string) map[string]string {
	out := make(map[string]string, len(labels)+1)
	for a, b := range labels {
		out[a] = b
	}
	out[k] = v
	return out
}

// selectorWithLabel copies a selector and adds k=v to its matchLabels, with
// upstream's copy (nil expressions stay nil, nil value lists stay nil).
func selectorWithLabel(sel *metav1.LabelSelector, k, v string) *metav1.LabelSelector {
	out := &metav1.LabelSelector{MatchLabels: withLabel(sel.MatchLabels, k, v)}
	if sel.MatchExpressions != nil {
		out.MatchExpressions = make([]metav1.LabelSelectorRequirement, len(sel.MatchExpressions))
		for i, e := range sel.MatchExpressions {
			out.MatchExpressions[i] = metav1.LabelSelectorRequirement{Key: e.Key, Operator: e.Operator}
			if e.Values != nil {
				out.MatchExpressions[i].Values = append([]string{}, e.Values...)
			}
		}
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
