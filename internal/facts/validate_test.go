package facts_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testutil"
)

// validState is a state an apiserver would hold: a RollingUpdate
// Deployment "web" with one ReplicaSet and one pod of it.
func validState() (*appsv1.Deployment, []*appsv1.ReplicaSet, map[types.UID][]*corev1.Pod) {
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
	return d, []*appsv1.ReplicaSet{rs}, map[types.UID][]*corev1.Pod{"rs-uid": {pod}}
}

// TestValidate has one row per problem Validate reports (the object and
// field named, the kind, and a rule named in the message), and rows for
// states an apiserver accepts, which Validate accepts too.
func TestValidate(t *testing.T) {
	type state struct {
		d    *appsv1.Deployment
		rss  []*appsv1.ReplicaSet
		pods map[types.UID][]*corev1.Pod
	}
	second := func(s *state) *appsv1.ReplicaSet {
		rs := s.rss[0].DeepCopy()
		rs.Name, rs.UID = "web-2", "rs-uid-2"
		rs.Spec.Replicas = ptr.To[int32](0)
		rs.Status = appsv1.ReplicaSetStatus{}
		s.rss = append(s.rss, rs)
		return rs
	}
	// many appends n distinct ReplicaSets after the first and returns the
	// last: past 32 the duplicates are found by maps, not by a scan.
	many := func(s *state, n int) *appsv1.ReplicaSet {
		var rs *appsv1.ReplicaSet
		for i := range n {
			rs = second(s)
			rs.Name, rs.UID = fmt.Sprintf("web-m%d", i), types.UID(fmt.Sprintf("rs-uid-m%d", i))
		}
		return rs
	}
	str := func(v string) *intstr.IntOrString { return ptr.To(intstr.FromString(v)) }
	num := func(v int32) *intstr.IntOrString { return ptr.To(intstr.FromInt32(v)) }
	tests := []struct {
		name       string
		mutate     func(s *state)
		wantObject string // "" means no error
		wantField  string
		wantKind   deployutil.ErrorKind
		reason     string
	}{
		{name: "valid", mutate: func(*state) {}, reason: "a state an apiserver holds passes"},
		{name: "selecting all", mutate: func(s *state) {
			s.d.Spec.Selector = &metav1.LabelSelector{}
			s.rss[0].Spec.Replicas = nil
		}, reason: "an empty selector is only warned about, and its ReplicaSets are not checked: the branch reads none"},
		{name: "selecting all, nil replicas", mutate: func(s *state) {
			s.d.Spec.Selector = &metav1.LabelSelector{}
			s.d.Spec.Replicas = nil
		}, wantObject: "Deployment default/web", wantField: "spec.replicas", wantKind: deployutil.Required,
			reason: "the Deployment itself is checked even with an empty selector (the fuzzer found an applied state keeping replicas -1)"},
		{name: "recreate", mutate: func(s *state) {
			s.d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
		}, reason: "Recreate needs no parameters"},
		{name: "no progress deadline", mutate: func(s *state) { s.d.Spec.ProgressDeadlineSeconds = nil },
			reason: "a nil deadline means none"},

		{name: "nil deployment", mutate: func(s *state) { s.d = nil }, wantObject: "Deployment", wantField: "deployment", wantKind: deployutil.Required,
			reason: "the state needs a Deployment"},
		{name: "no name", mutate: func(s *state) { s.d.Name = "" }, wantObject: "Deployment default/", wantField: "metadata.name", wantKind: deployutil.Required,
			reason: "a Deployment has a name"},
		{name: "bad name", mutate: func(s *state) { s.d.Name = "Web_1" }, wantObject: "Deployment default/Web_1", wantField: "metadata.name", wantKind: deployutil.Invalid,
			reason: "names are DNS subdomains"},
		{name: "nil replicas", mutate: func(s *state) { s.d.Spec.Replicas = nil }, wantObject: "Deployment default/web", wantField: "spec.replicas", wantKind: deployutil.Required,
			reason: "deviation: upstream dereferences it and panics; defaulting sets it"},
		{name: "negative replicas", mutate: func(s *state) { s.d.Spec.Replicas = ptr.To[int32](-1) }, wantObject: "Deployment default/web", wantField: "spec.replicas", wantKind: deployutil.Invalid,
			reason: "an apiserver refuses negative replicas"},
		{name: "nil selector", mutate: func(s *state) { s.d.Spec.Selector = nil }, wantObject: "Deployment default/web", wantField: "spec.selector", wantKind: deployutil.Required,
			reason: "apps/v1 requires a selector"},
		{name: "invalid selector", mutate: func(s *state) {
			s.d.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}
		}, wantObject: "Deployment default/web", wantField: "spec.selector", wantKind: deployutil.Invalid,
			reason: "an operator the label machinery does not know"},
		{name: "selector misses template", mutate: func(s *state) { s.d.Spec.Template.Labels = map[string]string{"app": "api"} },
			wantObject: "Deployment default/web", wantField: "spec.template.metadata.labels", wantKind: deployutil.Invalid,
			reason: "the selector must match the template's labels"},
		{name: "negative minReadySeconds", mutate: func(s *state) { s.d.Spec.MinReadySeconds = -1 },
			wantObject: "Deployment default/web", wantField: "spec.minReadySeconds", wantKind: deployutil.Invalid, reason: "must be ≥ 0"},
		{name: "negative revisionHistoryLimit", mutate: func(s *state) { s.d.Spec.RevisionHistoryLimit = ptr.To[int32](-1) },
			wantObject: "Deployment default/web", wantField: "spec.revisionHistoryLimit", wantKind: deployutil.Invalid, reason: "must be ≥ 0"},
		{name: "negative progress deadline", mutate: func(s *state) { s.d.Spec.ProgressDeadlineSeconds = ptr.To[int32](-1) },
			wantObject: "Deployment default/web", wantField: "spec.progressDeadlineSeconds", wantKind: deployutil.Invalid, reason: "must be ≥ 0"},
		{name: "deadline not above minReadySeconds", mutate: func(s *state) {
			s.d.Spec.MinReadySeconds = 600
		}, wantObject: "Deployment default/web", wantField: "spec.progressDeadlineSeconds", wantKind: deployutil.Invalid,
			reason: "the deadline must be greater than minReadySeconds"},
		{name: "recreate with parameters", mutate: func(s *state) { s.d.Spec.Strategy.Type = appsv1.RecreateDeploymentStrategyType },
			wantObject: "Deployment default/web", wantField: "spec.strategy.rollingUpdate", wantKind: deployutil.Invalid,
			reason: "rollingUpdate may not be set for Recreate"},
		{name: "unknown strategy", mutate: func(s *state) { s.d.Spec.Strategy.Type = "Canary" },
			wantObject: "Deployment default/web", wantField: "spec.strategy.type", wantKind: deployutil.NotSupported,
			reason: "deviation: upstream fails mid-sync with unexpected deployment strategy type"},
		{name: "empty strategy", mutate: func(s *state) { s.d.Spec.Strategy = appsv1.DeploymentStrategy{} },
			wantObject: "Deployment default/web", wantField: "spec.strategy.type", wantKind: deployutil.NotSupported,
			reason: "an undefaulted strategy is not supported; SetDefaults fills it"},
		{name: "rolling without parameters", mutate: func(s *state) { s.d.Spec.Strategy.RollingUpdate = nil },
			wantObject: "Deployment default/web", wantField: "spec.strategy.rollingUpdate", wantKind: deployutil.Required,
			reason: "deviation: upstream dereferences it"},
		{name: "nil maxUnavailable", mutate: func(s *state) { s.d.Spec.Strategy.RollingUpdate.MaxUnavailable = nil },
			wantObject: "Deployment default/web", wantField: "spec.strategy.rollingUpdate.maxUnavailable", wantKind: deployutil.Required,
			reason: "defaulting sets it"},
		{name: "nil maxSurge", mutate: func(s *state) { s.d.Spec.Strategy.RollingUpdate.MaxSurge = nil },
			wantObject: "Deployment default/web", wantField: "spec.strategy.rollingUpdate.maxSurge", wantKind: deployutil.Required,
			reason: "upstream's NewRSNewReplicas errors on it mid-sync"},
		{name: "negative maxSurge", mutate: func(s *state) { s.d.Spec.Strategy.RollingUpdate.MaxSurge = num(-1) },
			wantObject: "Deployment default/web", wantField: "spec.strategy.rollingUpdate.maxSurge", wantKind: deployutil.Invalid, reason: "must be ≥ 0"},
		{name: "maxUnavailable not a percentage", mutate: func(s *state) { s.d.Spec.Strategy.RollingUpdate.MaxUnavailable = str("25") },
			wantObject: "Deployment default/web", wantField: "spec.strategy.rollingUpdate.maxUnavailable", wantKind: deployutil.Invalid,
			reason: "a string must be N%"},
		{name: "unknown int-or-string type", mutate: func(s *state) {
			s.d.Spec.Strategy.RollingUpdate.MaxSurge = &intstr.IntOrString{Type: 7}
		}, wantObject: "Deployment default/web", wantField: "spec.strategy.rollingUpdate.maxSurge", wantKind: deployutil.Invalid,
			reason: "neither an integer nor a string"},
		{name: "both zero", mutate: func(s *state) {
			s.d.Spec.Strategy.RollingUpdate.MaxSurge, s.d.Spec.Strategy.RollingUpdate.MaxUnavailable = str("0%"), num(0)
		}, wantObject: "Deployment default/web", wantField: "spec.strategy.rollingUpdate.maxUnavailable", wantKind: deployutil.Invalid,
			reason: "an apiserver refuses maxSurge and maxUnavailable both 0 (upstream's test fixture uses it)"},
		{name: "maxUnavailable above 100%", mutate: func(s *state) { s.d.Spec.Strategy.RollingUpdate.MaxUnavailable = str("101%") },
			wantObject: "Deployment default/web", wantField: "spec.strategy.rollingUpdate.maxUnavailable", wantKind: deployutil.Invalid,
			reason: "must not be greater than 100%"},
		{name: "replicas + maxSurge overflow", mutate: func(s *state) {
			s.d.Spec.Replicas = ptr.To[int32](math.MaxInt32)
			s.d.Spec.Strategy.RollingUpdate.MaxSurge = num(1)
		}, reason: "the apiserver accepts it; upstream's int32 sum wraps and Sync does the same"},
		{name: "maxSurge percentage overflow", mutate: func(s *state) {
			s.d.Spec.Replicas = ptr.To[int32](math.MaxInt32 / 2)
			s.d.Spec.Strategy.RollingUpdate.MaxSurge = str("300%")
		}, reason: "the apiserver accepts any digits before %; the surge keeps its low 32 bits, as upstream's"},
		{name: "maxSurge percentage beyond int", mutate: func(s *state) {
			s.d.Spec.Strategy.RollingUpdate.MaxSurge = str("99999999999999999999%")
		}, reason: "the apiserver accepts it (IsValidPercent is a pattern); upstream's sync errors on it, and so does Sync's plan"},
		{name: "negative observedGeneration", mutate: func(s *state) { s.d.Status.ObservedGeneration = -1 },
			wantObject: "Deployment default/web", wantField: "status.observedGeneration", wantKind: deployutil.Invalid, reason: "status counts are ≥ 0"},
		{name: "negative status replicas", mutate: func(s *state) { s.d.Status.Replicas = -1 },
			wantObject: "Deployment default/web", wantField: "status.replicas", wantKind: deployutil.Invalid, reason: "status counts are ≥ 0"},
		{name: "negative updatedReplicas", mutate: func(s *state) { s.d.Status.UpdatedReplicas = -1 },
			wantObject: "Deployment default/web", wantField: "status.updatedReplicas", wantKind: deployutil.Invalid, reason: "status counts are ≥ 0"},
		{name: "negative readyReplicas", mutate: func(s *state) { s.d.Status.ReadyReplicas = -1 },
			wantObject: "Deployment default/web", wantField: "status.readyReplicas", wantKind: deployutil.Invalid, reason: "status counts are ≥ 0"},
		{name: "negative availableReplicas", mutate: func(s *state) { s.d.Status.AvailableReplicas = -1 },
			wantObject: "Deployment default/web", wantField: "status.availableReplicas", wantKind: deployutil.Invalid, reason: "status counts are ≥ 0"},
		{name: "negative unavailableReplicas", mutate: func(s *state) { s.d.Status.UnavailableReplicas = -1 },
			wantObject: "Deployment default/web", wantField: "status.unavailableReplicas", wantKind: deployutil.Invalid, reason: "status counts are ≥ 0"},
		{name: "negative terminatingReplicas", mutate: func(s *state) { s.d.Status.TerminatingReplicas = ptr.To[int32](-1) },
			wantObject: "Deployment default/web", wantField: "status.terminatingReplicas", wantKind: deployutil.Invalid, reason: "status counts are ≥ 0"},
		{name: "negative collisionCount", mutate: func(s *state) { s.d.Status.CollisionCount = ptr.To[int32](-1) },
			wantObject: "Deployment default/web", wantField: "status.collisionCount", wantKind: deployutil.Invalid, reason: "status counts are ≥ 0"},
		{name: "collisionCount at MaxInt32", mutate: func(s *state) { s.d.Status.CollisionCount = ptr.To[int32](math.MaxInt32) },
			reason: "ValidateDeploymentStatus accepts it; a further collision wraps to −2³¹ as upstream's"},
		{name: "updated above replicas", mutate: func(s *state) { s.d.Status.UpdatedReplicas = 4 },
			wantObject: "Deployment default/web", wantField: "status.updatedReplicas", wantKind: deployutil.Invalid, reason: "a subset cannot exceed the whole"},
		{name: "ready above replicas", mutate: func(s *state) { s.d.Status.ReadyReplicas = 4 },
			wantObject: "Deployment default/web", wantField: "status.readyReplicas", wantKind: deployutil.Invalid, reason: "a subset cannot exceed the whole"},
		{name: "available above replicas", mutate: func(s *state) { s.d.Status.AvailableReplicas, s.d.Status.ReadyReplicas = 4, 3 },
			wantObject: "Deployment default/web", wantField: "status.availableReplicas", wantKind: deployutil.Invalid, reason: "a subset cannot exceed the whole"},
		{name: "available above ready", mutate: func(s *state) { s.d.Status.ReadyReplicas = 2 },
			wantObject: "Deployment default/web", wantField: "status.availableReplicas", wantKind: deployutil.Invalid, reason: "available pods are ready pods"},

		{name: "nil ReplicaSet", mutate: func(s *state) { s.rss = append(s.rss, nil) },
			wantObject: "ReplicaSet #1", wantField: "replicaSets", wantKind: deployutil.Required, reason: "no nil entries"},
		{name: "unnamed ReplicaSet", mutate: func(s *state) { second(s).Name = "" },
			wantObject: "ReplicaSet #1", wantField: "metadata.name", wantKind: deployutil.Required, reason: "an unnamed entry is named by its position"},
		{name: "duplicate name", mutate: func(s *state) { second(s).Name = "web-1" },
			wantObject: "ReplicaSet default/web-1", wantField: "metadata.name", wantKind: deployutil.Duplicate, reason: "names are unique in a namespace"},
		{name: "duplicate UID", mutate: func(s *state) { second(s).UID = "rs-uid" },
			wantObject: "ReplicaSet default/web-2", wantField: "metadata.uid", wantKind: deployutil.Duplicate, reason: "UIDs are unique"},
		{name: "duplicate name among many", mutate: func(s *state) { many(s, 40).Name = "web-1" },
			wantObject: "ReplicaSet default/web-1", wantField: "metadata.name", wantKind: deployutil.Duplicate,
			reason: "names are unique in a namespace, however many ReplicaSets the state holds"},
		{name: "duplicate UID among many", mutate: func(s *state) { many(s, 40).UID = "rs-uid-m3" },
			wantObject: "ReplicaSet default/web-m39", wantField: "metadata.uid", wantKind: deployutil.Duplicate,
			reason: "UIDs are unique, however many ReplicaSets the state holds"},
		{name: "many distinct", mutate: func(s *state) { many(s, 40) },
			reason: "40 distinct names and UIDs are no duplicates"},
		{name: "other namespace", mutate: func(s *state) { second(s).Namespace = "other" },
			wantObject: "ReplicaSet other/web-2", wantField: "metadata.namespace", wantKind: deployutil.Invalid, reason: "the state holds one namespace"},
		{name: "nil ReplicaSet replicas", mutate: func(s *state) { second(s).Spec.Replicas = nil },
			wantObject: "ReplicaSet default/web-2", wantField: "spec.replicas", wantKind: deployutil.Required, reason: "deviation: upstream dereferences it"},
		{name: "negative ReplicaSet replicas", mutate: func(s *state) { second(s).Spec.Replicas = ptr.To[int32](-2) },
			wantObject: "ReplicaSet default/web-2", wantField: "spec.replicas", wantKind: deployutil.Invalid, reason: "must be ≥ 0"},
		{name: "negative RS status replicas", mutate: func(s *state) { second(s).Status.Replicas = -1 },
			wantObject: "ReplicaSet default/web-2", wantField: "status.replicas", wantKind: deployutil.Invalid, reason: "status counts are ≥ 0"},
		{name: "negative RS fullyLabeledReplicas", mutate: func(s *state) { second(s).Status.FullyLabeledReplicas = -1 },
			reason: "the apiserver refuses it, but the sync never reads fullyLabeledReplicas: accepting more is allowed"},
		{name: "negative RS readyReplicas", mutate: func(s *state) { second(s).Status.ReadyReplicas = -1 },
			wantObject: "ReplicaSet default/web-2", wantField: "status.readyReplicas", wantKind: deployutil.Invalid, reason: "status counts are ≥ 0"},
		{name: "negative RS availableReplicas", mutate: func(s *state) { second(s).Status.AvailableReplicas = -1 },
			wantObject: "ReplicaSet default/web-2", wantField: "status.availableReplicas", wantKind: deployutil.Invalid, reason: "status counts are ≥ 0"},
		{name: "negative RS terminatingReplicas", mutate: func(s *state) { second(s).Status.TerminatingReplicas = ptr.To[int32](-1) },
			wantObject: "ReplicaSet default/web-2", wantField: "status.terminatingReplicas", wantKind: deployutil.Invalid, reason: "status counts are ≥ 0"},
		{name: "negative RS observedGeneration", mutate: func(s *state) { second(s).Status.ObservedGeneration = -1 },
			wantObject: "ReplicaSet default/web-2", wantField: "status.observedGeneration", wantKind: deployutil.Invalid, reason: "status counts are ≥ 0"},
		{name: "RS ready above replicas", mutate: func(s *state) { second(s).Status.ReadyReplicas = 1 },
			wantObject: "ReplicaSet default/web-2", wantField: "status.readyReplicas", wantKind: deployutil.Invalid, reason: "a subset cannot exceed the whole"},
		{name: "RS available above replicas", mutate: func(s *state) {
			rs := second(s)
			rs.Status.Replicas, rs.Status.ReadyReplicas, rs.Status.AvailableReplicas = 1, 1, 2
		}, wantObject: "ReplicaSet default/web-2", wantField: "status.availableReplicas", wantKind: deployutil.Invalid, reason: "a subset cannot exceed the whole"},
		{name: "RS available above ready", mutate: func(s *state) {
			rs := second(s)
			rs.Status.Replicas, rs.Status.ReadyReplicas, rs.Status.AvailableReplicas = 2, 1, 2
		}, wantObject: "ReplicaSet default/web-2", wantField: "status.availableReplicas", wantKind: deployutil.Invalid, reason: "available pods are ready pods"},
		{name: "desired-replicas above int32", mutate: func(s *state) { s.rss[0].Annotations[deployutil.DesiredReplicasAnnotation] = "2147483648" },
			reason: "annotations are free-form strings; upstream's own parsers read it"},
		{name: "desired-replicas below int32", mutate: func(s *state) { s.rss[0].Annotations[deployutil.DesiredReplicasAnnotation] = "-2147483649" },
			reason: "annotations are free-form strings"},
		{name: "desired-replicas with sign and spaces", mutate: func(s *state) { s.rss[0].Annotations[deployutil.DesiredReplicasAnnotation] = " +5" },
			reason: "annotations are free-form strings"},
		{name: "revision at MaxInt64", mutate: func(s *state) { s.rss[0].Annotations[deployutil.RevisionAnnotation] = "9223372036854775807" },
			reason: "annotations are free-form strings; the next revision wraps as upstream's"},
		{name: "spec sum overflow", mutate: func(s *state) { second(s).Spec.Replicas = ptr.To[int32](math.MaxInt32) },
			reason: "each ReplicaSet is valid on its own; the sums wrap as upstream's"},
		{name: "status sum overflow", mutate: func(s *state) {
			rs := second(s)
			rs.Status.Replicas, rs.Status.ReadyReplicas, rs.Status.AvailableReplicas = math.MaxInt32, math.MaxInt32, math.MaxInt32
		}, reason: "each status is valid on its own; the sums wrap as upstream's"},
		{name: "terminating sum overflow", mutate: func(s *state) {
			s.rss[0].Status.TerminatingReplicas = ptr.To[int32](1)
			second(s).Status.TerminatingReplicas = ptr.To[int32](math.MaxInt32)
		}, reason: "each status is valid on its own; the sum wraps as upstream's"},
		{name: "pods of an unknown ReplicaSet", mutate: func(s *state) {
			s.pods["nobody"] = []*corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "stray", Namespace: "default"}}}
		}, reason: "upstream's pod map holds the pods of the claimed ReplicaSets only; these are ignored"},
		{name: "nil pod", mutate: func(s *state) { s.pods["rs-uid"] = append(s.pods["rs-uid"], nil) },
			wantObject: "Pods", wantField: "pods[rs-uid][1]", wantKind: deployutil.Required, reason: "no nil entries"},
		{name: "pod of another ReplicaSet", mutate: func(s *state) { s.pods["rs-uid"][0].OwnerReferences[0].UID = "rs-uid-other" },
			reason: "not one of web-1's pods, as upstream's index by controller reference would have it; ignored"},
		{name: "pod of another controller", mutate: func(s *state) { s.pods["rs-uid"][0].OwnerReferences = nil },
			reason: "a pod without a controller is in no ReplicaSet's pod list; ignored"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d, rss, pods := validState()
			s := &state{d: d, rss: rss, pods: pods}
			tt.mutate(s)
			frozen := testutil.Freeze(t, s.d, s.rss, s.pods)
			err := facts.Validate(s.d, s.rss, s.pods)
			frozen.Check(t)
			if tt.wantObject == "" {
				if err != nil {
					t.Fatalf("Validate = %v, want nil (%s)", err, tt.reason)
				}
				return
			}
			var ie *deployutil.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("Validate = %v, want an *InputError (%s)", err, tt.reason)
			}
			if !errors.Is(err, deployutil.ErrInvalidInput) {
				t.Errorf("errors.Is(err, ErrInvalidInput) = false")
			}
			if ie.Rule == "" || !strings.Contains(err.Error(), ie.Rule) {
				t.Errorf("the error names no rule it mirrors, or does not show it: %v", err)
			}
			if ie.Object != tt.wantObject || ie.Field != tt.wantField || ie.Kind != tt.wantKind {
				t.Errorf("got %q %q %q, want %q %q %q (%s)\nerror: %v", ie.Object, ie.Field, ie.Kind, tt.wantObject, tt.wantField, tt.wantKind, tt.reason, err)
			}
			if msg := err.Error(); !strings.Contains(msg, ie.Field) || !strings.Contains(msg, string(ie.Kind)) || ie.Detail == "" {
				t.Errorf("the message %q does not name the field and the kind", msg)
			}
		})
	}
}

