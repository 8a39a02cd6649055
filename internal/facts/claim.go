package facts

import (
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
)

// OwnershipChange is an adoption or a release that claiming decides.
type OwnershipChange struct {
	ReplicaSet *appsv1.ReplicaSet
	// Adopt is true for an adoption, false for a release.
	Adopt bool
	Why   action.Reasons
}

// Claim decides which ReplicaSets the Deployment controls, one by one in the
// given order, by these rules:
//
//  1. Controlled by another owner: ignored.
//  2. Controlled by d and its labels match d's selector: claimed, even while
//     d is being deleted.
//  3. Controlled by d, labels do not match: released — unless d is being
//     deleted, then ignored.
//  4. Without a controller: adopted (and claimed) if its labels match, d is
//     not being deleted, the ReplicaSet is not being deleted, and it is in
//     d's namespace; otherwise ignored.
//
// Matching uses the ReplicaSet's labels, not its selector. claimed keeps the
// given order and holds the objects as given (an adopted ReplicaSet does not
// show its new owner yet, as upstream). The error is that of an invalid
// selector.
func Claim(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (claimed []*appsv1.ReplicaSet, changes []OwnershipChange, err error) {
	sel, err := CompileSelector(d.Spec.Selector)
	if err != nil {
		return nil, nil, fmt.Errorf("deployment %s/%s has invalid label selector: %w", d.Namespace, d.Name, err)
	}
	claimed, changes = ClaimWith(d, &sel, rss)
	return claimed, changes, nil
}

// ClaimWith is [Claim] with the Deployment's selector already compiled (by
// [ValidateSelect]).
func ClaimWith(d *appsv1.Deployment, sel *Selector, rss []*appsv1.ReplicaSet) (claimed []*appsv1.ReplicaSet, changes []OwnershipChange) {
	deleting := d.DeletionTimestamp != nil
	claim := func(rs *appsv1.ReplicaSet) {
		if claimed == nil {
			claimed = make([]*appsv1.ReplicaSet, 0, len(rss)) // one allocation; nil if none is claimed
		}
		claimed = append(claimed, rs)
	}
	for _, rs := range rss {
		match := sel.Matches(rs.Labels)
		ref := metav1.GetControllerOfNoCopy(rs)
		switch {
		case ref != nil && ref.UID != d.UID:
		case ref != nil && match:
			claim(rs)
		case ref != nil && !deleting:
			changes = append(changes, OwnershipChange{ReplicaSet: rs, Why: action.Reasons{action.Because(action.RuleRelease,
				action.Str("labels", labels.Set(rs.Labels).String()), action.Str("selector", sel.String()))}})
		case ref != nil:
		case deleting || !match || rs.DeletionTimestamp != nil:
		case d.Namespace != "" && d.Namespace != rs.Namespace:
		default:
			claim(rs)
			changes = append(changes, OwnershipChange{ReplicaSet: rs, Adopt: true, Why: action.Reasons{action.Because(action.RuleAdopt,
				action.Str("labels", labels.Set(rs.Labels).String()), action.Str("selector", sel.String()))}})
		}
	}
	return claimed, changes
}

type adoptPatch struct {
	Metadata adoptMeta `json:"metadata"`
}

type adoptMeta struct {
	OwnerReferences []metav1.OwnerReference `json:"ownerReferences"`
	UID             types.UID               `json:"uid"`
}

type releasePatch struct {
	Metadata releaseMeta `json:"metadata"`
}

type releaseMeta struct {
	UID             types.UID           `json:"uid"`
	OwnerReferences []map[string]string `json:"ownerReferences"`
}

// AdoptPatch returns the strategic merge patch that adopts the ReplicaSet
// with UID rsUID, byte-identical to upstream's.
func AdoptPatch(d *appsv1.Deployment, rsUID types.UID) []byte {
	b, _ := json.Marshal(adoptPatch{Metadata: adoptMeta{
		OwnerReferences: []metav1.OwnerReference{deployutil.ControllerRef(d)},
		UID:             rsUID,
	}})
	return b
}

// ReleasePatch returns the strategic merge patch that removes the owner
// reference to ownerUID from the ReplicaSet with UID rsUID, byte-identical
// to upstream's.
func ReleasePatch(rsUID, ownerUID types.UID) []byte {
	b, _ := json.Marshal(releasePatch{Metadata: releaseMeta{
		UID:             rsUID,
		OwnerReferences: []map[string]string{{"$patch": "delete", "uid": string(ownerUID)}},
	}})
	return b
}

// WithControllerRef returns a copy of owner references with d's controller
// reference merged in the way a server applies the adoption patch (a
// strategic merge on the list keyed by UID): an entry with d's UID takes the
// reference's fields where it stands; otherwise the reference comes first,
// before the existing entries.
func WithControllerRef(refs []metav1.OwnerReference, d *appsv1.Deployment) []metav1.OwnerReference {
	ref := deployutil.ControllerRef(d)
	out := append([]metav1.OwnerReference(nil), refs...)
	for i := range out {
		if out[i].UID == ref.UID {
			out[i] = ref
			return out
		}
	}
	return append([]metav1.OwnerReference{ref}, out...)
}

// WithoutOwner returns a copy of owner references without those to uid, as
// the release patch leaves them.
func WithoutOwner(refs []metav1.OwnerReference, uid types.UID) []metav1.OwnerReference {
	var out []metav1.OwnerReference
	for _, r := range refs {
		if r.UID != uid {
			out = append(out, r)
		}
	}
	return out
}
