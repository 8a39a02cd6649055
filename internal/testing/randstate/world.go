package randstate

import (
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/simulate"
)

// WorldOptions draws a trajectory's world (tick, pod delays, failures, the
// step limit of 60) and a script of changes (images, replicas, pause and
// resume, rollbacks, fenceposts); with rollout, the script starts with an
// image change at 1 s. The conformance suite's trajectories and the
// per-minor recorder draw the same worlds from the same source.
func WorldOptions(src Source, c Case, rollout bool) []simulate.Option {
	pick := func(xs ...time.Duration) time.Duration { return xs[src.Intn(len(xs))] }
	opts := []simulate.Option{
		simulate.WithMaxSteps(60),
		simulate.WithSeed(uint64(src.Intn(1 << 30))),
		simulate.WithTick(pick(time.Second, 5*time.Second, 30*time.Second)),
		simulate.WithPodStartDelay(pick(0, time.Second, 2*time.Second, 10*time.Second)),
		simulate.WithReadinessDelay(pick(0, time.Second, 3*time.Second, 20*time.Second)),
		simulate.WithTerminationDelay(pick(0, time.Second, 5*time.Second, 40*time.Second)),
		simulate.WithSyncOptions(deploysync.WithTerminatingReplicas(c.TerminatingReplicas)),
	}
	if src.Intn(4) == 0 {
		opts = append(opts, simulate.WithFailureRate([]float64{0.05, 0.2, 0.5}[src.Intn(3)]))
	}
	if src.Intn(2) == 0 {
		opts = append(opts, simulate.WithEveryTick())
	}
	var changes []simulate.Change
	at := time.Duration(0)
	if rollout {
		changes = append(changes, simulate.SetImage(time.Second, "web", "nginx:9"))
		at = time.Second
	}
	for i := src.Intn(4); i > 0; i-- {
		at += time.Duration(1+src.Intn(20)) * time.Second
		switch src.Intn(6) {
		case 0, 1:
			changes = append(changes, simulate.SetImage(at, "web", fmt.Sprintf("nginx:%d", 1+src.Intn(5))))
		case 2:
			changes = append(changes, simulate.SetReplicas(at, int32(src.Intn(15))))
		case 3:
			changes = append(changes, simulate.Pause(at), simulate.Resume(at+time.Duration(1+src.Intn(30))*time.Second))
		case 4:
			changes = append(changes, simulate.RollbackTo(at, int64(src.Intn(3))))
		case 5:
			changes = append(changes, simulate.SetFenceposts(at, intstr.FromInt32(int32(src.Intn(3))), intstr.FromString("25%")))
		}
	}
	if len(changes) > 0 {
		opts = append(opts, simulate.WithChanges(changes...))
	}
	return opts
}

// TrajectoryStart draws the state the trajectory of seed starts from, and
// the source its world (WorldOptions) is drawn from next. ok is false when
// the drawn state is one an apiserver refuses: a world cannot start there.
// Every third seed starts where most rollouts do, fully rolled out
// (simulate.Steady) with the Deployment made able to roll: not being
// deleted, not paused, no rollback asked, a selector that selects, at most
// 1,000 replicas; WorldOptions' rollout should then be true. The
// conformance suite, the per-minor recorder and the live run of every
// minor start their trajectories here, so that one seed is one world.
func TrajectoryStart(seed uint64) (src Source, c Case, ok bool, err error) {
	src = NewRand(seed)
	c = Valid(src)
	if facts.Validate(c.State.Deployment, c.State.ReplicaSets, c.State.Pods) != nil {
		return src, c, false, nil
	}
	if seed%3 != 0 {
		return src, c, true, nil
	}
	d := c.State.Deployment
	d.DeletionTimestamp, d.Spec.Paused = nil, false
	delete(d.Annotations, deployutil.RollbackToAnnotation)
	if *d.Spec.Replicas > 1000 {
		d.Spec.Replicas = ptr.To[int32](10)
	}
	if facts.IsSelectingAll(d) {
		d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	}
	steady, err := simulate.Steady(d, c.State.Now)
	if errors.Is(err, deployutil.ErrInvalidInput) {
		return src, c, false, nil // the Deployment alone is one an apiserver refuses
	}
	if err != nil {
		return src, c, false, fmt.Errorf("seed %d: steady state: %w", seed, err)
	}
	c.State = steady
	return src, c, true, nil
}
