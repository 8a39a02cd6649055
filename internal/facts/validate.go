package facts

import (
	"fmt"
	"hash/maphash"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
)

// IsSelectingAll reports whether the selector is the empty selector
// (non-nil, with nil matchLabels and nil matchExpressions). Upstream refuses
// to act on such a Deployment beyond a warning; a selector with an empty but
// non-nil matchLabels is not caught by this check, as upstream.
func IsSelectingAll(d *appsv1.Deployment) bool {
	// Upstream compares with reflect.DeepEqual against &LabelSelector{}:
	// only a selector whose two fields are both nil is equal to it.
	sel := d.Spec.Selector
	return sel != nil && sel.MatchLabels == nil && sel.MatchExpressions == nil
}

// Validate refuses exactly what could not be a snapshot of an apps/v1
// apiserver, and nothing else. It returns the first problem as an
// [*InputError] naming the object, the field, the value and the rule it
// mirrors, or nil. Three kinds of rule:
//
//  1. apps/v1 validation: what the apiserver's validation of a Deployment,
//     its status or a ReplicaSet refuses, for the fields the sync reads
//     (ValidateDeploymentSpec, ValidateDeploymentStrategy,
//     ValidateRollingUpdateDeployment, ValidateDeploymentStatus,
//     ValidateReplicaSetSpec, ValidateReplicaSetStatus, object names). Pod
//     templates are not validated beyond their labels: Validate may accept
//     more than an apiserver, never less.
//  2. apps/v1 defaulting: a nil field that defaulting always fills
//     (spec.replicas, rollingUpdate and its two fields, a ReplicaSet's
//     spec.replicas); run [SetDefaults] on objects that never went through
//     an apiserver.
//  3. Not a snapshot: a nil Deployment, ReplicaSet or pod, two ReplicaSets
//     with one name or UID, a ReplicaSet of another namespace.
//
// Everything else gets upstream's decision, bit for bit, however odd:
// annotations are free-form strings read with upstream's parsers, and
// counts, sums, collision counts and revisions wrap around in int32 (int64
// for revisions) exactly where upstream's do. Pods are not checked beyond
// nil: a pod whose controller is not one of the claimed ReplicaSets is not
// one of their pods, as in upstream's pod index.
//
// A Deployment selecting all pods (see [IsSelectingAll]) is checked like any
// other, its empty selector aside (an apiserver refuses it; upstream keeps a
// branch for such legacy objects, and so does Sync); its ReplicaSets and pods
// are not checked, since that branch reads none.
func Validate(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, pods map[types.UID][]*corev1.Pod) error {
	_, err := ValidateSelect(d, rss, pods)
	return err
}

// ValidateSelect is [Validate] that also returns the Deployment's compiled
// selector, so that a sync checks it once (see [ClaimWith]).
func ValidateSelect(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, pods map[types.UID][]*corev1.Pod) (Selector, error) {
	if d == nil {
		return Selector{}, &deployutil.InputError{Object: "Deployment", Field: "deployment", Kind: deployutil.Required, Detail: "the state needs a Deployment", Rule: ruleSnapshot}
	}
	sel, err := validateDeployment(d)
	if err != nil {
		return Selector{}, err
	}
	if IsSelectingAll(d) {
		return sel, nil // the sync reads no ReplicaSet or pod
	}
	if err := validateReplicaSets(d, rss); err != nil {
		return Selector{}, err
	}
	return sel, validatePods(pods)
}

// The rules an InputError can mirror.
const (
	ruleSnapshot       = "not a snapshot: a state read from one apiserver cannot hold this"
	ruleDefaulting     = "apps/v1 defaulting (SetDefaults_Deployment, SetDefaults_ReplicaSet) always sets it; run deployutil.SetDefaults on objects that never went through an apiserver"
	ruleObjectMeta     = "apiserver ValidateObjectMeta: a name is required and must be a DNS subdomain"
	ruleSpec           = "apps/v1 ValidateDeploymentSpec"
	ruleStrategy       = "apps/v1 ValidateDeploymentStrategy"
	ruleRollingUpdate  = "apps/v1 ValidateRollingUpdateDeployment"
	ruleDeployStatus   = "apps/v1 ValidateDeploymentStatus"
	ruleReplicaSetSpec = "apps/v1 ValidateReplicaSetSpec"
	ruleRSStatus       = "apps/v1 ValidateReplicaSetStatus"
	ruleDNSSubdomain   = "apiserver ValidateObjectMeta (ValidateDeploymentName: a DNS subdomain)"
)

