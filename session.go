package deploysync

import (
	"maps"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/limits"
)

// session is one sync in progress. It mirrors upstream's data flow: d is
// upstream's working copy of the Deployment, mutated as the sync goes; the
// ReplicaSets are read-only snapshots; every write is recorded as the pair
// (object it was based on, object sent), every event in order, in a log
// that merge (merge.go) folds into the plan's actions.
type session struct {
	opts options
	now  time.Time
	orig *appsv1.Deployment // the Deployment as read (the base of all its writes)
	d    *appsv1.Deployment // the working copy
	// sharedAnnots says that d's annotations are also held by the input or
	// by a logged write: copy them before an edit (editAnnotations).
	sharedAnnots bool
	rss          []*appsv1.ReplicaSet
	pods         map[types.UID][]*corev1.Pod
	// selector is the Deployment's selector, compiled once by the validation.
	selector facts.Selector
	// byName is the cache a create consults when the name is taken.
	byName map[string]*appsv1.ReplicaSet
	// released names the ReplicaSets this sync's claim releases.
	released map[string]bool
	// base pairs a ReplicaSet value with the server version it derives
	// from, for values that are not themselves a version the server holds
	// (an in-memory copy with annotations nobody wrote yet); a sync has one
	// or two.
	base []derived
	// split caches the new/old split of the claimed ReplicaSets; it depends
	// on the template, which only a rollback changes, after its last use.
	split *split
	log   []entry
	// logBuf, baseBuf and sentBuf hold the first entries of log, of base
	// and of what Deployment writes send (nSent of sentBuf in use): a sync
	// writes few, and these need no allocation of their own.
	logBuf  [4]entry
	baseBuf [2]derived
	sentBuf [2]sentDeployment
	nSent   int
	// work holds the working copy d points to.
	work appsv1.Deployment
	// limits is the seam of the rollout limits (WithLimits; the zero
	// value without): the mirror consults it at one point per decision a
	// limit changes and carries out what it returns.
	limits limits.Rollout

	// wait says why the rollout does not move on (the plan's Why).
	wait action.Reasons

	requeue      bool
	requeueAfter time.Duration
}

type split struct {
	newRS *appsv1.ReplicaSet
	old   []*appsv1.ReplicaSet
	// synced is the new ReplicaSet once its revision has been synced.
	synced *appsv1.ReplicaSet
}

func newSession(s State, o options) *session {
	// The working copy shares everything with the input: the sync assigns
	// status fields, conditions and the template wholesale and never
	// modifies what they point to; the annotations, which it does edit, it
	// copies first (editAnnotations).
	ss := &session{
		opts:         o,
		now:          s.Now,
		orig:         s.Deployment,
		rss:          s.ReplicaSets,
		pods:         s.Pods,
		sharedAnnots: true,
		limits:       o.sessionLimits(),
	}
	ss.work = *s.Deployment
	ss.d = &ss.work
	ss.log, ss.base = ss.logBuf[:0], ss.baseBuf[:0]
	return ss
}

// editAnnotations makes the working copy's annotations a map only it holds,
// before the sync edits them.
func (s *session) editAnnotations() {
	if s.sharedAnnots {
		s.d.Annotations = maps.Clone(s.d.Annotations)
		s.sharedAnnots = false
	}
}

// linearLookup is the number of ReplicaSets up to which lookup scans them
// rather than building a map: cheaper for the usual few. (Names are unique:
// the validation refuses duplicates.)
const linearLookup = 32

// lookup returns the ReplicaSet of the state with that name, or nil: what a
// create finds when the name is taken.
func (s *session) lookup(name string) *appsv1.ReplicaSet {
	if len(s.rss) <= linearLookup {
		for _, rs := range s.rss {
			if rs.Name == name {
				return rs
			}
		}
		return nil
	}
	if s.byName == nil {
		s.byName = make(map[string]*appsv1.ReplicaSet, len(s.rss))
		for _, rs := range s.rss {
			s.byName[rs.Name] = rs
		}
	}
	return s.byName[name]
}

// scale records a scaling decision, and its event if the size changes; the
// event's reason points at the scale, whose reason says why.
func (s *session) scale(sc deployutil.Resize) {
	s.writeRS(sc.From, sc.To, sc.Why)
	if sc.Resized() {
		s.event(corev1.EventTypeNormal, deployutil.EventScalingReplicaSet,
			"Scaled "+sc.Direction()+" replica set "+sc.To.Name+" from "+strconv.Itoa(int(*sc.From.Spec.Replicas))+" to "+strconv.Itoa(int(*sc.To.Spec.Replicas)),
			action.Because(action.RuleScaleEvent, action.Str("replicaSet", sc.To.Name)))
	}
}
