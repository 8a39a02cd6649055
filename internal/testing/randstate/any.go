package randstate

import (
	"math"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
)

// Any generates a state that is valid about half of the time; otherwise one
// to three of the mistakes below are made in it, the kind of input Sync must
// answer with an error instead of a panic.
func Any(src Source) Case {
	c := Valid(src)
	gg := g{src}
	if gg.chance(50) {
		return c
	}
	for i := 1 + gg.n(3); i > 0; i-- {
		breakers[gg.n(len(breakers))](gg, &c)
	}
	return c
}

func someRS(g g, c *Case) *appsv1.ReplicaSet {
	if len(c.State.ReplicaSets) == 0 {
		return nil
	}
	return c.State.ReplicaSets[g.n(len(c.State.ReplicaSets))]
}

var breakers = []func(g, *Case){
	func(g g, c *Case) { c.State.Deployment = nil },
	func(g g, c *Case) {
		if d := c.State.Deployment; d != nil {
			d.Spec.Replicas = nil
		}
	},
	func(g g, c *Case) {
		if d := c.State.Deployment; d != nil {
			d.Spec.Replicas = ptr.To(int32(pick(g, -1, math.MinInt32, math.MaxInt32, math.MaxInt32-1)))
		}
	},
	func(g g, c *Case) {
		if d := c.State.Deployment; d != nil {
			d.Spec.Selector = nil
		}
	},
	func(g g, c *Case) {
		if d := c.State.Deployment; d != nil {
			d.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}}
		}
	},
	func(g g, c *Case) {
		if d := c.State.Deployment; d != nil {
			d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "elsewhere"}}
		}
	},
	func(g g, c *Case) {
		if d := c.State.Deployment; d != nil {
			d.Spec.Strategy.Type = appsv1.DeploymentStrategyType(pick(g, "", "BlueGreen"))
		}
	},
	func(g g, c *Case) {
		if d := c.State.Deployment; d != nil {
			d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: pick(g,
				nil, &appsv1.RollingUpdateDeployment{},
				&appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(0)), MaxUnavailable: ptr.To(intstr.FromString("0%"))},
				&appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromString("abc%")), MaxUnavailable: ptr.To(intstr.FromInt32(1))},
				&appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromString("150")), MaxUnavailable: ptr.To(intstr.FromInt32(1))},
				&appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(-1)), MaxUnavailable: ptr.To(intstr.FromInt32(1))},
				&appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromString("101%"))},
				&appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromString("100%")), MaxUnavailable: ptr.To(intstr.FromInt32(1))},
				&appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(math.MaxInt32)), MaxUnavailable: ptr.To(intstr.FromInt32(1))},
			)}
		}
	},
	func(g g, c *Case) {
		if d := c.State.Deployment; d != nil {
			d.Spec.ProgressDeadlineSeconds = ptr.To(d.Spec.MinReadySeconds)
		}
	},
	func(g g, c *Case) {
		if d := c.State.Deployment; d != nil {
			d.Status.AvailableReplicas = d.Status.Replicas + 1
		}
	},
	func(g g, c *Case) {
		if d := c.State.Deployment; d != nil {
			d.Status.CollisionCount = ptr.To(int32(pick(g, -1, math.MaxInt32)))
		}
	},
	func(g g, c *Case) {
		if d := c.State.Deployment; d != nil {
			d.Name = pick(g, "", "Not_A_Name", string(make([]byte, 254)))
		}
	},
	func(g g, c *Case) {
		if rs := someRS(g, c); rs != nil {
			rs.Spec.Replicas = nil
		}
	},
	func(g g, c *Case) {
		if rs := someRS(g, c); rs != nil {
			rs.Spec.Replicas = ptr.To(int32(pick(g, -5, math.MaxInt32)))
		}
	},
	func(g g, c *Case) {
		if len(c.State.ReplicaSets) > 0 {
			c.State.ReplicaSets = append(c.State.ReplicaSets, c.State.ReplicaSets[0].DeepCopy())
		}
	},
	func(g g, c *Case) {
		if len(c.State.ReplicaSets) > 0 {
			c.State.ReplicaSets[g.n(len(c.State.ReplicaSets))] = nil
		}
	},
	func(g g, c *Case) {
		if rs := someRS(g, c); rs != nil {
			rs.Namespace = "elsewhere"
		}
	},
	func(g g, c *Case) {
		if rs := someRS(g, c); rs != nil {
			rs.Status.ReadyReplicas = rs.Status.Replicas + 1
		}
	},
	func(g g, c *Case) {
		if rs := someRS(g, c); rs != nil {
			if rs.Annotations == nil {
				rs.Annotations = map[string]string{}
			}
			rs.Annotations[pick(g, deployutil.DesiredReplicasAnnotation, deployutil.RevisionAnnotation)] = pick(g, "4294967296", "9223372036854775807", "-2147483649")
		}
	},
	func(g g, c *Case) {
		if c.State.Pods == nil {
			c.State.Pods = map[types.UID][]*corev1.Pod{}
		}
		c.State.Pods[types.UID(pick(g, "nobody", "uid-web-x"))] = []*corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "stray"}}}
	},
	func(g g, c *Case) {
		if rs := someRS(g, c); rs != nil {
			if c.State.Pods == nil {
				c.State.Pods = map[types.UID][]*corev1.Pod{}
			}
			c.State.Pods[rs.UID] = append(c.State.Pods[rs.UID], nil, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "unowned", Namespace: rs.Namespace}})
		}
	},
}
