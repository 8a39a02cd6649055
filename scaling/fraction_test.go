package scaling

import (
	"math"
	"runtime"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// TestFraction restates upstream's TestGetReplicaSetFraction (9 rows): a
// ReplicaSet's proportional change when its Deployment goes from the
// max-replicas it was sized for (or, without that, status.replicas) to
// replicas + maxSurge. Upstream's rows use maxUnavailable 1.
func TestFraction(t *testing.T) {
	tests := []struct {
		name           string
		replicas       int32
		statusReplicas int32
		surge          int32
		size           int32
		maxAnnotation  *string
		fixes          Fixes
		want           int32
		reason         string
	}{
		{name: "empty deployment", replicas: 0, size: 10, want: -10,
			reason: "upstream: a Deployment scaled to 0 takes every replica"},
		{name: "no annotation, unsynced", replicas: 10, size: 5, want: 0,
			reason: "upstream: without max-replicas and without status.replicas there is nothing to scale from"},
		{name: "annotation 0, unsynced", replicas: 10, size: 5, maxAnnotation: ptr.To("0"), want: 0,
			reason: "upstream: a max-replicas of 0 (set by a third party) counts as missing"},
		{name: "no annotation, up by 1/5", replicas: 120, statusReplicas: 100, size: 50, want: 10,
			reason: "upstream: status.replicas 100 is the fallback denominator: 50 × 120/100 − 50"},
		{name: "annotation 0, up by 1/5", replicas: 120, statusReplicas: 100, size: 50, maxAnnotation: ptr.To("0"), want: 10,
			reason: "upstream: the same with a zero annotation"},
		{name: "up by 1/5", replicas: 120, size: 50, maxAnnotation: ptr.To("100"), want: 10,
			reason: "upstream: 50 × 120/100 − 50"},
		{name: "up by about 1/5 with surge", replicas: 120, surge: 10, size: 50, maxAnnotation: ptr.To("110"), want: 9,
			reason: "upstream: surge pods scale too: round(50 × 130/110) − 50 = 59 − 50"},
		{name: "down by 1/6", replicas: 10, size: 6, maxAnnotation: ptr.To("12"), want: -1,
			reason: "upstream: 6 × 10/12 − 6"},
		{name: "down by about 1/6 with surge", replicas: 100, surge: 10, size: 50, maxAnnotation: ptr.To("130"), want: -8,
			reason: "upstream: round(50 × 110/130) − 50 = 42 − 50"},
		{name: "product beyond int32", replicas: 100000, size: 50000, maxAnnotation: ptr.To("50000"), want: -35899,
			reason: "upstream (GetReplicaSetProportion run on it): 50000 × 100000 wraps to 705032704 in int32; round(705032704/50000) − 50000"},
		{name: "product beyond int32, scaling down", replicas: 50000, size: 50000, maxAnnotation: ptr.To("40000"), want: -94874,
			reason: "upstream (GetReplicaSetProportion run on it): 50000 × 50000 wraps to −1794967296; round(−1794967296/40000) − 50000"},
		{name: "product beyond int32, fixed", replicas: 100000, size: 50000, maxAnnotation: ptr.To("50000"), fixes: Fixes{ProportionalOverflow: true}, want: 50000,
			reason: "FixProportionalOverflow: in 64 bits, 50000 × 100000/50000 − 50000 doubles the ReplicaSet"},
		{name: "quotient beyond int32, fixed", replicas: math.MaxInt32 - 1, size: math.MaxInt32 - 1, maxAnnotation: ptr.To("1"), fixes: Fixes{ProportionalOverflow: true}, want: 1,
			reason: "FixProportionalOverflow: (2³¹−2)² / 1 is above 2³¹−1 and counts as 2³¹−1; minus the size 2³¹−2 leaves 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d := &appsv1.Deployment{
				Spec: appsv1.DeploymentSpec{Replicas: ptr.To(tt.replicas), Strategy: appsv1.DeploymentStrategy{
					Type: appsv1.RollingUpdateDeploymentStrategyType,
					RollingUpdate: &appsv1.RollingUpdateDeployment{
						MaxSurge: ptr.To(intstr.FromInt32(tt.surge)), MaxUnavailable: ptr.To(intstr.FromInt32(1))}}},
				Status: appsv1.DeploymentStatus{Replicas: tt.statusReplicas},
			}
			rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "nginx-1"}, Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(tt.size)}}
			if tt.maxAnnotation != nil {
				rs.Annotations = map[string]string{deployutil.MaxReplicasAnnotation: *tt.maxAnnotation}
			}
			frozen := testutil.Freeze(t, d, rs)
			defer frozen.Check(t)
			if got := fraction(rs, d, tt.fixes); got != tt.want {
				t.Errorf("fraction = %d, want %d (%s)", got, tt.want, tt.reason)
			}
		})
	}
}

// TestRoundToInt32 pins the conversion of upstream's int32(math.Round(x))
// to what Go's amd64 code gives (CVTTSD2SL: −2³¹ for NaN and anything out
// of range), values observed with a program run on amd64.
func TestRoundToInt32(t *testing.T) {
	tests := []struct {
		x      float64
		want   int32
		reason string
	}{
		{2.5, 3, "half away from zero, as math.Round"},
		{-2.5, -3, "half away from zero, negative"},
		{2147483647, math.MaxInt32, "the largest int32 converts as is"},
		{2147483647.4, math.MaxInt32, "rounds down to the largest int32"},
		{2147483647.5, math.MinInt32, "rounds to 2³¹, out of range: amd64 gives −2³¹"},
		{3e9, math.MinInt32, "out of range: amd64 gives −2³¹ (not the low 32 bits)"},
		{4294967299, math.MinInt32, "out of range: amd64 gives −2³¹"},
		{-2147483648, math.MinInt32, "the smallest int32 converts as is"},
		{-2147483649, math.MinInt32, "out of range below: −2³¹"},
		{math.Inf(1), math.MinInt32, "+Inf: −2³¹"},
		{math.NaN(), math.MinInt32, "NaN: −2³¹"},
	}
	for _, tt := range tests {
		if got := roundToInt32(tt.x); got != tt.want {
			t.Errorf("roundToInt32(%v) = %d, want %d (%s)", tt.x, got, tt.want, tt.reason)
		}
		if runtime.GOARCH == "amd64" {
			if native := nativeRoundToInt32(tt.x); native != tt.want {
				t.Errorf("on amd64 int32(math.Round(%v)) = %d, the table says %d", tt.x, native, tt.want)
			}
		}
	}
}

// nativeRoundToInt32 is upstream's expression itself, kept out of line so
// the compiler converts at run time.
//
//go:noinline
func nativeRoundToInt32(x float64) int32 { return int32(math.Round(x)) }