// isPercent reports whether s is digits followed by "%", the only form of
// percentage an apiserver accepts (IsValidPercent).
func isPercent(s string) bool {
	if len(s) < 2 || s[len(s)-1] != '%' {
		return false
	}
	for i := 0; i < len(s)-1; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// culprit names the object an InputError is about, and builds the error only
// when there is one: a value, not a closure, so that checking an object
// allocates nothing.
type culprit struct {
	d  *appsv1.Deployment // the Deployment, when rs is nil
	rs *appsv1.ReplicaSet
	i  int // rs's index in the state
}

func (c culprit) bad(field string, kind deployutil.ErrorKind, value any, detail, rule string) error {
	obj := ""
	if c.rs != nil {
		obj = rsObject(c.rs, c.i)
	} else {
		obj = objectName(c.d)
	}
	return &deployutil.InputError{Object: obj, Field: field, Kind: kind, Value: value, Detail: detail, Rule: rule}
}

func validateDeployment(d *appsv1.Deployment) (Selector, error) {
	c := culprit{d: d}
	if d.Name == "" {
		return Selector{}, c.bad("metadata.name", deployutil.Required, nil, "a Deployment needs a name", ruleObjectMeta)
	}
	if !isDNS1123Subdomain(d.Name) {
		// The hand-written check answers as the regexp does (the tests
		// compare them); the message is the apiserver's.
		if errs := validation.IsDNS1123Subdomain(d.Name); len(errs) > 0 {
			return Selector{}, c.bad("metadata.name", deployutil.Invalid, d.Name, errs[0], ruleDNSSubdomain)
		}
	}
	s := &d.Spec
	if s.Replicas == nil {
		return Selector{}, c.bad("spec.replicas", deployutil.Required, nil, "not set", ruleDefaulting)
	}
	if *s.Replicas < 0 {
		return Selector{}, c.bad("spec.replicas", deployutil.Invalid, *s.Replicas, "must be greater than or equal to 0", ruleSpec)
	}
	if s.Selector == nil {
		return Selector{}, c.bad("spec.selector", deployutil.Required, nil, "a Deployment needs a selector", ruleSpec)
	}
	sel, err := CompileSelector(s.Selector)
	if err != nil {
		return Selector{}, c.bad("spec.selector", deployutil.Invalid, metav1.FormatLabelSelector(s.Selector), err.Error(), ruleSpec+" (invalid label selector)")
	}
	if !sel.Matches(s.Template.Labels) {
		return Selector{}, c.bad("spec.template.metadata.labels", deployutil.Invalid, labels.Set(s.Template.Labels).String(), "`selector` does not match template `labels`",
			"apps/v1 ValidatePodTemplateSpecForReplicaSet")
	}
	if s.MinReadySeconds < 0 {
		return Selector{}, c.bad("spec.minReadySeconds", deployutil.Invalid, s.MinReadySeconds, "must be greater than or equal to 0", ruleSpec)
	}
	if s.RevisionHistoryLimit != nil && *s.RevisionHistoryLimit < 0 {
		return Selector{}, c.bad("spec.revisionHistoryLimit", deployutil.Invalid, *s.RevisionHistoryLimit, "must be greater than or equal to 0", ruleSpec)
	}
	if p := s.ProgressDeadlineSeconds; p != nil {
		if *p < 0 {
			return Selector{}, c.bad("spec.progressDeadlineSeconds", deployutil.Invalid, *p, "must be greater than or equal to 0", ruleSpec)
		}
		if *p <= s.MinReadySeconds {
			return Selector{}, c.bad("spec.progressDeadlineSeconds", deployutil.Invalid, *p, fmt.Sprintf("must be greater than minReadySeconds (%d)", s.MinReadySeconds), ruleSpec)
		}
	}
	if err := validateStrategy(d, c); err != nil {
		return Selector{}, err
	}
	if err := validateDeploymentStatus(&d.Status, c); err != nil {
		return Selector{}, err
	}
	return sel, nil
}

func validateStrategy(d *appsv1.Deployment, c culprit) error {
	st := d.Spec.Strategy
	switch st.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if st.RollingUpdate != nil {
			return c.bad("spec.strategy.rollingUpdate", deployutil.Invalid, "set", "may not be specified when strategy `type` is 'Recreate'", ruleStrategy)
		}
		return nil
	case appsv1.RollingUpdateDeploymentStrategyType:
	default:
		return c.bad("spec.strategy.type", deployutil.NotSupported, string(st.Type), `supported values: "Recreate", "RollingUpdate"`, ruleStrategy)
	}
	ru := st.RollingUpdate
	if ru == nil {
		return c.bad("spec.strategy.rollingUpdate", deployutil.Required, nil, "not set for a RollingUpdate", ruleDefaulting)
	}
	for _, f := range []struct {
		field string // whole, not built per sync: a concatenation allocates
		v     *intstr.IntOrString
	}{{"spec.strategy.rollingUpdate.maxUnavailable", ru.MaxUnavailable}, {"spec.strategy.rollingUpdate.maxSurge", ru.MaxSurge}} {
		field := f.field
		switch {
		case f.v == nil:
			return c.bad(field, deployutil.Required, nil, "not set for a RollingUpdate", ruleDefaulting)
		case f.v.Type == intstr.Int && f.v.IntVal < 0:
			return c.bad(field, deployutil.Invalid, f.v.IntVal, "must be greater than or equal to 0", ruleRollingUpdate+" (ValidatePositiveIntOrPercent)")
		case f.v.Type == intstr.String && !isPercent(f.v.StrVal):
			return c.bad(field, deployutil.Invalid, f.v.StrVal, "must be an integer or a percentage like '25%'", ruleRollingUpdate+" (ValidatePositiveIntOrPercent)")
		case f.v.Type != intstr.Int && f.v.Type != intstr.String:
			return c.bad(field, deployutil.Invalid, f.v.Type, "must be an integer or a percentage", ruleRollingUpdate+" (ValidatePositiveIntOrPercent)")
		}
	}
	if rawValue(ru.MaxUnavailable) == 0 && rawValue(ru.MaxSurge) == 0 {
		return c.bad("spec.strategy.rollingUpdate.maxUnavailable", deployutil.Invalid, ru.MaxUnavailable.String(), "may not be 0 when `maxSurge` is 0", ruleRollingUpdate)
	}
	if ru.MaxUnavailable.Type == intstr.String && rawValue(ru.MaxUnavailable) > 100 {
		return c.bad("spec.strategy.rollingUpdate.maxUnavailable", deployutil.Invalid, ru.MaxUnavailable.StrVal, "must not be greater than 100%", ruleRollingUpdate+" (IsNotMoreThan100Percent)")
	}
	return nil
}

