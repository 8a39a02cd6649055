package deploysync

import (
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/kversion"
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
	// Most syncs find the annotations current: the ReplicaSet itself then
	// goes on (it is read, never written: a later write copies it).
	c, changed := existing, false
	if !facts.ExistingAnnotationsSynced(d, existing, next) {
		cp := *existing
		cp.Annotations, changed = revision.NewReplicaSetAnnotations(d, existing, next, true, s.opts.historyLimit)
		c = &cp
	}
	if changed || existing.Spec.MinReadySeconds != d.Spec.MinReadySeconds {
		if c == existing {
			cp := *existing
			c = &cp
		}
		c.Spec.MinReadySeconds = d.Spec.MinReadySeconds
		s.writeRS(existing, c, newRSSyncReason(existing, c))
		return c
	}
	if c != existing {
		// Annotations copied in memory ride along with later writes.
		s.derive(c, existing)
	}
	needsUpdate := s.setRevision(c.Annotations[deployutil.RevisionAnnotation])
	why := make([]action.Reason, 0, 2)
	if needsUpdate {
		why = append(why, action.Because(action.RuleRecordFoundRevision, action.Str("revision", c.Annotations[deployutil.RevisionAnnotation])))
	}
	if facts.HasProgressDeadline(d) && facts.Condition(&d.Status, appsv1.DeploymentProgressing) == nil {
		facts.SetCondition(&d.Status, facts.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
			deployutil.ReasonFoundNewReplicaSet, "Found new replica set "+strconv.Quote(c.Name), s.now))
		needsUpdate = true
		why = append(why, action.Because(action.RuleStartTracking))
	}
	if needsUpdate {
		s.updateStatus(why...)
	}
	return c
}

func newRSSyncReason(from, to *appsv1.ReplicaSet) action.Reasons {
	vs := []action.Value{action.Str("replicaSet", to.Name)}
	if from.Spec.MinReadySeconds != to.Spec.MinReadySeconds {
		vs = append(vs, action.Num("minReadySeconds.from", from.Spec.MinReadySeconds), action.Num("minReadySeconds.to", to.Spec.MinReadySeconds))
	}
	if r := to.Annotations[deployutil.RevisionAnnotation]; r != from.Annotations[deployutil.RevisionAnnotation] {
		vs = append(vs, action.Str("revision.from", orNone(from.Annotations[deployutil.RevisionAnnotation])), action.Str("revision.to", r))
	}
	for k, v := range to.Annotations {
		if k == deployutil.RevisionAnnotation || k == deployutil.RevisionHistoryAnnotation {
			continue
		}
		if old, ok := from.Annotations[k]; !ok || old != v {
			vs = append(vs, action.Num("copyAnnotations", 1))
			break
		}
	}
	return action.Reasons{action.Because(action.RuleSyncNewReplicaSet, vs...)}
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
	n, limited := s.limits.Create(d, old, n)
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
			return nil, s.hashCollision(rs.Name, action.RuleHashCollisionReleased)
		}
		if ref == nil || ref.UID != d.UID || !deployutil.EqualIgnoreHash(&d.Spec.Template, &taken.Spec.Template) {
			return nil, s.hashCollision(rs.Name, action.RuleHashCollision)
		}
		// The name is ours already, with our template: carry on with it.
		created = taken
	} else {
		rule, vs := action.RuleCreateNew, []action.Value{action.Str("replicaSet", rs.Name), action.Str("hash", hash),
			action.Num("revision", next), action.Num("replicas", n)}
		if limited != nil {
			rule, vs = action.RuleCreateNewLimited, append(vs, limited...)
		}
		s.log = append(s.log, entry{kind: createRS, name: rs.Name, sent: rs, why: action.Reasons{action.Because(rule, vs...)}})
		if n > 0 {
			s.event(corev1.EventTypeNormal, deployutil.EventScalingReplicaSet,
				fmt.Sprintf("Scaled up replica set %s from 0 to %d", rs.Name, n), action.Because(action.RuleNewStartsEvent))
		}
	}
	needsUpdate := s.setRevision(newRevision)
	var why []action.Reason
	if needsUpdate {
		why = append(why, action.Because(action.RuleRecordRevision, action.Str("revision", newRevision)))
	}
	if created == rs && facts.HasProgressDeadline(d) {
		facts.SetCondition(&d.Status, facts.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
			deployutil.ReasonNewReplicaSetCreated, fmt.Sprintf("Created new replica set %q", rs.Name), s.now))
		needsUpdate = true
		why = append(why, action.Because(action.RuleNoteCreated))
	}
	if needsUpdate {
		s.updateStatus(why...)
	}
	return created, nil
}

