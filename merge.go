package deploysync

// The write log and its merge into a plan's actions.
//
// A sync records what upstream's syncDeployment would send, in its order:
// every write as the pair (version it was based on, object sent), every
// event, deletion, adoption and release as it happens. A plan instead has at
// most one action per object and kind of write, and merge folds the log into
// those actions. The rule, exactly:
//
//   - An event, a deletion, an adoption and a release are one action each,
//     at their own position in the log, never merged.
//   - A ReplicaSet created by the sync is one CreateReplicaSet at the
//     position of its create. Its object is the one sent with every later
//     update of it folded in; its reasons are the create's, then each
//     reason of a later update that was not already given.
//   - A ReplicaSet of the state that is updated is one UpdateReplicaSet at
//     the position of its last update. Its object is the ReplicaSet as read,
//     with the owner references an adoption or release of it left (an
//     update is sent after the patch), and each update's difference from
//     the version it was based on applied in order; its reasons are the
//     updates' distinct reasons in order. An adoption or release alone
//     writes no UpdateReplicaSet.
//   - The Deployment's updates are one UpdateDeployment at the position of
//     the last one, its status writes one UpdateDeploymentStatus at the
//     position of the last one, each with its kind's distinct reasons in
//     order. Both carry the same merged object (each its own copy): the
//     Deployment as read with each write's difference from the Deployment
//     as read applied in order, whatever its kind (a status write sends the
//     annotations and the status, an update the annotations and the
//     template). The endpoint each goes to keeps only its part: the status
//     endpoint takes no spec, the main one no status.
//
// A ReplicaSet's update is based on the version it was computed from — the
// ReplicaSet as read, or what an earlier update sent — so its difference is
// exactly what it changed. A Deployment write always sends the whole working
// copy, so its difference is taken from the Deployment as read: a field an
// earlier write changed and a later write sends back at its as-read value
// keeps the earlier write's value, and an annotation an earlier write added
// stays when a later one lacks it.
//
// A difference covers the fields a sync ever writes: for a ReplicaSet
// spec.replicas, spec.minReadySeconds and the annotations key by key; for
// the Deployment the annotations key by key, the template as a whole and
// each status field. Every other field is as read (TestMergeFields lists
// each field of the types involved, merged or why a sync never writes it).

import (
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/kversion"
)

type entryKind int

const (
	createRS entryKind = iota
	updateRS
	deleteRS
	adoptRS
	releaseRS
	updateD
	updateDStatus
	event
)

// entry is one step of the write log.
type entry struct {
	kind       entryKind
	name       string             // the ReplicaSet's name
	base, sent *appsv1.ReplicaSet // ReplicaSet writes (a create has no base)
	dep        *sentDeployment    // Deployment writes
	ev         *action.Event      // an event: the plan's action itself
	why        action.Reasons
}

// sentDeployment is what a Deployment write sent, as far as a write can
// change it: its annotations, its status and (for an update) its template.
type sentDeployment struct {
	annotations map[string]string
	status      appsv1.DeploymentStatus
	template    *corev1.PodTemplateSpec
}

// newSent returns room for what a Deployment write sends: in the session
// for its first writes (a sync makes one or two), else on the heap.
func (s *session) newSent() *sentDeployment {
	if s.nSent < len(s.sentBuf) {
		s.nSent++
		return &s.sentBuf[s.nSent-1]
	}
	return new(sentDeployment)
}

// derived is a ReplicaSet value and the server's version it is a copy of.
type derived struct{ value, of *appsv1.ReplicaSet }

// derive notes that value is an in-memory copy of the server's version of.
func (s *session) derive(value, of *appsv1.ReplicaSet) {
	s.base = append(s.base, derived{value, s.baseOf(of)})
}

// baseOf returns the server's version a ReplicaSet value stands for: the
// value itself unless derive noted it as a copy.
func (s *session) baseOf(rs *appsv1.ReplicaSet) *appsv1.ReplicaSet {
	for _, d := range s.base {
		if d.value == rs {
			return d.of
		}
	}
	return rs
}

// writeRS records an update of a ReplicaSet: to is sent, based on the
// version from derives from. The value sent is what later decisions read.
func (s *session) writeRS(from, to *appsv1.ReplicaSet, why action.Reasons) {
	s.log = append(s.log, entry{kind: updateRS, name: to.Name, base: s.baseOf(from), sent: to, why: why})
}

func (s *session) event(typ, reason, msg string, why ...action.Reason) {
	s.log = append(s.log, entry{kind: event, ev: &action.Event{Type: typ, Reason: reason, Message: msg, Why: why}})
}

// eventMessage is how the minor's controller records a message it has
// already formatted: up to 1.35 it passes it to Eventf as the format with
// no arguments (pkg/controller/deployment/sync.go and rollback.go, v1.35.4),
// so a '%' in it is read as a verb; from 1.36 it passes "%s" and the
// message (v1.36.3). The messages that go this way (ReplicaSetCreateError,
// the rollback events) hold names, which cannot contain '%', and fixed
// texts: the difference does not show on any state an apiserver holds.
func (s *session) eventMessage(msg string) string {
	if s.opts.version.AtLeast(kversion.V1_36) {
		return msg
	}
	return fmt.Sprintf(msg, []any{}...)
}