// rawValue is the number written in an int-or-percent, percent or not, as
// the apiserver reads it (strconv.Atoi: digits beyond int64 read as its
// maximum).
func rawValue(v *intstr.IntOrString) int64 {
	if v.Type == intstr.Int {
		return int64(v.IntVal)
	}
	n, _ := strconv.ParseInt(v.StrVal[:len(v.StrVal)-1], 10, 64)
	return n
}

func validateDeploymentStatus(s *appsv1.DeploymentStatus, c culprit) error {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"observedGeneration", s.ObservedGeneration}, {"replicas", int64(s.Replicas)}, {"updatedReplicas", int64(s.UpdatedReplicas)},
		{"readyReplicas", int64(s.ReadyReplicas)}, {"availableReplicas", int64(s.AvailableReplicas)},
		{"unavailableReplicas", int64(s.UnavailableReplicas)}, {"terminatingReplicas", int64(ptr.Deref(s.TerminatingReplicas, 0))},
		{"collisionCount", int64(ptr.Deref(s.CollisionCount, 0))},
	} {
		if f.v < 0 {
			return c.bad("status."+f.name, deployutil.Invalid, f.v, "must be greater than or equal to 0", ruleDeployStatus)
		}
	}
	switch {
	case s.UpdatedReplicas > s.Replicas:
		return c.bad("status.updatedReplicas", deployutil.Invalid, s.UpdatedReplicas, "cannot be greater than status.replicas", ruleDeployStatus)
	case s.ReadyReplicas > s.Replicas:
		return c.bad("status.readyReplicas", deployutil.Invalid, s.ReadyReplicas, "cannot be greater than status.replicas", ruleDeployStatus)
	case s.AvailableReplicas > s.Replicas:
		return c.bad("status.availableReplicas", deployutil.Invalid, s.AvailableReplicas, "cannot be greater than status.replicas", ruleDeployStatus)
	case s.AvailableReplicas > s.ReadyReplicas:
		return c.bad("status.availableReplicas", deployutil.Invalid, s.AvailableReplicas, "cannot be greater than readyReplicas", ruleDeployStatus)
	}
	return nil
}

