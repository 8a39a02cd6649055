package scaling

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testutil"
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
		{name: "product beyond int32", replicas: 100000, size: 50000, maxAnnotation: ptr.To("50000"), want: 50000,
			reason: "deviation: 50000 × 100000 overflows upstream's int32 product; computed in 64 bits it doubles the ReplicaSet"},
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
			if got := fraction(rs, d); got != tt.want {
				t.Errorf("fraction = %d, want %d (%s)", got, tt.want, tt.reason)
			}
		})
	}
}
