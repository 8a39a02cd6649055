package facts_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// TestMaxUnavailable restates upstream's TestMaxUnavailable (8 rows).
func TestMaxUnavailable(t *testing.T) {
	recreate := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}}}
	tests := []struct {
		name   string
		d      *appsv1.Deployment
		want   int32
		reason string
	}{
		{name: "less than replicas", d: rollingDeployment(10, intstr.FromInt32(1), intstr.FromInt32(5)), want: 5,
			reason: "upstream: 5 of 10 may be unavailable"},
		{name: "equal to replicas", d: rollingDeployment(10, intstr.FromInt32(1), intstr.FromInt32(10)), want: 10,
			reason: "upstream: all 10 may be unavailable"},
		{name: "greater than replicas", d: rollingDeployment(5, intstr.FromInt32(1), intstr.FromInt32(10)), want: 5,
			reason: "upstream: maxUnavailable is clamped to replicas"},
		{name: "replicas 0", d: rollingDeployment(0, intstr.FromInt32(1), intstr.FromInt32(10)), want: 0,
			reason: "upstream: nothing may be unavailable of nothing"},
		{name: "Recreate", d: recreate, want: 0,
			reason: "upstream: only RollingUpdate has a maxUnavailable"},
		{name: "50% of 10", d: rollingDeployment(10, intstr.FromInt32(1), intstr.FromString("50%")), want: 5,
			reason: "upstream: percentages of replicas"},
		{name: "100% of 10", d: rollingDeployment(10, intstr.FromInt32(1), intstr.FromString("100%")), want: 10,
			reason: "upstream: 100% is every replica"},
		{name: "100% of 5", d: rollingDeployment(5, intstr.FromInt32(1), intstr.FromString("100%")), want: 5,
			reason: "upstream: 100% of 5 is 5"},
		{name: "unresolvable", d: rollingDeployment(5, intstr.FromString("x"), intstr.FromString("1%")), want: 0,
			reason: "fenceposts that do not resolve give 0, as upstream ignores the error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, tt.d)
			got := facts.MaxUnavailable(tt.d)
			frozen.Check(t)
			if got != tt.want {
				t.Errorf("MaxUnavailable = %d, want %d (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

// TestMinAvailable restates the RollingUpdate rows of upstream's
// TestMinAvailable (7 of 8): the minimum of available replicas a rolling
// update keeps is spec.replicas − MaxUnavailable. Upstream's MinAvailable
// helper is not used by its controller and has no counterpart here; its
// Recreate row (0) has no meaning for the controller, which uses
// spec.replicas − 0 for Recreate.
func TestMinAvailable(t *testing.T) {
	tests := []struct {
		name   string
		d      *appsv1.Deployment
		want   int32
		reason string
	}{
		{name: "replicas above maxUnavailable", d: rollingDeployment(10, intstr.FromInt32(1), intstr.FromInt32(5)), want: 5, reason: "upstream: 10 − 5"},
		{name: "replicas equal maxUnavailable", d: rollingDeployment(10, intstr.FromInt32(1), intstr.FromInt32(10)), want: 0, reason: "upstream: 10 − 10"},
		{name: "replicas below maxUnavailable", d: rollingDeployment(5, intstr.FromInt32(1), intstr.FromInt32(10)), want: 0, reason: "upstream: clamped, never negative"},
		{name: "replicas 0", d: rollingDeployment(0, intstr.FromInt32(1), intstr.FromInt32(10)), want: 0, reason: "upstream: 0 of 0"},
		{name: "60% of 10", d: rollingDeployment(10, intstr.FromInt32(1), intstr.FromString("60%")), want: 4, reason: "upstream: 10 − floor(6)"},
		{name: "100% of 10", d: rollingDeployment(10, intstr.FromInt32(1), intstr.FromString("100%")), want: 0, reason: "upstream: 10 − 10"},
		{name: "100% of 5", d: rollingDeployment(5, intstr.FromInt32(1), intstr.FromString("100%")), want: 0, reason: "upstream: 5 − 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, tt.d)
			got := *tt.d.Spec.Replicas - facts.MaxUnavailable(tt.d)
			frozen.Check(t)
			if got != tt.want {
				t.Errorf("replicas − MaxUnavailable = %d, want %d (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

func TestMaxSurgeAndFenceposts(t *testing.T) {
	recreate := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](4), Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}}}
	noParams := rollingDeployment(4, intstr.FromInt32(1), intstr.FromInt32(1))
	noParams.Spec.Strategy.RollingUpdate = nil
	tests := []struct {
		name                       string
		d                          *appsv1.Deployment
		wantSurge, wantUnavailable int32
		wantMaxReplicas            int32
		wantErr                    bool
		reason                     string
	}{
		{name: "25% of 10", d: rollingDeployment(10, intstr.FromString("25%"), intstr.FromString("25%")), wantSurge: 3, wantUnavailable: 2, wantMaxReplicas: 13,
			reason: "surge ceil(2.5) = 3, unavailable floor(2.5) = 2; max-replicas is 10 + 3"},
		{name: "unclamped", d: rollingDeployment(2, intstr.FromInt32(5), intstr.FromInt32(5)), wantSurge: 5, wantUnavailable: 5, wantMaxReplicas: 7,
			reason: "Fenceposts does not clamp (MaxUnavailable does); maxSurge is never clamped"},
		{name: "Recreate", d: recreate, wantSurge: 0, wantUnavailable: 0, wantMaxReplicas: 4,
			reason: "Recreate has no surge: max-replicas is spec.replicas"},
		{name: "RollingUpdate without parameters", d: noParams, wantSurge: 0, wantUnavailable: 0, wantMaxReplicas: 4,
			reason: "no parameters resolve to nothing here; Validate refuses such a Deployment"},
		{name: "unresolvable surge", d: rollingDeployment(4, intstr.FromString("x"), intstr.FromInt32(1)), wantErr: true, wantMaxReplicas: 4,
			reason: "MaxSurge ignores the error and gives 0, as upstream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, tt.d)
			s, u, err := deployutil.Fenceposts(tt.d)
			ms, mr := facts.MaxSurge(tt.d), facts.MaxReplicas(tt.d)
			frozen.Check(t)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if s != tt.wantSurge || u != tt.wantUnavailable || ms != tt.wantSurge || mr != tt.wantMaxReplicas {
				t.Errorf("Fenceposts = %d/%d, MaxSurge = %d, MaxReplicas = %d; want %d/%d, %d, %d (%s)",
					s, u, ms, mr, tt.wantSurge, tt.wantUnavailable, tt.wantSurge, tt.wantMaxReplicas, tt.reason)
			}
		})
	}
}
