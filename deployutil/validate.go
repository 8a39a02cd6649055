package deployutil

import (
	"fmt"
	"math"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
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

// Validate checks a state the way an apiserver would have let it in, and
// refuses what the controller's arithmetic cannot handle safely. It returns
// the first problem as an [*InputError] naming the object, the field and the
// value, or nil.
//
// A Deployment selecting all pods (see [IsSelectingAll]) is checked like any
// other, its empty selector aside (an apiserver refuses it; upstream keeps a
// branch for such legacy objects, and so does Sync); its ReplicaSets and pods
// are not checked, since that branch reads none.
func Validate(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, pods map[types.UID][]*corev1.Pod) error {
	if d == nil {
		return &InputError{Object: "Deployment", Field: "deployment", Kind: Required, Detail: "the state needs a Deployment"}
	}
	if err := validateDeployment(d); err != nil {
		return err
	}
	if IsSelectingAll(d) {
		return nil // the sync reads no ReplicaSet or pod
	}
	return validateReplicaSets(d, rss, pods)
}

// isPercent reports whether s is digits followed by "%", the only form of
// percentage an apiserver accepts.
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

func validateDeployment(d *appsv1.Deployment) error {
	bad := func(field string, kind ErrorKind, value any, detail string) error {
		return &InputError{Object: objectName(d), Field: field, Kind: kind, Value: value, Detail: detail}
	}
	if d.Name == "" {
		return bad("metadata.name", Required, nil, "a Deployment needs a name")
	}
	if errs := validation.IsDNS1123Subdomain(d.Name); len(errs) > 0 {
		return bad("metadata.name", Invalid, d.Name, errs[0])
	}
	s := &d.Spec
	if s.Replicas == nil {
		return bad("spec.replicas", Required, nil, "set it, or apply deployutil.SetDefaults to objects that never passed an apiserver")
	}
	if *s.Replicas < 0 {
		return bad("spec.replicas", Invalid, *s.Replicas, "must be greater than or equal to 0")
	}
	if s.Selector == nil {
		return bad("spec.selector", Required, nil, "a Deployment needs a selector")
	}
	sel, err := metav1.LabelSelectorAsSelector(s.Selector)
	if err != nil {
		return bad("spec.selector", Invalid, metav1.FormatLabelSelector(s.Selector), err.Error())
	}
	if !sel.Matches(labels.Set(s.Template.Labels)) {
		return bad("spec.template.metadata.labels", Invalid, labels.Set(s.Template.Labels).String(), "`selector` does not match template `labels`")
	}
	if s.MinReadySeconds < 0 {
		return bad("spec.minReadySeconds", Invalid, s.MinReadySeconds, "must be greater than or equal to 0")
	}
	if s.RevisionHistoryLimit != nil && *s.RevisionHistoryLimit < 0 {
		return bad("spec.revisionHistoryLimit", Invalid, *s.RevisionHistoryLimit, "must be greater than or equal to 0")
	}
	if p := s.ProgressDeadlineSeconds; p != nil {
		if *p < 0 {
			return bad("spec.progressDeadlineSeconds", Invalid, *p, "must be greater than or equal to 0")
		}
		if *p <= s.MinReadySeconds {
			return bad("spec.progressDeadlineSeconds", Invalid, *p, fmt.Sprintf("must be greater than minReadySeconds (%d)", s.MinReadySeconds))
		}
	}
	if err := validateStrategy(d, bad); err != nil {
		return err
	}
	if err := validateDeploymentStatus(&d.Status, bad); err != nil {
		return err
	}
	return nil
}

func validateStrategy(d *appsv1.Deployment, bad func(string, ErrorKind, any, string) error) error {
	st := d.Spec.Strategy
	switch st.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if st.RollingUpdate != nil {
			return bad("spec.strategy.rollingUpdate", Invalid, "set", "may not be specified when strategy `type` is 'Recreate'")
		}
		return nil
	case appsv1.RollingUpdateDeploymentStrategyType:
	default:
		return bad("spec.strategy.type", NotSupported, string(st.Type), `supported values: "Recreate", "RollingUpdate"`)
	}
	ru := st.RollingUpdate
	if ru == nil {
		return bad("spec.strategy.rollingUpdate", Required, nil, "a RollingUpdate needs maxSurge and maxUnavailable")
	}
	for _, f := range []struct {
		name string
		v    *intstr.IntOrString
	}{{"maxUnavailable", ru.MaxUnavailable}, {"maxSurge", ru.MaxSurge}} {
		field := "spec.strategy.rollingUpdate." + f.name
		switch {
		case f.v == nil:
			return bad(field, Required, nil, "set it, or apply deployutil.SetDefaults")
		case f.v.Type == intstr.Int && f.v.IntVal < 0:
			return bad(field, Invalid, f.v.IntVal, "must be greater than or equal to 0")
		case f.v.Type == intstr.String && !isPercent(f.v.StrVal):
			return bad(field, Invalid, f.v.StrVal, "must be an integer or a percentage like '25%'")
		case f.v.Type != intstr.Int && f.v.Type != intstr.String:
			return bad(field, Invalid, f.v.Type, "must be an integer or a percentage")
		}
	}
	if rawValue(ru.MaxUnavailable) == 0 && rawValue(ru.MaxSurge) == 0 {
		return bad("spec.strategy.rollingUpdate.maxUnavailable", Invalid, ru.MaxUnavailable.String(), "may not be 0 when `maxSurge` is 0")
	}
	if ru.MaxUnavailable.Type == intstr.String && rawValue(ru.MaxUnavailable) > 100 {
		return bad("spec.strategy.rollingUpdate.maxUnavailable", Invalid, ru.MaxUnavailable.StrVal, "must not be greater than 100%")
	}
	surge, _, err := Fenceposts(d)
	if err != nil || int64(*d.Spec.Replicas)+int64(surge) > math.MaxInt32 {
		return bad("spec.strategy.rollingUpdate.maxSurge", Overflow, ru.MaxSurge.String(),
			fmt.Sprintf("replicas (%d) + maxSurge exceeds %d; upstream would wrap around", *d.Spec.Replicas, math.MaxInt32))
	}
	return nil
}

