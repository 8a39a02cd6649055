// Package limits holds the property tests of deploysync.WithLimits: random
// rollouts in the simulator's world under a limit that moves, checked for
// the simulator's invariants and the limit's own. They live in the
// conformance module because pgregory.net/rapid (which shrinks a failing
// trajectory to a small one) is a dependency of this module, not of the
// library's.
package limits

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"pgregory.net/rapid"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/simulate"
)

// annotation carries the limit, as the example controller reads it.
const annotation = "deploysync.dev/max-updated"

var start = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// limitChange is one move of the limit.
type limitChange struct {
	at    time.Duration
	value intstr.IntOrString
}

// trajectory is a drawn rollout: a Deployment, an image change at 0, the
// limit's moves, maybe a scale, then the limit at 100% at the end.
type trajectory struct {
	replicas, scaleTo  int32
	scaleAt            time.Duration
	surge, unavailable intstr.IntOrString
	moves              []limitChange
	readyDelay         int
}

func intOrPercent(t *rapid.T, label string, maxInt int) intstr.IntOrString {
	if rapid.Bool().Draw(t, label+" is percent") {
		return intstr.FromString(fmt.Sprintf("%d%%", rapid.IntRange(0, 120).Draw(t, label+" %")))
	}
	return intstr.FromInt(rapid.IntRange(0, maxInt).Draw(t, label))
}

func draw(t *rapid.T) trajectory {
	tr := trajectory{
		replicas:    int32(rapid.IntRange(1, 25).Draw(t, "replicas")),
		surge:       intOrPercent(t, "maxSurge", 5),
		unavailable: intOrPercent(t, "maxUnavailable", 5),
		readyDelay:  rapid.IntRange(0, 6).Draw(t, "readiness delay"),
	}
	n := rapid.IntRange(1, 4).Draw(t, "limit moves")
	for i := 0; i < n; i++ {
		at := time.Duration(0)
		if i > 0 {
			at = time.Duration(rapid.IntRange(1, 120).Draw(t, fmt.Sprintf("move %d at", i))) * time.Second
		}
		tr.moves = append(tr.moves, limitChange{at: at, value: intOrPercent(t, fmt.Sprintf("move %d", i), int(tr.replicas)+2)})
	}
	// In time order, as the simulator makes them (a stable sort by At).
	slices.SortStableFunc(tr.moves, func(a, b limitChange) int { return cmp.Compare(a.at, b.at) })
	if rapid.Bool().Draw(t, "scale") {
		tr.scaleTo = int32(rapid.IntRange(1, 25).Draw(t, "scale to"))
		tr.scaleAt = time.Duration(rapid.IntRange(1, 120).Draw(t, "scale at")) * time.Second
	}
	return tr
}

func deployment(tr trajectory) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(tr.replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &tr.surge, MaxUnavailable: &tr.unavailable}},
		},
	}
}

func annotate(at time.Duration, v string) simulate.Change {
	return simulate.Change{At: at, Description: annotation + "=" + v, Edit: func(d *appsv1.Deployment) error {
		if d.Annotations == nil {
			d.Annotations = map[string]string{}
		}
		d.Annotations[annotation] = v
		return nil
	}}
}

// end is when the limit goes to 100%, after every drawn move.
const end = 200 * time.Second