func validateReplicaSets(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) error {
	var seen seenSet
	seen.init(len(rss))
	for i, rs := range rss {
		if rs == nil {
			return &deployutil.InputError{Object: fmt.Sprintf("ReplicaSet #%d", i), Field: "replicaSets", Kind: deployutil.Required, Detail: "nil ReplicaSet in the state", Rule: ruleSnapshot}
		}
		if err := validateReplicaSet(d, rs, i, &seen); err != nil {
			return err
		}
	}
	return nil
}

// smallSeen is the number of ReplicaSets up to which duplicates are found
// in two fixed hash tables (no allocation); more use two maps.
const smallSeen = 32

// seenTableSize is the size of a fixed table: a power of two with room for
// smallSeen keys at half load.
const seenTableSize = 2 * smallSeen

// seenSet remembers the names and UIDs of the ReplicaSets checked so far.
type seenSet struct {
	seed         maphash.Seed
	names, uids  seenTable
	mnames, muid map[string]struct{}
}

type seenTable [seenTableSize]seenSlot

type seenSlot struct {
	used bool
	hash uint64
	key  string
}

func (s *seenSet) init(n int) {
	if n > smallSeen {
		s.mnames, s.muid = make(map[string]struct{}, n), make(map[string]struct{}, n)
		return
	}
	s.seed = maphash.MakeSeed() // only where keys land: the answers do not depend on it
}

// add notes a ReplicaSet's name and UID and reports which of them an
// earlier one had.
func (s *seenSet) add(name string, uid types.UID) (dupName, dupUID bool) {
	if s.mnames != nil {
		_, dupName = s.mnames[name]
		_, dupUID = s.muid[string(uid)]
		s.mnames[name], s.muid[string(uid)] = struct{}{}, struct{}{}
		return dupName, dupUID
	}
	return s.names.add(s.seed, name), s.uids.add(s.seed, string(uid))
}

// add puts key in the table (open addressing; it never fills: at most
// smallSeen keys) and reports whether it was there.
func (t *seenTable) add(seed maphash.Seed, key string) bool {
	h := maphash.String(seed, key)
	for j := h & (seenTableSize - 1); ; j = (j + 1) & (seenTableSize - 1) {
		sl := &t[j]
		if !sl.used {
			*sl = seenSlot{used: true, hash: h, key: key}
			return false
		}
		if sl.hash == h && sl.key == key {
			return true
		}
	}
}

// validatePods refuses a nil pod: the only thing about pods that cannot be
// a snapshot and that the sync would trip on. Which pods count, and for
// which ReplicaSet, is decided by their controller reference.
func validatePods(pods map[types.UID][]*corev1.Pod) error {
	for uid, list := range pods {
		for i, p := range list {
			if p == nil {
				return &deployutil.InputError{Object: "Pods", Field: fmt.Sprintf("pods[%s][%d]", uid, i), Kind: deployutil.Required, Detail: "nil pod in the state", Rule: ruleSnapshot}
			}
		}
	}
	return nil
}

