package upstream_test

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/conformance/upstream"
	"github.com/deploysync/deploysync/internal/testing/randstate"
)

// storedTemplate is a pod template as an apiserver stores it, defaults
// filled in.
func storedTemplate(labels map[string]string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "web", Image: "nginx:1", ImagePullPolicy: corev1.PullIfNotPresent,
				TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile}},
			RestartPolicy: corev1.RestartPolicyAlways, DNSPolicy: corev1.DNSClusterFirst, SchedulerName: "default-scheduler",
			TerminationGracePeriodSeconds: ptr.To[int64](30),
		},
	}
}

const rollbackTo = "deprecated.deployment.rollback.to"

type validState struct {
	d    *appsv1.Deployment
	rss  []*appsv1.ReplicaSet
	pods map[types.UID][]*corev1.Pod
}

func acceptedState() validState {
	d := baseDeployment(3)
	d.Spec.Template = storedTemplate(map[string]string{"app": "web"})
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web-abc", Namespace: "default", UID: "rs-uid",
			Labels:          map[string]string{"app": "web", hashLabel: "abc"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "d-uid", Controller: ptr.To(true)}}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", hashLabel: "abc"}},
			Template: storedTemplate(map[string]string{"app": "web", hashLabel: "abc"})},
		Status: appsv1.ReplicaSetStatus{Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 2},
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-abc-1", Namespace: "default", UID: "p-uid",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-abc", UID: "rs-uid", Controller: ptr.To(true)}}}}
	return validState{d: d, rss: []*appsv1.ReplicaSet{rs}, pods: map[types.UID][]*corev1.Pod{"rs-uid": {pod}}}
}

