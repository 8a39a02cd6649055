package deploysync

import (
	"fmt"
	"maps"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
)

// session is one sync in progress. It mirrors upstream's data flow: d is
// upstream's working copy of the Deployment, mutated as the sync goes; the
// ReplicaSets are read-only snapshots; every write is recorded as the pair
// (object it was based on, object sent), every event in order.
type session struct {
	opts options
	now  time.Time
	orig *appsv1.Deployment // the Deployment as read (the base of all its writes)
	d    *appsv1.Deployment // the working copy
	rss  []*appsv1.ReplicaSet
	pods map[types.UID][]*corev1.Pod
	// byName is the cache a create consults when the name is taken.
	byName map[string]*appsv1.ReplicaSet
	// base maps a ReplicaSet value to the server version it derives from,
	// for values that are not themselves a version the server holds (an
	// in-memory copy with annotations nobody wrote yet).
	base map[*appsv1.ReplicaSet]*appsv1.ReplicaSet
	// split caches the new/old split of the claimed ReplicaSets; it depends
	// on the template, which only a rollback changes, after its last use.
	split *split
	log   []entry

	requeue      bool
	requeueAfter time.Duration
}

type split struct {
	newRS *appsv1.ReplicaSet
	old   []*appsv1.ReplicaSet
	// synced is the new ReplicaSet once its revision has been synced.
	synced *appsv1.ReplicaSet
}

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

type entry struct {
	kind       entryKind
	name       string             // the ReplicaSet's name
	base, sent *appsv1.ReplicaSet // ReplicaSet writes
	dep        *sentDeployment    // Deployment writes
	ev         action.Event
	why        string
}

// sentDeployment is what a Deployment write sent, as far as a write can
// change it: its annotations, its status and (for an update) its template.
type sentDeployment struct {
	annotations map[string]string
	status      appsv1.DeploymentStatus
	template    *corev1.PodTemplateSpec
}

func newSession(s State, o options) *session {
	// The working copy shares everything with the input but the annotations:
	// the sync assigns status fields, conditions and the template wholesale
	// and never modifies what they point to, but it does edit annotations.
	d := *s.Deployment
	d.Annotations = maps.Clone(s.Deployment.Annotations)
	return &session{
		opts: o,
		now:  s.Now,
		orig: s.Deployment,
		d:    &d,
		rss:  s.ReplicaSets,
		pods: s.Pods,
	}
}

// lookup returns the ReplicaSet of the state with that name, or nil: what a
// create finds when the name is taken.
func (s *session) lookup(name string) *appsv1.ReplicaSet {
	if s.byName == nil {
		s.byName = make(map[string]*appsv1.ReplicaSet, len(s.rss))
		for _, rs := range s.rss {
			s.byName[rs.Name] = rs
		}
	}
	return s.byName[name]
}

// derive notes that value is an in-memory copy of the server's version of.
func (s *session) derive(value, of *appsv1.ReplicaSet) {
	if s.base == nil {
		s.base = map[*appsv1.ReplicaSet]*appsv1.ReplicaSet{}
	}
	s.base[value] = s.baseOf(of)
}

func (s *session) baseOf(rs *appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if b, ok := s.base[rs]; ok {
		return b
	}
	return rs
}

// writeRS records an update of a ReplicaSet: to is sent, based on the
// version from derives from. The value sent is what later decisions read.
func (s *session) writeRS(from, to *appsv1.ReplicaSet, why string) {
	s.log = append(s.log, entry{kind: updateRS, name: to.Name, base: s.baseOf(from), sent: to, why: why})
}

// scale records a scaling decision, and its event if the size changes.
func (s *session) scale(sc deployutil.Scale) {
	s.writeRS(sc.From, sc.To, sc.Why)
	if sc.Resized() {
		s.event(corev1.EventTypeNormal, deployutil.EventScalingReplicaSet,
			fmt.Sprintf("Scaled %s replica set %s from %d to %d", sc.Direction(), sc.To.Name, *sc.From.Spec.Replicas, *sc.To.Spec.Replicas), sc.Why)
	}
}

func (s *session) event(typ, reason, msg, why string) {
	s.log = append(s.log, entry{kind: event, ev: action.Event{Type: typ, Reason: reason, Message: msg, Why: why}})
}

// updateStatus records a write of the Deployment's status subresource with
// the working copy as it is now.
func (s *session) updateStatus(why string) {
	sent := &sentDeployment{annotations: maps.Clone(s.d.Annotations), status: s.d.Status}
	s.log = append(s.log, entry{kind: updateDStatus, dep: sent, why: why})
}

// updateDeployment records a write of the Deployment itself.
func (s *session) updateDeployment(why string) {
	t := s.d.Spec.Template
	sent := &sentDeployment{annotations: maps.Clone(s.d.Annotations), template: &t}
	s.log = append(s.log, entry{kind: updateD, dep: sent, why: why})
}