func rsObject(rs *appsv1.ReplicaSet, i int) string {
	if rs.Name == "" {
		return fmt.Sprintf("ReplicaSet #%d", i)
	}
	return "ReplicaSet " + rs.Namespace + "/" + rs.Name
}

// validateReplicaSet checks one ReplicaSet; seen answers for the
// ReplicaSets before it.
func validateReplicaSet(d *appsv1.Deployment, rs *appsv1.ReplicaSet, i int, seen *seenSet) error {
	c := culprit{rs: rs, i: i}
	dupName, dupUID := seen.add(rs.Name, rs.UID)
	switch {
	case rs.Name == "":
		return c.bad("metadata.name", deployutil.Required, nil, "a ReplicaSet needs a name", ruleObjectMeta)
	case dupName:
		return c.bad("metadata.name", deployutil.Duplicate, rs.Name, "two ReplicaSets in the state have this name", ruleSnapshot)
	case dupUID:
		return c.bad("metadata.uid", deployutil.Duplicate, string(rs.UID), "two ReplicaSets in the state have this UID", ruleSnapshot)
	case rs.Namespace != d.Namespace:
		return c.bad("metadata.namespace", deployutil.Invalid, rs.Namespace, fmt.Sprintf("the state holds the ReplicaSets of namespace %q only", d.Namespace), ruleSnapshot)
	case rs.Spec.Replicas == nil:
		return c.bad("spec.replicas", deployutil.Required, nil, "not set", ruleDefaulting)
	case *rs.Spec.Replicas < 0:
		return c.bad("spec.replicas", deployutil.Invalid, *rs.Spec.Replicas, "must be greater than or equal to 0", ruleReplicaSetSpec)
	}
	return validateReplicaSetStatus(&rs.Status, c)
}

// validateReplicaSetStatus mirrors ValidateReplicaSetStatus for the fields
// the sync reads (fullyLabeledReplicas is not one of them).
func validateReplicaSetStatus(s *appsv1.ReplicaSetStatus, c culprit) error {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"replicas", int64(s.Replicas)}, {"readyReplicas", int64(s.ReadyReplicas)}, {"availableReplicas", int64(s.AvailableReplicas)},
		{"terminatingReplicas", int64(ptr.Deref(s.TerminatingReplicas, 0))}, {"observedGeneration", s.ObservedGeneration},
	} {
		if f.v < 0 {
			return c.bad("status."+f.name, deployutil.Invalid, f.v, "must be greater than or equal to 0", ruleRSStatus)
		}
	}
	switch {
	case s.ReadyReplicas > s.Replicas:
		return c.bad("status.readyReplicas", deployutil.Invalid, s.ReadyReplicas, "cannot be greater than status.replicas", ruleRSStatus)
	case s.AvailableReplicas > s.Replicas:
		return c.bad("status.availableReplicas", deployutil.Invalid, s.AvailableReplicas, "cannot be greater than status.replicas", ruleRSStatus)
	case s.AvailableReplicas > s.ReadyReplicas:
		return c.bad("status.availableReplicas", deployutil.Invalid, s.AvailableReplicas, "cannot be greater than readyReplicas", ruleRSStatus)
	}
	return nil
}

// ValidateReplicaSet checks a ReplicaSet on its own, as [Validate] checks
// each ReplicaSet of a state: its name, spec.replicas and status. It
// returns the first problem as an [*InputError], or nil.
func ValidateReplicaSet(rs *appsv1.ReplicaSet) error {
	if rs == nil {
		return &deployutil.InputError{Object: "ReplicaSet #0", Field: "replicaSet", Kind: deployutil.Required, Detail: "nil ReplicaSet", Rule: ruleSnapshot}
	}
	var seen seenSet
	seen.init(1)
	owner := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: rs.Namespace}}
	return validateReplicaSet(owner, rs, 0, &seen)
}