func (s *session) hashCollision(name string, rule action.Rule) error {
	d := s.d
	n := int32(1)
	if d.Status.CollisionCount != nil {
		n = *d.Status.CollisionCount + 1 // int32: 2³¹−1 wraps to −2³¹, as upstream's
	}
	d.Status.CollisionCount = &n
	s.updateStatus(action.Because(rule, action.Str("replicaSet", name), action.Num("collisionCount", n)))
	return &HashCollisionError{Name: name, CollisionCount: n}
}

// newReplicaSetHash is the pod-template-hash the minor's controller gives
// the Deployment's template. The version was checked before the sync
// began and every field of the library's types copies into every older
// layout (the layout tests fill them all), so the error is not expected;
// it fails the sync rather than the process.
func (s *session) newReplicaSetHash() (string, error) {
	d := s.d
	if s.opts.version == kversion.Newest {
		return deployutil.ComputeHash(&d.Spec.Template, d.Status.CollisionCount), nil
	}
	h, err := deployutil.ComputeHashFor(s.opts.version.String(), &d.Spec.Template, d.Status.CollisionCount)
	if err != nil {
		return "", fmt.Errorf("deploysync: hashing the pod template as Kubernetes %s: %w", s.opts.version, err)
	}
	return h, nil
}

// newReplicaSetName is the name the minor's controller gives the new
// ReplicaSet: from 1.34 the Deployment's name is cut so that the whole fits
// 253 characters (pkg/controller/deployment/sync.go,
// generateReplicaSetName, v1.34.4); 1.33 joins them uncut (v1.33.5:
// d.Name + "-" + podTemplateSpecHash).
func (s *session) newReplicaSetName(hash string) string {
	if !s.opts.version.AtLeast(kversion.V1_34) {
		return s.d.Name + "-" + hash
	}
	return deployutil.ReplicaSetName(s.d.Name, hash)
}

// rejectedCreate is the apiserver's refusal of a new ReplicaSet, or nil:
// a name that is not a DNS subdomain. 1.33 sends names longer than 253
// characters (it does not cut the Deployment's name); every minor can send
// a cut name that ends in ".-<hash>" (a Deployment name with a '.' where the
// cut falls), which the apiserver refuses as malformed.
func rejectedCreate(rs *appsv1.ReplicaSet) *CreateRejectedError {
	msgs := apimachineryvalidation.NameIsDNSSubdomain(rs.Name, false)
	if len(msgs) == 0 {
		return nil
	}
	// The apiserver's Invalid error over ValidateObjectMeta's name errors,
	// as apps/v1 ReplicaSet validation returns it.
	var errs field.ErrorList
	for _, m := range msgs {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), rs.Name, m))
	}
	err := apierrors.NewInvalid(schema.GroupKind{Group: appsv1.GroupName, Kind: "ReplicaSet"}, rs.Name, errs)
	return &CreateRejectedError{Name: rs.Name, Message: err.Error()}
}

// createFailed is upstream's answer to a failed create (other than
// AlreadyExists): the Progressing condition says so when there is a
// progress deadline, a Warning event says so, and the sync fails.
func (s *session) createFailed(err *CreateRejectedError) error {
	d := s.d
	msg := fmt.Sprintf("Failed to create new replica set %q: %v", err.Name, err)
	if facts.HasProgressDeadline(d) {
		facts.SetCondition(&d.Status, facts.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse,
			deployutil.ReasonReplicaSetCreateError, msg, s.now))
		s.updateStatus(action.Because(action.RuleCreateRefused, action.Str("replicaSet", err.Name), action.Num("length", len(err.Name))))
	}
	s.event(corev1.EventTypeWarning, deployutil.EventReplicaSetCreateError, s.eventMessage(msg),
		action.Because(action.RuleCreateRefusedEvent, action.Str("kubernetesVersion", s.opts.version.String()),
			action.Str("replicaSet", err.Name), action.Num("length", len(err.Name))))
	return err
}

// setRevision sets the Deployment's revision annotation; it reports whether
// that changed it.
func (s *session) setRevision(rev string) bool {
	if s.d.Annotations[deployutil.RevisionAnnotation] == rev {
		return false
	}
	s.editAnnotations()
	if s.d.Annotations == nil {
		s.d.Annotations = map[string]string{}
	}
	s.d.Annotations[deployutil.RevisionAnnotation] = rev
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