// updateStatus records a write of the Deployment's status subresource with
// the working copy as it is now.
func (s *session) updateStatus(why ...action.Reason) {
	s.sharedAnnots = true
	sent := s.newSent()
	*sent = sentDeployment{annotations: s.d.Annotations, status: s.d.Status}
	s.log = append(s.log, entry{kind: updateDStatus, dep: sent, why: why})
}

// updateDeployment records a write of the Deployment itself.
func (s *session) updateDeployment(why ...action.Reason) {
	t := s.d.Spec.Template
	s.sharedAnnots = true
	sent := s.newSent()
	*sent = sentDeployment{annotations: s.d.Annotations, template: &t}
	s.log = append(s.log, entry{kind: updateD, dep: sent, why: why})
}

// plan is the session's log merged into a plan's actions.
func (s *session) plan() []action.Action {
	return merge(s.log, s.lookup, s.orig)
}

// merge folds a write log into a plan's actions by the rule above. read
// returns the state's ReplicaSet of a name (nil if none) and orig is the
// Deployment as read; neither is modified, nor is anything the log points
// to: the actions' objects are merge's own.
func merge(log []entry, read func(name string) *appsv1.ReplicaSet, orig *appsv1.Deployment) []action.Action {
	type rsIntent struct {
		name               string
		w                  *appsv1.ReplicaSet // the object with every change so far
		created, updated   bool
		createAt, updateAt int
		why                action.Reasons
	}
	// A sync writes few ReplicaSets: the intents are found by a scan.
	var intents []*rsIntent
	find := func(name string) int {
		return slices.IndexFunc(intents, func(in *rsIntent) bool { return in.name == name })
	}
	// intentOf returns the intent for a ReplicaSet of the state, starting
	// from a copy of it as read.
	intentOf := func(name string) *rsIntent {
		if j := find(name); j >= 0 {
			return intents[j]
		}
		in := &rsIntent{name: name}
		if rs := read(name); rs != nil {
			in.w = rs.DeepCopy()
		}
		intents = append(intents, in)
		return in
	}
	var dw *appsv1.Deployment
	var dWhy, sWhy action.Reasons
	dAt, sAt := -1, -1
	// out has a slot per entry; the slots of writes folded elsewhere stay nil.
	out := make([]action.Action, len(log))
	for i, e := range log {
		switch e.kind {
		case createRS:
			// A create starts the name's intent afresh, whatever was
			// logged for that name before (a release of the state's holder).
			in := &rsIntent{name: e.name, w: e.sent.DeepCopy(), created: true, createAt: i, why: slices.Clip(e.why)}
			if j := find(e.name); j >= 0 {
				intents[j] = in
			} else {
				intents = append(intents, in)
			}
		case updateRS:
			in := intentOf(e.name)
			mergeReplicaSet(in.w, e.base, e.sent)
			in.updated, in.updateAt = true, i
			in.why = appendOnce(in.why, e.why)
		case deleteRS:
			rs := read(e.name)
			out[i] = &action.DeleteReplicaSet{Namespace: rs.Namespace, Name: rs.Name, UID: rs.UID, Why: e.why}
		case adoptRS, releaseRS:
			in := intentOf(e.name)
			rs := read(e.name)
			if e.kind == adoptRS {
				in.w.OwnerReferences = facts.WithControllerRef(in.w.OwnerReferences, orig)
				out[i] = &action.AdoptReplicaSet{Namespace: rs.Namespace, Name: rs.Name, UID: rs.UID, OwnerUID: orig.UID,
					Patch: facts.AdoptPatch(orig, rs.UID), Why: e.why}
			} else {
				in.w.OwnerReferences = facts.WithoutOwner(in.w.OwnerReferences, orig.UID)
				out[i] = &action.ReleaseReplicaSet{Namespace: rs.Namespace, Name: rs.Name, UID: rs.UID, OwnerUID: orig.UID,
					Patch: facts.ReleasePatch(rs.UID, orig.UID), Why: e.why}
			}
		case updateD, updateDStatus:
			if dw == nil {
				dw = orig.DeepCopy()
			}
			mergeDeployment(dw, orig, e.dep, e.kind == updateDStatus)
			if e.kind == updateD {
				dAt, dWhy = i, appendOnce(dWhy, e.why)
			} else {
				sAt, sWhy = i, appendOnce(sWhy, e.why)
			}
		case event:
			out[i] = e.ev // made for the plan by the log, held by nothing else
		}
	}
	for _, in := range intents {
		// A created ReplicaSet's updates are folded into its create; the
		// slots of its updates stay empty.
		switch {
		case in.created:
			out[in.createAt] = &action.CreateReplicaSet{ReplicaSet: in.w, Why: in.why}
		case in.updated:
			out[in.updateAt] = &action.UpdateReplicaSet{ReplicaSet: in.w, Why: in.why}
		}
	}
	if dAt >= 0 {
		obj := dw
		if sAt >= 0 {
			obj = dw.DeepCopy()
		}
		out[dAt] = &action.UpdateDeployment{Deployment: obj, Why: dWhy}
	}
	if sAt >= 0 {
		out[sAt] = &action.UpdateDeploymentStatus{Deployment: dw, Why: sWhy}
	}
	return slices.DeleteFunc(out, func(a action.Action) bool { return a == nil })
}