// TestLimitProperties draws rollouts under a moving limit and checks, on
// every trajectory:
//
//   - the simulator's invariants (simulate.Invariant): never more than
//     replicas + maxSurge pods, never fewer than replicas − maxUnavailable
//     available once all were available, one new ReplicaSet;
//   - no RollingUpdate sync grows the new ReplicaSet above the limit in
//     force (the limit resolved as maxSurge: a percentage of spec.replicas
//     rounded up): after it, the new ReplicaSet has at most the limit or
//     its size before, whichever is larger — a lowered limit is reached
//     step by step, never by growing;
//   - with no lowering and no scale, the new ReplicaSet is never above the
//     limit at all;
//   - the rollout completes once the limit is 100%.
//
// The syncs run with FixStaleDesiredReplicas: without it upstream's
// kubernetes/kubernetes#102551 stalls some trajectories for good, limit or
// not (a maxSurge 0 rollout scaled down between two syncs: the only active
// ReplicaSet has spec.replicas and a stale desired-replicas annotation, and
// every sync is a scaling event that writes nothing). rapid found one: 10
// replicas, maxSurge 0, scaled to 8 a second after the image change.
func TestLimitProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tr := draw(rt)
		steady, err := simulate.Steady(deployment(tr), start)
		if err != nil {
			rt.Skipf("steady: %v", err) // fenceposts the apiserver refuses (both 0)
		}
		changes := []simulate.Change{simulate.SetImage(0, "web", "nginx:1.28")}
		for _, m := range tr.moves {
			changes = append(changes, annotate(m.at, m.value.String()))
		}
		if tr.scaleTo > 0 {
			changes = append(changes, simulate.SetReplicas(tr.scaleAt, tr.scaleTo))
		}
		changes = append(changes, annotate(end, "100%"))
		// limits records the annotation each sync saw, by time.
		limits := map[time.Time]string{}
		sync := func(s deploysync.State) (deploysync.Plan, error) {
			var l deploysync.Limits
			if v, ok := s.Deployment.Annotations[annotation]; ok {
				x := intstr.Parse(v)
				l.MaxUpdated = &x
				limits[s.Now] = v
			}
			return deploysync.Sync(s, deploysync.WithLimits(l), deploysync.WithFixes(deploysync.FixStaleDesiredReplicas))
		}
		tl, err := simulate.Run(steady, simulate.WithSyncFunc(sync), simulate.WithChanges(changes...),
			simulate.WithReadinessDelay(time.Duration(tr.readyDelay)*time.Second), simulate.WithMaxSteps(2000))
		if err != nil {
			rt.Fatalf("Run: %v", err)
		}
		if err := tl.Err(); err != nil {
			rt.Fatalf("invariants broken:\n%v\n%s", err, tl.Transcript())
		}
		if tl.Outcome != simulate.Complete {
			rt.Fatalf("outcome %s after the limit went to 100%%, want Complete\n%s", tl.Outcome, tl.Transcript())
		}
		monotone := tr.scaleTo == 0
		for i := 1; i < len(tr.moves); i++ {
			prev := resolve(rt, tr.moves[i-1].value, tr.replicas)
			if resolve(rt, tr.moves[i].value, tr.replicas) < prev {
				monotone = false
			}
		}
		before := map[string]int32{}
		for _, st := range tl.Steps {
			v, ok := limits[st.Time]
			for _, rs := range st.ReplicaSets {
				if !rs.New || !ok || st.Branch != deploysync.RollingUpdate || len(st.ReplicaSets) < 2 {
					continue
				}
				limit := resolve(rt, intstr.Parse(v), st.Replicas)
				if limit >= st.Replicas {
					continue // no binding limit: upstream's rollout
				}
				if rs.Replicas > max(limit, before[rs.Name]) {
					rt.Fatalf("step %d: new ReplicaSet %s grew %d→%d, above the limit %s (%d of %d)\n%s",
						st.Index, rs.Name, before[rs.Name], rs.Replicas, v, limit, st.Replicas, tl.Transcript())
				}
				if monotone && rs.Replicas > limit {
					rt.Fatalf("step %d: new ReplicaSet %s has %d, above the limit %s (%d of %d), with no lowering or scale\n%s",
						st.Index, rs.Name, rs.Replicas, v, limit, st.Replicas, tl.Transcript())
				}
			}
			for _, rs := range st.ReplicaSets {
				before[rs.Name] = rs.Replicas
			}
		}
	})
}

// resolve is the limit in replicas: intstr's scaling, rounded up as
// maxSurge is.
func resolve(t *rapid.T, v intstr.IntOrString, replicas int32) int32 {
	n, err := intstr.GetScaledValueFromIntOrPercent(&v, int(replicas), true)
	if err != nil {
		t.Fatalf("limit %v: %v", v, err)
	}
	return int32(n)
}