// TestAccepts checks the classification against what upstream's
// validation (pkg/apis/apps/validation, v1.37.2) says of each field.
func TestAccepts(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		change       func(*validState)
		field        string // "" when accepted; else a field named by the first error
	}{
		{name: "stored objects", reason: "defaulted objects that passed an apiserver are accepted", change: func(*validState) {}},
		{name: "integer annotations beyond int32 and int64", reason: "validation checks annotation keys and size, never the values",
			change: func(s *validState) {
				s.rss[0].Annotations = map[string]string{annDesired: "4294967296", annRevision: "9223372036854775808", annMax: "+5"}
				s.d.Annotations = map[string]string{annRevision: "0x10", annMax: "-2147483649", rollbackTo: "9223372036854775807"}
			}},
		{name: "rollback.to not an integer", reason: "apps/v1 → internal conversion parses rollback.to as an int64 into spec.rollbackTo; the request fails",
			change: func(s *validState) { s.d.Annotations = map[string]string{rollbackTo: " 5"} }, field: "metadata.annotations"},
		{name: "rollback.to beyond int64", reason: "the conversion's ParseInt fails",
			change: func(s *validState) { s.d.Annotations = map[string]string{rollbackTo: "9223372036854775808"} }, field: "metadata.annotations"},
		{name: "rollback.to with a sign", reason: "the apiserver stores the converted value back as \"5\"; no cluster holds \"+5\"",
			change: func(s *validState) { s.d.Annotations = map[string]string{rollbackTo: "+5"} }, field: "metadata.annotations[" + rollbackTo + "]"},
		{name: "rollback.to negative", reason: "ValidateRollback: spec.rollback.version must be non-negative",
			change: func(s *validState) { s.d.Annotations = map[string]string{rollbackTo: "-1"} }, field: "spec.rollback.version"},
		{name: "sizes whose sum overflows int32", reason: "each size is only checked to be non-negative",
			change: func(s *validState) {
				other := s.rss[0].DeepCopy()
				other.Name, other.UID = "web-def", "rs2-uid"
				s.rss[0].Spec.Replicas, other.Spec.Replicas = ptr.To[int32](2147483647), ptr.To[int32](2147483647)
				s.rss = append(s.rss, other)
			}},
		{name: "collisionCount at its limit", reason: "collisionCount is only checked to be non-negative",
			change: func(s *validState) { s.d.Status.CollisionCount = ptr.To[int32](2147483647) }},
		{name: "pods filed under an unknown UID", reason: "the map key is the caller's, upstream goes by controller references",
			change: func(s *validState) { s.pods["gone"] = s.pods["rs-uid"]; delete(s.pods, "rs-uid") }},
		{name: "empty selector", reason: "ValidateDeploymentSpec: empty selector is invalid for deployment",
			change: func(s *validState) { s.d.Spec.Selector = &metav1.LabelSelector{} }, field: "spec.selector"},
		{name: "container without image", reason: "ValidatePodTemplateSpec requires a container image",
			change: func(s *validState) { s.d.Spec.Template.Spec.Containers[0].Image = "" }, field: "spec.template.spec.containers[0].image"},
		{name: "restartPolicy Never", reason: "ValidatePodTemplateSpecForReplicaSet allows only Always",
			change: func(s *validState) { s.rss[0].Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever },
			field:  "replicaSets[0].spec.template.spec.restartPolicy"},
		{name: "status ready above replicas", reason: "ValidateDeploymentStatus: readyReplicas cannot be greater than status.replicas",
			change: func(s *validState) { s.d.Status.ReadyReplicas = 1 }, field: "status.readyReplicas"},
		{name: "replica set available above ready", reason: "ValidateReplicaSetStatus: availableReplicas cannot be greater than readyReplicas",
			change: func(s *validState) { s.rss[0].Status.AvailableReplicas = 4 }, field: "replicaSets[0].status.availableReplicas"},
		{name: "negative replicas", reason: "ValidateDeploymentSpec: replicas must be non-negative",
			change: func(s *validState) { s.d.Spec.Replicas = ptr.To[int32](-1) }, field: "spec.replicas"},
		{name: "ReplicaSet without uid", reason: "a stored object always has the uid the apiserver gave it",
			change: func(s *validState) { s.rss[0].UID = "" }, field: "replicaSets[0].metadata.uid"},
		{name: "two ReplicaSets of one name", reason: "a namespace holds one object per name",
			change: func(s *validState) {
				dup := s.rss[0].DeepCopy()
				dup.UID = "rs2-uid"
				s.rss = append(s.rss, dup)
			}, field: "replicaSets[1].metadata.name"},
		{name: "pod with two controllers", reason: "ValidateOwnerReferences allows one controller at most",
			change: func(s *validState) {
				p := s.pods["rs-uid"][0]
				p.OwnerReferences = append(p.OwnerReferences, metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "x", UID: "x", Controller: ptr.To(true)})
			}, field: "pods[rs-uid][0].metadata.ownerReferences"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := acceptedState()
			tc.change(&s)
			ok, errs := upstream.Accepts(s.d, s.rss, s.pods)
			if tc.field == "" {
				if !ok {
					t.Fatalf("%s: refused: %v", tc.reason, errs)
				}
				return
			}
			if ok {
				t.Fatalf("%s: accepted", tc.reason)
			}
			for _, e := range errs {
				if strings.HasPrefix(e.Field, tc.field) {
					return
				}
			}
			t.Fatalf("%s: no error on %s: %v", tc.reason, tc.field, errs)
		})
	}
}

// TestGeneratedMostlyAccepted checks that the conformance generator makes
// states upstream's validation accepts, most of the time.
func TestGeneratedMostlyAccepted(t *testing.T) {
	const n = 2000
	refused := 0
	for seed := uint64(1); seed <= n; seed++ {
		c := randstate.Valid(randstate.NewRand(seed))
		if ok, errs := upstream.Accepts(c.State.Deployment, c.State.ReplicaSets, c.State.Pods); !ok {
			refused++
			if refused == 1 {
				t.Logf("first refusal, seed %d: %v", seed, errs)
			}
		}
	}
	if refused > n/10 {
		t.Errorf("validation refused %d of %d generated states", refused, n)
	}
	t.Logf("validation refused %d of %d generated states", refused, n)
}
