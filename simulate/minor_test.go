package simulate_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/simulate"
)

func minorDeployment(name string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	}
}

// TestSteadyForAndRunPerMinor: a run as a minor starts from that minor's
// ReplicaSet and rolls out to a ReplicaSet named with that minor's hash;
// the gate default shows in the statuses (off in 1.33 and 1.34).
func TestSteadyForAndRunPerMinor(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		version     string
		terminating bool
		reason      string
	}{
		{"1.33", false, "the gate is off by default in 1.33"},
		{"1.34", false, "and in 1.34"},
		{"1.35", true, "on from 1.35"},
		{"1.36", true, "on"},
		{"1.37", true, "on"},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			s, err := simulate.SteadyFor(tt.version, minorDeployment("web"), now)
			if err != nil {
				t.Fatal(err)
			}
			hash, err := deployutil.ComputeHashFor(tt.version, &s.Deployment.Spec.Template, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.ReplicaSets[0].Name; got != "web-"+hash {
				t.Errorf("steady ReplicaSet %s, want web-%s (the minor's hash)", got, hash)
			}
			if got := s.Deployment.Status.TerminatingReplicas != nil; got != tt.terminating {
				t.Errorf("steady status reports terminatingReplicas: %v, want %v (%s)", got, tt.terminating, tt.reason)
			}
			tl, err := simulate.Run(s, simulate.WithKubernetesVersion(tt.version), simulate.WithChanges(simulate.SetImage(0, "web", "nginx:1.28")))
			if err != nil {
				t.Fatal(err)
			}
			d := tl.Final.Deployment
			newHash, _ := deployutil.ComputeHashFor(tt.version, &d.Spec.Template, nil)
			var found bool
			for _, rs := range tl.Final.ReplicaSets {
				found = found || rs.Name == "web-"+newHash
			}
			if !found {
				t.Errorf("no ReplicaSet web-%s after the rollout\n%s", newHash, tl.Summary())
			}
			if got := d.Status.TerminatingReplicas != nil; got != tt.terminating {
				t.Errorf("final status reports terminatingReplicas: %v, want %v (%s)", got, tt.terminating, tt.reason)
			}
			if !strings.Contains(tl.Summary(), "Complete") {
				t.Errorf("the rollout did not complete:\n%s", tl.Summary())
			}
		})
	}
}

// TestMinorErrors: an unsupported version fails before the run; 1.33
// cannot name the ReplicaSet of a Deployment with a 250-character name.
func TestMinorErrors(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	s, err := simulate.Steady(minorDeployment("web"), now)
	if err != nil {
		t.Fatal(err)
	}
	var ue *deploysync.UnsupportedVersionError
	if _, err := simulate.Run(s, simulate.WithKubernetesVersion("1.32")); !errors.As(err, &ue) {
		t.Errorf("Run as 1.32: %v, want the unsupported-version error", err)
	}
	if _, err := simulate.SteadyFor("2.0", minorDeployment("web"), now); !errors.As(err, &ue) {
		t.Errorf("SteadyFor 2.0: %v, want the unsupported-version error", err)
	}
	long := strings.Repeat("a", 250)
	if _, err := simulate.SteadyFor("1.33", minorDeployment(long), now); err == nil {
		t.Error("SteadyFor 1.33 named a ReplicaSet longer than 253 characters")
	}
	if s, err := simulate.SteadyFor("1.34", minorDeployment(long), now); err != nil || len(s.ReplicaSets[0].Name) != 253 {
		t.Errorf("SteadyFor 1.34: %v; want the name cut to 253 characters", err)
	}
}