// plan merges the log into the plan's actions: one action per object and
// kind of write, carrying the union of the changes (each write's difference
// from the version it was based on, applied in order), at the position of
// the last write it absorbs.
func (s *session) plan() []action.Action {
	type rsIntent struct {
		w                  *appsv1.ReplicaSet // the object with every change so far
		created, updated   bool
		createAt, updateAt int
		why                []string
	}
	intents := map[string]*rsIntent{}
	// intentOf returns the intent for a ReplicaSet written to, starting from a
	// copy of the ReplicaSet as read (a created one starts from what was sent).
	intentOf := func(name string) *rsIntent {
		in, ok := intents[name]
		if !ok {
			in = &rsIntent{}
			if rs := s.lookup(name); rs != nil {
				in.w = rs.DeepCopy()
			}
			intents[name] = in
		}
		return in
	}
	var dw *appsv1.Deployment
	var dWhy, sWhy []string
	dAt, sAt := -1, -1
	out := make([]action.Action, len(s.log))
	for i, e := range s.log {
		switch e.kind {
		case createRS:
			in := &rsIntent{w: e.sent.DeepCopy(), created: true, createAt: i}
			intents[e.name] = in
			in.why = append(in.why, e.why)
		case updateRS:
			in := intentOf(e.name)
			mergeReplicaSet(in.w, e.base, e.sent)
			in.updated, in.updateAt = true, i
			in.why = appendOnce(in.why, e.why)
		case deleteRS:
			rs := s.lookup(e.name)
			out[i] = &action.DeleteReplicaSet{Namespace: rs.Namespace, Name: rs.Name, UID: rs.UID, Why: e.why}
		case adoptRS, releaseRS:
			in := intentOf(e.name)
			rs := s.lookup(e.name)
			if e.kind == adoptRS {
				in.w.OwnerReferences = deployutil.WithControllerRef(in.w.OwnerReferences, s.orig)
				out[i] = &action.AdoptReplicaSet{Namespace: rs.Namespace, Name: rs.Name, UID: rs.UID, OwnerUID: s.orig.UID,
					Patch: deployutil.AdoptPatch(s.orig, rs.UID), Why: e.why}
			} else {
				in.w.OwnerReferences = deployutil.WithoutOwner(in.w.OwnerReferences, s.orig.UID)
				out[i] = &action.ReleaseReplicaSet{Namespace: rs.Namespace, Name: rs.Name, UID: rs.UID, OwnerUID: s.orig.UID,
					Patch: deployutil.ReleasePatch(rs.UID, s.orig.UID), Why: e.why}
			}
		case updateD, updateDStatus:
			if dw == nil {
				dw = s.orig.DeepCopy()
			}
			mergeDeployment(dw, s.orig, e.dep, e.kind == updateDStatus)
			if e.kind == updateD {
				dAt, dWhy = i, appendOnce(dWhy, e.why)
			} else {
				sAt, sWhy = i, appendOnce(sWhy, e.why)
			}
		case event:
			ev := e.ev
			out[i] = &ev
		}
	}
	for _, in := range intents {
		why := strings.Join(in.why, "; ")
		switch {
		case in.created:
			out[in.createAt] = &action.CreateReplicaSet{ReplicaSet: in.w, Why: why}
		case in.updated:
			out[in.updateAt] = &action.UpdateReplicaSet{ReplicaSet: in.w, Why: why}
		}
		if in.created && in.updated && in.updateAt > in.createAt {
			// The created object already carries the later changes.
			out[in.updateAt] = nil
		}
	}
	if dAt >= 0 {
		obj := dw
		if sAt >= 0 {
			obj = dw.DeepCopy()
		}
		out[dAt] = &action.UpdateDeployment{Deployment: obj, Why: strings.Join(dWhy, "; ")}
	}
	if sAt >= 0 {
		out[sAt] = &action.UpdateDeploymentStatus{Deployment: dw, Why: strings.Join(sWhy, "; ")}
	}
	actions := out[:0]
	for _, a := range out {
		if a != nil {
			actions = append(actions, a)
		}
	}
	return actions
}

// mergeReplicaSet applies to w what sent changed relative to base, field by
// field: the fields a sync ever writes on a ReplicaSet.
func mergeReplicaSet(w, base, sent *appsv1.ReplicaSet) {
	if *base.Spec.Replicas != *sent.Spec.Replicas {
		n := *sent.Spec.Replicas
		w.Spec.Replicas = &n
	}
	if base.Spec.MinReadySeconds != sent.Spec.MinReadySeconds {
		w.Spec.MinReadySeconds = sent.Spec.MinReadySeconds
	}
	w.Annotations = mergeMap(w.Annotations, base.Annotations, sent.Annotations)
}

// mergeDeployment applies to w what sent changed relative to base: the
// status and annotations for a status write, the template and annotations for
// an update (the status endpoint keeps spec and labels; the main endpoint
// keeps status).
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
	if !equality.Semantic.DeepEqual(b.Conditions, x.Conditions) {
		ws.Conditions = append([]appsv1.DeploymentCondition(nil), x.Conditions...)
	}
}

// mergeMap applies the key-wise difference between base and sent to w (a map
// this session owns, or nil) and returns it.
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

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// copyPtr returns a pointer to a copy of *p, or nil: the merged object must
// not share the sent one's status pointers.
func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	return ptr.To(*p)
}