// rawValue is the number written in an int-or-percent, percent or not.
func rawValue(v *intstr.IntOrString) int64 {
	if v.Type == intstr.Int {
		return int64(v.IntVal)
	}
	n, _ := strconv.ParseInt(v.StrVal[:len(v.StrVal)-1], 10, 64)
	return n
}

func validateDeploymentStatus(s *appsv1.DeploymentStatus, bad func(string, ErrorKind, any, string) error) error {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"observedGeneration", s.ObservedGeneration}, {"replicas", int64(s.Replicas)}, {"updatedReplicas", int64(s.UpdatedReplicas)},
		{"readyReplicas", int64(s.ReadyReplicas)}, {"availableReplicas", int64(s.AvailableReplicas)},
		{"unavailableReplicas", int64(s.UnavailableReplicas)}, {"terminatingReplicas", deref(s.TerminatingReplicas)},
		{"collisionCount", deref(s.CollisionCount)},
	} {
		if f.v < 0 {
			return bad("status."+f.name, Invalid, f.v, "must be greater than or equal to 0")
		}
	}
	if s.CollisionCount != nil && *s.CollisionCount == math.MaxInt32 {
		return bad("status.collisionCount", Overflow, *s.CollisionCount, "a further hash collision would wrap it around")
	}
	switch {
	case s.UpdatedReplicas > s.Replicas:
		return bad("status.updatedReplicas", Invalid, s.UpdatedReplicas, "cannot be greater than status.replicas")
	case s.ReadyReplicas > s.Replicas:
		return bad("status.readyReplicas", Invalid, s.ReadyReplicas, "cannot be greater than status.replicas")
	case s.AvailableReplicas > s.Replicas:
		return bad("status.availableReplicas", Invalid, s.AvailableReplicas, "cannot be greater than status.replicas")
	case s.AvailableReplicas > s.ReadyReplicas:
		return bad("status.availableReplicas", Invalid, s.AvailableReplicas, "cannot be greater than readyReplicas")
	}
	return nil
}

func deref(p *int32) int64 {
	if p == nil {
		return 0
	}
	return int64(*p)
}

func validateReplicaSets(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, pods map[types.UID][]*corev1.Pod) error {
	names := make(map[string]struct{}, len(rss))
	uids := make(map[types.UID]*appsv1.ReplicaSet, len(rss))
	var sums [5]int64 // spec, status, ready, available, terminating
	for i, rs := range rss {
		if rs == nil {
			return &InputError{Object: fmt.Sprintf("ReplicaSet #%d", i), Field: "replicaSets", Kind: Required, Detail: "nil ReplicaSet in the state"}
		}
		if err := validateReplicaSet(d, rs, i, names, uids); err != nil {
			return err
		}
		names[rs.Name], uids[rs.UID] = struct{}{}, rs
		for j, v := range [5]int64{int64(*rs.Spec.Replicas), int64(rs.Status.Replicas), int64(rs.Status.ReadyReplicas),
			int64(rs.Status.AvailableReplicas), deref(rs.Status.TerminatingReplicas)} {
			sums[j] += v
			if sums[j] > math.MaxInt32 {
				field := [5]string{"spec.replicas", "status.replicas", "status.readyReplicas", "status.availableReplicas", "status.terminatingReplicas"}[j]
				return &InputError{Object: rsObject(rs, i), Field: field, Kind: Overflow, Value: sums[j],
					Detail: "the sum over the ReplicaSets exceeds int32; upstream would wrap around"}
			}
		}
	}
	for uid, list := range pods {
		rs := uids[uid]
		if rs == nil {
			return &InputError{Object: "Pods", Field: "pods[" + string(uid) + "]", Kind: Invalid, Value: string(uid),
				Detail: "pods are keyed by the UID of their controlling ReplicaSet, and no ReplicaSet in the state has this UID"}
		}
		for i, p := range list {
			if p == nil {
				return &InputError{Object: "Pods", Field: fmt.Sprintf("pods[%s][%d]", uid, i), Kind: Required, Detail: "nil pod in the state"}
			}
			ref := metav1.GetControllerOfNoCopy(p)
			if ref == nil || ref.Kind != "ReplicaSet" || ref.UID != uid || ref.Name != rs.Name || p.Namespace != rs.Namespace {
				return &InputError{Object: "Pod " + p.Namespace + "/" + p.Name, Field: "metadata.ownerReferences", Kind: Invalid, Value: ownerString(ref),
					Detail: fmt.Sprintf("the pod is listed under ReplicaSet %s/%s (UID %s) but is not controlled by it", rs.Namespace, rs.Name, uid)}
			}
		}
	}
	return nil
}