// mergeReplicaSet applies to w what sent changed relative to base, field by
// field: the fields a sync ever writes on a ReplicaSet (TestMergeFields).
func mergeReplicaSet(w, base, sent *appsv1.ReplicaSet) {
	if *base.Spec.Replicas != *sent.Spec.Replicas {
		if w.Spec.Replicas != nil {
			*w.Spec.Replicas = *sent.Spec.Replicas // w's own pointer
		} else {
			w.Spec.Replicas = ptr.To(*sent.Spec.Replicas)
		}
	}
	if base.Spec.MinReadySeconds != sent.Spec.MinReadySeconds {
		w.Spec.MinReadySeconds = sent.Spec.MinReadySeconds
	}
	w.Annotations = mergeMap(w.Annotations, base.Annotations, sent.Annotations)
}

// mergeDeployment applies to w what sent changed relative to base: the
// status and annotations for a status write, the template and annotations for
// an update (TestMergeFields).
func mergeDeployment(w, base *appsv1.Deployment, sent *sentDeployment, status bool) {
	w.Annotations = mergeMap(w.Annotations, base.Annotations, sent.annotations)
	if !status {
		if !equality.Semantic.DeepEqual(base.Spec.Template, *sent.template) {
			w.Spec.Template = *sent.template.DeepCopy()
		}
		return
	}
	b, x, ws := &base.Status, &sent.status, &w.Status
	if b.ObservedGeneration != x.ObservedGeneration {
		ws.ObservedGeneration = x.ObservedGeneration
	}
	if b.Replicas != x.Replicas {
		ws.Replicas = x.Replicas
	}
	if b.UpdatedReplicas != x.UpdatedReplicas {
		ws.UpdatedReplicas = x.UpdatedReplicas
	}
	if b.ReadyReplicas != x.ReadyReplicas {
		ws.ReadyReplicas = x.ReadyReplicas
	}
	if b.AvailableReplicas != x.AvailableReplicas {
		ws.AvailableReplicas = x.AvailableReplicas
	}
	if b.UnavailableReplicas != x.UnavailableReplicas {
		ws.UnavailableReplicas = x.UnavailableReplicas
	}
	if !ptr.Equal(b.TerminatingReplicas, x.TerminatingReplicas) {
		ws.TerminatingReplicas = copyPtr(x.TerminatingReplicas)
	}
	if !ptr.Equal(b.CollisionCount, x.CollisionCount) {
		ws.CollisionCount = copyPtr(x.CollisionCount)
	}
	if !semanticSameConditions(b.Conditions, x.Conditions) {
		ws.Conditions = append([]appsv1.DeploymentCondition(nil), x.Conditions...)
	}
}

// semanticSameConditions is equality.Semantic.DeepEqual on two condition
// lists without its reflection: nil and empty are equal, times are equal when
// their UTC forms are ==, every other field by == (TestSemanticSameConditions
// checks each field of DeploymentCondition against equality.Semantic).
func semanticSameConditions(a, b []appsv1.DeploymentCondition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message ||
			x.LastUpdateTime.UTC() != y.LastUpdateTime.UTC() || x.LastTransitionTime.UTC() != y.LastTransitionTime.UTC() {
			return false
		}
	}
	return true
}

// mergeMap applies the key-wise difference between base and sent to w (a map
// the merge owns, or nil) and returns it.
func mergeMap(w, base, sent map[string]string) map[string]string {
	for k, v := range sent {
		if old, ok := base[k]; !ok || old != v {
			if w == nil {
				w = map[string]string{}
			}
			w[k] = v
		}
	}
	for k := range base {
		if _, ok := sent[k]; !ok {
			delete(w, k)
		}
	}
	return w
}

// copyPtr returns a pointer to a copy of *p, or nil: the merged object must
// not share the sent one's status pointers.
func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	return ptr.To(*p)
}

// appendOnce appends to list each reason of add it does not hold yet. An
// empty list and reasons all distinct are add itself (clipped: an append to
// the result copies).
func appendOnce(list, add action.Reasons) action.Reasons {
	if len(list) == 0 && distinct(add) {
		return slices.Clip(add)
	}
	for _, r := range add {
		if !list.Contains(r) {
			list = append(list, r)
		}
	}
	return list
}

// distinct reports whether no reason appears twice in rs.
func distinct(rs action.Reasons) bool {
	for i := range rs {
		if rs[:i].Contains(rs[i]) {
			return false
		}
	}
	return true
}
