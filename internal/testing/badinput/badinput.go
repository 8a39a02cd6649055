// Package badinput holds the catalogue of bad input: the states Sync
// refuses, each with the error it gets, beside states an apiserver accepts
// that look close to them. Hand-built states Sync used to refuse although an
// apiserver accepts them are in package accepted.
package badinput

import (
	"fmt"
	"math"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	sc "github.com/deploysync/deploysync/internal/testing/scenarios"
)

// Input is a row of the bad-input catalogue: ValidState changed by Mutate,
// and the *InputError it must get, or none when Object is "". The root
// package's TestBadInputCatalogue runs Sync on every refused row, and
// internal/facts' TestValidate runs Validate on every row; both check every
// field below.
type Input struct {
	Name   string
	Mutate func(*deploysync.State)
	// Object, Field and Kind are the error's; Object "" means the state
	// is accepted (an apiserver accepts it too).
	Object, Field string
	Kind          deployutil.ErrorKind
	// Value is a substring of the error's message showing the value, ""
	// for a missing field.
	Value string
	// Rule is a substring of the error's Rule: the apiserver rule it
	// mirrors, "defaulting", or "not a snapshot".
	Rule   string
	Reason string
}

// Refused reports whether the row's state must be refused.
func (in Input) Refused() bool { return in.Object != "" }

// ValidState is a state an apiserver would hold: a RollingUpdate
// Deployment default/web (3 replicas, 25%/25%, a history limit of 10, a
// deadline of 600 s, observed), its ReplicaSet web-1 (UID rs-uid) with all
// 3 replicas available, and one pod of it, web-1-a.
func ValidState() deploysync.State {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "d-uid", Generation: 1},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1"}}},
			},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxSurge: ptr.To(intstr.FromString("25%")), MaxUnavailable: ptr.To(intstr.FromString("25%"))}},
			RevisionHistoryLimit:    ptr.To[int32](10),
			ProgressDeadlineSeconds: ptr.To[int32](600),
		},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3},
	}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "default", UID: "rs-uid", Labels: map[string]string{"app": "web"},
			Annotations:     map[string]string{deployutil.RevisionAnnotation: "1", deployutil.DesiredReplicasAnnotation: "3"},
			OwnerReferences: []metav1.OwnerReference{deployutil.ControllerRef(d)}},
		Spec:   appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](3), Template: d.Spec.Template},
		Status: appsv1.ReplicaSetStatus{Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3, TerminatingReplicas: ptr.To[int32](0)},
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1-a", Namespace: "default", OwnerReferences: []metav1.OwnerReference{
		{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-1", UID: "rs-uid", Controller: ptr.To(true)}}}}
	return deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{rs}, Pods: map[types.UID][]*corev1.Pod{"rs-uid": {pod}}, Now: sc.Now}
}

// second adds an empty second ReplicaSet web-2 (UID rs-uid-2) of the
// Deployment and returns it.
func second(s *deploysync.State) *appsv1.ReplicaSet {
	rs := s.ReplicaSets[0].DeepCopy()
	rs.Name, rs.UID = "web-2", "rs-uid-2"
	rs.Spec.Replicas = ptr.To[int32](0)
	rs.Status = appsv1.ReplicaSetStatus{}
	s.ReplicaSets = append(s.ReplicaSets, rs)
	return rs
}

// many adds n empty ReplicaSets web-m0… (UIDs rs-uid-m0…) of the
// Deployment after the first and returns the last.
func many(s *deploysync.State, n int) *appsv1.ReplicaSet {
	var rs *appsv1.ReplicaSet
	for i := range n {
		rs = second(s)
		rs.Name, rs.UID = fmt.Sprintf("web-m%d", i), types.UID(fmt.Sprintf("rs-uid-m%d", i))
	}
	return rs
}

func str(v string) *intstr.IntOrString { return ptr.To(intstr.FromString(v)) }
func num(v int32) *intstr.IntOrString  { return ptr.To(intstr.FromInt32(v)) }

// The objects the errors name.
const (
	web  = "Deployment default/web"
	web2 = "ReplicaSet default/web-2"
)