func TestIsSelectingAll(t *testing.T) {
	tests := []struct {
		name   string
		sel    *metav1.LabelSelector
		want   bool
		reason string
	}{
		{name: "empty", sel: &metav1.LabelSelector{}, want: true, reason: "upstream TestDontSyncDeploymentsWithEmptyPodSelector: the empty selector"},
		{name: "empty non-nil map", sel: &metav1.LabelSelector{MatchLabels: map[string]string{}}, want: false,
			reason: "upstream compares with reflect.DeepEqual, so an empty non-nil map is not caught"},
		{name: "nil", sel: nil, want: false, reason: "a nil selector is not the empty selector"},
		{name: "app=web", sel: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, want: false, reason: "an ordinary selector"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Selector: tt.sel}}
			frozen := testutil.Freeze(t, d)
			defer frozen.Check(t)
			if got := facts.IsSelectingAll(d); got != tt.want {
				t.Errorf("IsSelectingAll = %v, want %v (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

func TestInputErrorMessage(t *testing.T) {
	tests := []struct {
		name   string
		err    *deployutil.InputError
		want   string
		reason string
	}{
		{name: "required", err: &deployutil.InputError{Object: "Deployment default/web", Field: "spec.replicas", Kind: deployutil.Required, Detail: "set it"},
			want: "Deployment default/web: spec.replicas: required: set it", reason: "a missing field has no value to print"},
		{name: "string value", err: &deployutil.InputError{Object: "Deployment default/web", Field: "spec.strategy.type", Kind: deployutil.NotSupported, Value: "Canary", Detail: "no"},
			want: `Deployment default/web: spec.strategy.type: not supported "Canary": no`, reason: "strings are quoted"},
		{name: "int32 pointer", err: &deployutil.InputError{Object: "x", Field: "f", Kind: deployutil.Invalid, Value: ptr.To[int32](-1), Detail: "d"},
			want: "x: f: invalid -1: d", reason: "a pointer prints its value"},
		{name: "nil int32 pointer", err: &deployutil.InputError{Object: "x", Field: "f", Kind: deployutil.Invalid, Value: (*int32)(nil), Detail: "d"},
			want: "x: f: invalid <nil>: d", reason: "a nil pointer prints as <nil>"},
		{name: "rule", err: &deployutil.InputError{Object: "x", Field: "f", Kind: deployutil.Invalid, Value: int32(-1), Detail: "d", Rule: "apps/v1 ValidateDeploymentSpec"},
			want: "x: f: invalid -1: d [apps/v1 ValidateDeploymentSpec]", reason: "the rule follows in brackets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q (%s)", got, tt.want, tt.reason)
			}
		})
	}
}