func ownerString(ref *metav1.OwnerReference) string {
	if ref == nil {
		return "no controller"
	}
	return fmt.Sprintf("%s %s (UID %s)", ref.Kind, ref.Name, ref.UID)
}

func rsObject(rs *appsv1.ReplicaSet, i int) string {
	if rs.Name == "" {
		return fmt.Sprintf("ReplicaSet #%d", i)
	}
	return "ReplicaSet " + rs.Namespace + "/" + rs.Name
}

// validateReplicaSet checks one ReplicaSet; names and uids hold those of the
// ReplicaSets before it.
func validateReplicaSet(d *appsv1.Deployment, rs *appsv1.ReplicaSet, i int, names map[string]struct{}, uids map[types.UID]*appsv1.ReplicaSet) error {
	bad := func(field string, kind ErrorKind, value any, detail string) error {
		return &InputError{Object: rsObject(rs, i), Field: field, Kind: kind, Value: value, Detail: detail}
	}
	_, dupName := names[rs.Name]
	_, dupUID := uids[rs.UID]
	switch {
	case rs.Name == "":
		return bad("metadata.name", Required, nil, "a ReplicaSet needs a name")
	case dupName:
		return bad("metadata.name", Duplicate, rs.Name, "two ReplicaSets in the state have this name")
	case dupUID:
		return bad("metadata.uid", Duplicate, string(rs.UID), "two ReplicaSets in the state have this UID")
	case rs.Namespace != d.Namespace:
		return bad("metadata.namespace", Invalid, rs.Namespace, fmt.Sprintf("the state holds the ReplicaSets of namespace %q only", d.Namespace))
	case rs.Spec.Replicas == nil:
		return bad("spec.replicas", Required, nil, "set it, or apply deployutil.SetDefaults")
	case *rs.Spec.Replicas < 0:
		return bad("spec.replicas", Invalid, *rs.Spec.Replicas, "must be greater than or equal to 0")
	}
	if err := validateReplicaSetStatus(&rs.Status, bad); err != nil {
		return err
	}
	if v, ok := rs.Annotations[DesiredReplicasAnnotation]; ok {
		if n, err := strconv.Atoi(v); err == nil && (n > math.MaxInt32 || n < math.MinInt32) {
			return bad("metadata.annotations["+DesiredReplicasAnnotation+"]", Overflow, v, "does not fit an int32; upstream would wrap it around")
		}
	}
	if rev, err := Revision(rs); err == nil && rev == math.MaxInt64 {
		return bad("metadata.annotations["+RevisionAnnotation+"]", Overflow, rs.Annotations[RevisionAnnotation], "the next revision would overflow int64")
	}
	return nil
}

func validateReplicaSetStatus(s *appsv1.ReplicaSetStatus, bad func(string, ErrorKind, any, string) error) error {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"replicas", int64(s.Replicas)}, {"fullyLabeledReplicas", int64(s.FullyLabeledReplicas)}, {"readyReplicas", int64(s.ReadyReplicas)},
		{"availableReplicas", int64(s.AvailableReplicas)}, {"terminatingReplicas", deref(s.TerminatingReplicas)}, {"observedGeneration", s.ObservedGeneration},
	} {
		if f.v < 0 {
			return bad("status."+f.name, Invalid, f.v, "must be greater than or equal to 0")
		}
	}
	switch {
	case s.ReadyReplicas > s.Replicas:
		return bad("status.readyReplicas", Invalid, s.ReadyReplicas, "cannot be greater than status.replicas")
	case s.AvailableReplicas > s.Replicas:
		return bad("status.availableReplicas", Invalid, s.AvailableReplicas, "cannot be greater than status.replicas")
	case s.AvailableReplicas > s.ReadyReplicas:
		return bad("status.availableReplicas", Invalid, s.AvailableReplicas, "cannot be greater than readyReplicas")
	}
	return nil
}