// All is the catalogue of inputs Sync refuses (docs/fidelity.md lists
// their classes), each one refused by an apps/v1 apiserver (validation, or
// a nil that defaulting fills) or not a snapshot of one, beside states an
// apiserver accepts, which Validate and Sync accept too (more of those, with
// upstream's outcome, are in States).
func All() []Input {
	return []Input{
		{Name: "valid", Mutate: func(*deploysync.State) {}, Reason: "a state an apiserver holds passes"},
		{Name: "selecting all", Mutate: func(s *deploysync.State) {
			s.Deployment.Spec.Selector = &metav1.LabelSelector{}
			s.ReplicaSets[0].Spec.Replicas = nil
		}, Reason: "an empty selector is only warned about, and its ReplicaSets are not checked: the branch reads none"},
		{Name: "selecting all, nil replicas", Mutate: func(s *deploysync.State) {
			s.Deployment.Spec.Selector = &metav1.LabelSelector{}
			s.Deployment.Spec.Replicas = nil
		}, Object: web, Field: "spec.replicas", Kind: deployutil.Required, Rule: "defaulting",
			Reason: "the Deployment itself is checked even with an empty selector (the fuzzer found an applied state keeping replicas -1)"},
		{Name: "recreate", Mutate: func(s *deploysync.State) {
			s.Deployment.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
		}, Reason: "Recreate needs no parameters"},
		{Name: "no progress deadline", Mutate: func(s *deploysync.State) { s.Deployment.Spec.ProgressDeadlineSeconds = nil },
			Reason: "a nil deadline means none"},

		{Name: "nil deployment", Mutate: func(s *deploysync.State) { s.Deployment = nil }, Object: "Deployment", Field: "deployment", Kind: deployutil.Required,
			Rule: "not a snapshot", Reason: "the state needs a Deployment: there is nothing to sync"},
		{Name: "no name", Mutate: func(s *deploysync.State) { s.Deployment.Name = "" }, Object: "Deployment default/", Field: "metadata.name", Kind: deployutil.Required,
			Rule: "ValidateObjectMeta", Reason: "a Deployment has a name"},
		{Name: "bad name", Mutate: func(s *deploysync.State) { s.Deployment.Name = "Web_1" }, Object: "Deployment default/Web_1", Field: "metadata.name", Kind: deployutil.Invalid,
			Value: "Web_1", Rule: "ValidateDeploymentName", Reason: "a name is a lowercase DNS subdomain: no capitals, no underscores"},
		{Name: "name too long", Mutate: func(s *deploysync.State) { s.Deployment.Name = strings.Repeat("a", 254) },
			Object: "Deployment default/" + strings.Repeat("a", 254), Field: "metadata.name", Kind: deployutil.Invalid, Value: "aaaa", Rule: "ValidateDeploymentName",
			Reason: "a name is a DNS subdomain of at most 253 characters (253 itself is fine and the ReplicaSet name is cut to fit)"},
		{Name: "nil replicas", Mutate: func(s *deploysync.State) { s.Deployment.Spec.Replicas = nil }, Object: web, Field: "spec.replicas", Kind: deployutil.Required,
			Rule: "defaulting", Reason: "deviation: upstream dereferences it and panics; an apiserver defaults it to 1"},
		{Name: "negative replicas", Mutate: func(s *deploysync.State) { s.Deployment.Spec.Replicas = ptr.To[int32](-1) }, Object: web, Field: "spec.replicas", Kind: deployutil.Invalid,
			Value: "-1", Rule: "ValidateDeploymentSpec", Reason: "validation requires replicas ≥ 0"},
		{Name: "nil selector", Mutate: func(s *deploysync.State) { s.Deployment.Spec.Selector = nil }, Object: web, Field: "spec.selector", Kind: deployutil.Required,
			Rule: "ValidateDeploymentSpec", Reason: "apps/v1 requires a selector"},
		{Name: "invalid selector", Mutate: func(s *deploysync.State) {
			s.Deployment.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}
		}, Object: web, Field: "spec.selector", Kind: deployutil.Invalid, Value: "Near", Rule: "ValidateDeploymentSpec",
			Reason: "an operator the label machinery does not know cannot select"},
		{Name: "selector does not match template", Mutate: func(s *deploysync.State) {
			s.Deployment.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}}
		}, Object: web, Field: "spec.template.metadata.labels", Kind: deployutil.Invalid, Value: "app=web", Rule: "ValidatePodTemplateSpecForReplicaSet",
			Reason: "a Deployment must select its own pods"},
		{Name: "selector misses template", Mutate: func(s *deploysync.State) { s.Deployment.Spec.Template.Labels = map[string]string{"app": "api"} },
			Object: web, Field: "spec.template.metadata.labels", Kind: deployutil.Invalid, Value: "app=api", Rule: "ValidatePodTemplateSpecForReplicaSet",
			Reason: "the selector must match the template's labels"},
		{Name: "negative minReadySeconds", Mutate: func(s *deploysync.State) { s.Deployment.Spec.MinReadySeconds = -1 },
			Object: web, Field: "spec.minReadySeconds", Kind: deployutil.Invalid, Value: "-1", Rule: "ValidateDeploymentSpec", Reason: "validation requires ≥ 0"},
		{Name: "negative revisionHistoryLimit", Mutate: func(s *deploysync.State) { s.Deployment.Spec.RevisionHistoryLimit = ptr.To[int32](-1) },
			Object: web, Field: "spec.revisionHistoryLimit", Kind: deployutil.Invalid, Value: "-1", Rule: "ValidateDeploymentSpec", Reason: "validation requires ≥ 0"},
		{Name: "negative progress deadline", Mutate: func(s *deploysync.State) { s.Deployment.Spec.ProgressDeadlineSeconds = ptr.To[int32](-1) },
			Object: web, Field: "spec.progressDeadlineSeconds", Kind: deployutil.Invalid, Value: "-1", Rule: "ValidateDeploymentSpec", Reason: "must be ≥ 0"},
		{Name: "deadline not above minReadySeconds", Mutate: func(s *deploysync.State) { s.Deployment.Spec.MinReadySeconds = 600 },
			Object: web, Field: "spec.progressDeadlineSeconds", Kind: deployutil.Invalid, Value: "600", Rule: "ValidateDeploymentSpec",
			Reason: "validation requires progressDeadlineSeconds > minReadySeconds"},
		{Name: "recreate with parameters", Mutate: func(s *deploysync.State) { s.Deployment.Spec.Strategy.Type = appsv1.RecreateDeploymentStrategyType },
			Object: web, Field: "spec.strategy.rollingUpdate", Kind: deployutil.Invalid, Value: "set", Rule: "ValidateDeploymentStrategy",
			Reason: "validation forbids rollingUpdate parameters for Recreate"},
		{Name: "unknown strategy", Mutate: func(s *deploysync.State) { s.Deployment.Spec.Strategy.Type = "Canary" },
			Object: web, Field: "spec.strategy.type", Kind: deployutil.NotSupported, Value: "Canary", Rule: "ValidateDeploymentStrategy",
			Reason: "only Recreate and RollingUpdate exist; deviation: upstream fails mid-sync with unexpected deployment strategy type"},
		{Name: "empty strategy type", Mutate: func(s *deploysync.State) { s.Deployment.Spec.Strategy.Type = "" },
			Object: web, Field: "spec.strategy.type", Kind: deployutil.NotSupported, Value: `""`, Rule: "ValidateDeploymentStrategy",
			Reason: "an apiserver defaults it to RollingUpdate; deployutil.SetDefaults does too"},
		{Name: "empty strategy", Mutate: func(s *deploysync.State) { s.Deployment.Spec.Strategy = appsv1.DeploymentStrategy{} },
			Object: web, Field: "spec.strategy.type", Kind: deployutil.NotSupported, Value: `""`, Rule: "ValidateDeploymentStrategy",
			Reason: "an undefaulted strategy is not supported; SetDefaults fills it"},
		{Name: "rolling without parameters", Mutate: func(s *deploysync.State) { s.Deployment.Spec.Strategy.RollingUpdate = nil },
			Object: web, Field: "spec.strategy.rollingUpdate", Kind: deployutil.Required, Rule: "defaulting",
			Reason: "deviation: upstream dereferences it; an apiserver defaults it"},
		{Name: "nil maxUnavailable", Mutate: func(s *deploysync.State) { s.Deployment.Spec.Strategy.RollingUpdate.MaxUnavailable = nil },
			Object: web, Field: "spec.strategy.rollingUpdate.maxUnavailable", Kind: deployutil.Required, Rule: "defaulting",
			Reason: "defaulting sets it"},
		{Name: "nil maxSurge", Mutate: func(s *deploysync.State) { s.Deployment.Spec.Strategy.RollingUpdate.MaxSurge = nil },
			Object: web, Field: "spec.strategy.rollingUpdate.maxSurge", Kind: deployutil.Required, Rule: "defaulting",
			Reason: "upstream's NewRSNewReplicas errors on it mid-sync, when it sizes the new ReplicaSet; an apiserver defaults it"},
		{Name: "negative maxSurge", Mutate: func(s *deploysync.State) { s.Deployment.Spec.Strategy.RollingUpdate.MaxSurge = num(-2) },
			Object: web, Field: "spec.strategy.rollingUpdate.maxSurge", Kind: deployutil.Invalid, Value: "-2", Rule: "ValidatePositiveIntOrPercent",
			Reason: "fenceposts are ≥ 0"},
		{Name: "negative percent", Mutate: func(s *deploysync.State) { s.Deployment.Spec.Strategy.RollingUpdate.MaxUnavailable = str("-5%") },
			Object: web, Field: "spec.strategy.rollingUpdate.maxUnavailable", Kind: deployutil.Invalid, Value: "-5%", Rule: "ValidatePositiveIntOrPercent",
			Reason: "a negative percentage is not a percentage"},
		{Name: "percent with garbage", Mutate: func(s *deploysync.State) { s.Deployment.Spec.Strategy.RollingUpdate.MaxSurge = str("abc%") },
			Object: web, Field: "spec.strategy.rollingUpdate.maxSurge", Kind: deployutil.Invalid, Value: "abc%", Rule: "ValidatePositiveIntOrPercent",
			Reason: "a percentage must be digits followed by %"},
		{Name: "maxSurge not a percentage", Mutate: func(s *deploysync.State) { s.Deployment.Spec.Strategy.RollingUpdate.MaxSurge = str("150") },
			Object: web, Field: "spec.strategy.rollingUpdate.maxSurge", Kind: deployutil.Invalid, Value: "150", Rule: "ValidatePositiveIntOrPercent",
			Reason: "upstream errors on strings that are not percentages"},
		{Name: "maxUnavailable not a percentage", Mutate: func(s *deploysync.State) { s.Deployment.Spec.Strategy.RollingUpdate.MaxUnavailable = str("25") },
			Object: web, Field: "spec.strategy.rollingUpdate.maxUnavailable", Kind: deployutil.Invalid, Value: "25", Rule: "ValidatePositiveIntOrPercent",
			Reason: "a string must be N%"},
		{Name: "unknown int-or-string type", Mutate: func(s *deploysync.State) {
			s.Deployment.Spec.Strategy.RollingUpdate.MaxSurge = &intstr.IntOrString{Type: 7}
		}, Object: web, Field: "spec.strategy.rollingUpdate.maxSurge", Kind: deployutil.Invalid, Value: "7", Rule: "ValidatePositiveIntOrPercent",
			Reason: "neither an integer nor a string"},
		{Name: "both fenceposts 0", Mutate: func(s *deploysync.State) {
			s.Deployment.Spec.Strategy.RollingUpdate.MaxSurge, s.Deployment.Spec.Strategy.RollingUpdate.MaxUnavailable = num(0), str("0%")
		}, Object: web, Field: "spec.strategy.rollingUpdate.maxUnavailable", Kind: deployutil.Invalid, Value: "0%", Rule: "ValidateRollingUpdateDeployment",
			Reason: "a rollout could never make progress; validation forbids it"},
		{Name: "both zero", Mutate: func(s *deploysync.State) {
			s.Deployment.Spec.Strategy.RollingUpdate.MaxSurge, s.Deployment.Spec.Strategy.RollingUpdate.MaxUnavailable = str("0%"), num(0)
		}, Object: web, Field: "spec.strategy.rollingUpdate.maxUnavailable", Kind: deployutil.Invalid, Value: "0", Rule: "ValidateRollingUpdateDeployment",
			Reason: "an apiserver refuses maxSurge and maxUnavailable both 0, however written (upstream's test fixture uses it)"},
		{Name: "maxUnavailable above 100%", Mutate: func(s *deploysync.State) { s.Deployment.Spec.Strategy.RollingUpdate.MaxUnavailable = str("101%") },
			Object: web, Field: "spec.strategy.rollingUpdate.maxUnavailable", Kind: deployutil.Invalid, Value: "101%", Rule: "IsNotMoreThan100Percent",
			Reason: "more than all replicas cannot be unavailable"},
		{Name: "replicas + maxSurge overflow", Mutate: func(s *deploysync.State) {
			s.Deployment.Spec.Replicas = ptr.To[int32](math.MaxInt32)
			s.Deployment.Spec.Strategy.RollingUpdate.MaxSurge = num(1)
		}, Reason: "the apiserver accepts it; upstream's int32 sum wraps and Sync does the same"},
		{Name: "maxSurge percentage overflow", Mutate: func(s *deploysync.State) {
			s.Deployment.Spec.Replicas = ptr.To[int32](math.MaxInt32 / 2)
			s.Deployment.Spec.Strategy.RollingUpdate.MaxSurge = str("300%")
		}, Reason: "the apiserver accepts any digits before %; the surge keeps its low 32 bits, as upstream's"},
		{Name: "maxSurge percentage beyond int", Mutate: func(s *deploysync.State) {
			s.Deployment.Spec.Strategy.RollingUpdate.MaxSurge = str("99999999999999999999%")
		}, Reason: "the apiserver accepts it (IsValidPercent is a pattern); upstream's sync errors on it, and so does Sync's plan"},
		{Name: "negative observedGeneration", Mutate: func(s *deploysync.State) { s.Deployment.Status.ObservedGeneration = -1 },
			Object: web, Field: "status.observedGeneration", Kind: deployutil.Invalid, Value: "-1", Rule: "ValidateDeploymentStatus", Reason: "status counts are ≥ 0"},
		{Name: "negative status replicas", Mutate: func(s *deploysync.State) { s.Deployment.Status.Replicas = -1 },
			Object: web, Field: "status.replicas", Kind: deployutil.Invalid, Value: "-1", Rule: "ValidateDeploymentStatus", Reason: "status counts are ≥ 0"},
		{Name: "negative updatedReplicas", Mutate: func(s *deploysync.State) { s.Deployment.Status.UpdatedReplicas = -1 },
			Object: web, Field: "status.updatedReplicas", Kind: deployutil.Invalid, Value: "-1", Rule: "ValidateDeploymentStatus", Reason: "status counts are ≥ 0"},
		{Name: "negative readyReplicas", Mutate: func(s *deploysync.State) { s.Deployment.Status.ReadyReplicas = -1 },
			Object: web, Field: "status.readyReplicas", Kind: deployutil.Invalid, Value: "-1", Rule: "ValidateDeploymentStatus", Reason: "status counts are ≥ 0"},
		{Name: "negative availableReplicas", Mutate: func(s *deploysync.State) { s.Deployment.Status.AvailableReplicas = -1 },
			Object: web, Field: "status.availableReplicas", Kind: deployutil.Invalid, Value: "-1", Rule: "ValidateDeploymentStatus", Reason: "status counts are ≥ 0"},
		{Name: "negative unavailableReplicas", Mutate: func(s *deploysync.State) { s.Deployment.Status.UnavailableReplicas = -1 },
			Object: web, Field: "status.unavailableReplicas", Kind: deployutil.Invalid, Value: "-1", Rule: "ValidateDeploymentStatus", Reason: "status counts are ≥ 0"},
		{Name: "negative terminatingReplicas", Mutate: func(s *deploysync.State) { s.Deployment.Status.TerminatingReplicas = ptr.To[int32](-1) },
			Object: web, Field: "status.terminatingReplicas", Kind: deployutil.Invalid, Value: "-1", Rule: "ValidateDeploymentStatus", Reason: "status counts are ≥ 0"},
		{Name: "negative collisionCount", Mutate: func(s *deploysync.State) { s.Deployment.Status.CollisionCount = ptr.To[int32](-1) },
			Object: web, Field: "status.collisionCount", Kind: deployutil.Invalid, Value: "-1", Rule: "ValidateDeploymentStatus", Reason: "status validation: counts are ≥ 0"},
		{Name: "collisionCount at MaxInt32", Mutate: func(s *deploysync.State) { s.Deployment.Status.CollisionCount = ptr.To[int32](math.MaxInt32) },
			Reason: "ValidateDeploymentStatus accepts it; a further collision wraps to −2³¹ as upstream's"},
		{Name: "updated above replicas", Mutate: func(s *deploysync.State) { s.Deployment.Status.UpdatedReplicas = 4 },
			Object: web, Field: "status.updatedReplicas", Kind: deployutil.Invalid, Value: "4", Rule: "ValidateDeploymentStatus", Reason: "a subset cannot exceed the whole"},
		{Name: "ready above replicas", Mutate: func(s *deploysync.State) { s.Deployment.Status.ReadyReplicas = 4 },
			Object: web, Field: "status.readyReplicas", Kind: deployutil.Invalid, Value: "4", Rule: "ValidateDeploymentStatus", Reason: "a subset cannot exceed the whole"},
		{Name: "available above replicas", Mutate: func(s *deploysync.State) {
			s.Deployment.Status.AvailableReplicas, s.Deployment.Status.ReadyReplicas = 4, 3
		},
			Object: web, Field: "status.availableReplicas", Kind: deployutil.Invalid, Value: "4", Rule: "ValidateDeploymentStatus", Reason: "a subset cannot exceed the whole"},
		{Name: "available above ready", Mutate: func(s *deploysync.State) { s.Deployment.Status.ReadyReplicas = 2 },
			Object: web, Field: "status.availableReplicas", Kind: deployutil.Invalid, Value: "3", Rule: "ValidateDeploymentStatus",
			Reason: "status validation: available pods are ready pods"},

		{Name: "nil ReplicaSet", Mutate: func(s *deploysync.State) { s.ReplicaSets = append(s.ReplicaSets, nil) },
			Object: "ReplicaSet #1", Field: "replicaSets", Kind: deployutil.Required, Rule: "not a snapshot", Reason: "a nil entry is not a ReplicaSet"},
		{Name: "unnamed ReplicaSet", Mutate: func(s *deploysync.State) { second(s).Name = "" },
			Object: "ReplicaSet #1", Field: "metadata.name", Kind: deployutil.Required, Rule: "ValidateObjectMeta", Reason: "an unnamed entry is named by its position"},
		{Name: "duplicate name", Mutate: func(s *deploysync.State) { second(s).Name = "web-1" },
			Object: "ReplicaSet default/web-1", Field: "metadata.name", Kind: deployutil.Duplicate, Value: "web-1", Rule: "not a snapshot",
			Reason: "names are unique in a namespace"},
		{Name: "duplicate UID", Mutate: func(s *deploysync.State) { second(s).UID = "rs-uid" },
			Object: web2, Field: "metadata.uid", Kind: deployutil.Duplicate, Value: "rs-uid", Rule: "not a snapshot",
			Reason: "UIDs are unique: old and new ReplicaSets are told apart by UID"},
		{Name: "duplicate name among many", Mutate: func(s *deploysync.State) { many(s, 40).Name = "web-1" },
			Object: "ReplicaSet default/web-1", Field: "metadata.name", Kind: deployutil.Duplicate, Value: "web-1", Rule: "not a snapshot",
			Reason: "names are unique in a namespace, however many ReplicaSets the state holds (past 32 they are checked by maps, not a scan)"},
		{Name: "duplicate UID among many", Mutate: func(s *deploysync.State) { many(s, 40).UID = "rs-uid-m3" },
			Object: "ReplicaSet default/web-m39", Field: "metadata.uid", Kind: deployutil.Duplicate, Value: "rs-uid-m3", Rule: "not a snapshot",
			Reason: "UIDs are unique, however many ReplicaSets the state holds"},
		{Name: "many distinct", Mutate: func(s *deploysync.State) { many(s, 40) },
			Reason: "40 distinct names and UIDs are no duplicates"},
		{Name: "other namespace", Mutate: func(s *deploysync.State) { second(s).Namespace = "other" },
			Object: "ReplicaSet other/web-2", Field: "metadata.namespace", Kind: deployutil.Invalid, Value: "other", Rule: "not a snapshot",
			Reason: "the state holds one namespace"},
		{Name: "nil ReplicaSet replicas", Mutate: func(s *deploysync.State) { second(s).Spec.Replicas = nil },
			Object: web2, Field: "spec.replicas", Kind: deployutil.Required, Rule: "defaulting", Reason: "deviation: upstream dereferences it everywhere"},
		{Name: "negative ReplicaSet replicas", Mutate: func(s *deploysync.State) { second(s).Spec.Replicas = ptr.To[int32](-2) },
			Object: web2, Field: "spec.replicas", Kind: deployutil.Invalid, Value: "-2", Rule: "ValidateReplicaSetSpec", Reason: "validation requires ≥ 0"},
		{Name: "negative RS status replicas", Mutate: func(s *deploysync.State) { second(s).Status.Replicas = -1 },
			Object: web2, Field: "status.replicas", Kind: deployutil.Invalid, Value: "-1", Rule: "ValidateReplicaSetStatus", Reason: "status counts are ≥ 0"},
		{Name: "negative RS fullyLabeledReplicas", Mutate: func(s *deploysync.State) { second(s).Status.FullyLabeledReplicas = -1 },
			Reason: "the apiserver refuses it, but the sync never reads fullyLabeledReplicas: accepting more is allowed"},
		{Name: "negative RS readyReplicas", Mutate: func(s *deploysync.State) { second(s).Status.ReadyReplicas = -1 },
			Object: web2, Field: "status.readyReplicas", Kind: deployutil.Invalid, Value: "-1", Rule: "ValidateReplicaSetStatus", Reason: "status counts are ≥ 0"},
		{Name: "negative RS availableReplicas", Mutate: func(s *deploysync.State) { second(s).Status.AvailableReplicas = -1 },
			Object: web2, Field: "status.availableReplicas", Kind: deployutil.Invalid, Value: "-1", Rule: "ValidateReplicaSetStatus", Reason: "status counts are ≥ 0"},
		{Name: "negative RS terminatingReplicas", Mutate: func(s *deploysync.State) { second(s).Status.TerminatingReplicas = ptr.To[int32](-1) },
			Object: web2, Field: "status.terminatingReplicas", Kind: deployutil.Invalid, Value: "-1", Rule: "ValidateReplicaSetStatus", Reason: "status counts are ≥ 0"},
		{Name: "negative RS observedGeneration", Mutate: func(s *deploysync.State) { second(s).Status.ObservedGeneration = -1 },
			Object: web2, Field: "status.observedGeneration", Kind: deployutil.Invalid, Value: "-1", Rule: "ValidateReplicaSetStatus", Reason: "status counts are ≥ 0"},
		{Name: "RS ready above replicas", Mutate: func(s *deploysync.State) { second(s).Status.ReadyReplicas = 9 },
			Object: web2, Field: "status.readyReplicas", Kind: deployutil.Invalid, Value: "9", Rule: "ValidateReplicaSetStatus",
			Reason: "status validation: a subset cannot exceed the whole (ready ≤ replicas)"},
		{Name: "RS available above replicas", Mutate: func(s *deploysync.State) {
			rs := second(s)
			rs.Status.Replicas, rs.Status.ReadyReplicas, rs.Status.AvailableReplicas = 1, 1, 2
		}, Object: web2, Field: "status.availableReplicas", Kind: deployutil.Invalid, Value: "2", Rule: "ValidateReplicaSetStatus", Reason: "a subset cannot exceed the whole"},
		{Name: "RS available above ready", Mutate: func(s *deploysync.State) {
			rs := second(s)
			rs.Status.Replicas, rs.Status.ReadyReplicas, rs.Status.AvailableReplicas = 2, 1, 2
		}, Object: web2, Field: "status.availableReplicas", Kind: deployutil.Invalid, Value: "2", Rule: "ValidateReplicaSetStatus", Reason: "available pods are ready pods"},
		{Name: "desired-replicas above int32", Mutate: func(s *deploysync.State) {
			s.ReplicaSets[0].Annotations[deployutil.DesiredReplicasAnnotation] = "2147483648"
		}, Reason: "annotations are free-form strings; upstream's own parsers read it"},
		{Name: "desired-replicas below int32", Mutate: func(s *deploysync.State) {
			s.ReplicaSets[0].Annotations[deployutil.DesiredReplicasAnnotation] = "-2147483649"
		}, Reason: "annotations are free-form strings"},
		{Name: "desired-replicas with sign and spaces", Mutate: func(s *deploysync.State) {
			s.ReplicaSets[0].Annotations[deployutil.DesiredReplicasAnnotation] = " +5"
		}, Reason: "annotations are free-form strings"},
		{Name: "revision at MaxInt64", Mutate: func(s *deploysync.State) {
			s.ReplicaSets[0].Annotations[deployutil.RevisionAnnotation] = "9223372036854775807"
		}, Reason: "annotations are free-form strings; the next revision wraps as upstream's"},
		{Name: "spec sum overflow", Mutate: func(s *deploysync.State) { second(s).Spec.Replicas = ptr.To[int32](math.MaxInt32) },
			Reason: "each ReplicaSet is valid on its own; the sums wrap as upstream's"},
		{Name: "status sum overflow", Mutate: func(s *deploysync.State) {
			rs := second(s)
			rs.Status.Replicas, rs.Status.ReadyReplicas, rs.Status.AvailableReplicas = math.MaxInt32, math.MaxInt32, math.MaxInt32
		}, Reason: "each status is valid on its own; the sums wrap as upstream's"},
		{Name: "terminating sum overflow", Mutate: func(s *deploysync.State) {
			s.ReplicaSets[0].Status.TerminatingReplicas = ptr.To[int32](1)
			second(s).Status.TerminatingReplicas = ptr.To[int32](math.MaxInt32)
		}, Reason: "each status is valid on its own; the sum wraps as upstream's"},
		{Name: "pods of an unknown ReplicaSet", Mutate: func(s *deploysync.State) {
			s.Pods["nobody"] = []*corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "stray", Namespace: "default"}}}
		}, Reason: "upstream's pod map holds the pods of the claimed ReplicaSets only; these are ignored"},
		{Name: "nil pod", Mutate: func(s *deploysync.State) { s.Pods["rs-uid"] = append(s.Pods["rs-uid"], nil) },
			Object: "Pods", Field: "pods[rs-uid][1]", Kind: deployutil.Required, Rule: "not a snapshot", Reason: "a nil entry is not a pod"},
		{Name: "pod of another ReplicaSet", Mutate: func(s *deploysync.State) { s.Pods["rs-uid"][0].OwnerReferences[0].UID = "rs-uid-other" },
			Reason: "not one of web-1's pods, as upstream's index by controller reference would have it; ignored"},
		{Name: "pod of another controller", Mutate: func(s *deploysync.State) { s.Pods["rs-uid"][0].OwnerReferences = nil },
			Reason: "a pod without a controller is in no ReplicaSet's pod list; ignored"},
	}
}
