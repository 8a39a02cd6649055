package scenarios

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
)

const (
	progressing = appsv1.DeploymentProgressing
	available   = appsv1.DeploymentAvailable
)

var (
	condTrue    = corev1.ConditionTrue
	condFalse   = corev1.ConditionFalse
	condUnknown = corev1.ConditionUnknown
)

func state(d *appsv1.Deployment, rss ...*appsv1.ReplicaSet) deploysync.State {
	return deploysync.State{Deployment: d, ReplicaSets: rss, Now: Now}
}

// availableCond and friends are the conditions of a Deployment in a steady
// state, stamped an hour ago.
func availableCond() appsv1.DeploymentCondition {
	return Cond(available, condTrue, deployutil.ReasonMinimumReplicasAvailable, "Deployment has minimum availability.", time.Hour)
}

func progressingCond(reason, msg string, ago time.Duration) appsv1.DeploymentCondition {
	return Cond(progressing, condTrue, reason, msg, ago)
}

// All returns every scenario, in a fixed order.
func All() []Scenario {
	var out []Scenario
	add := func(name, reason string, s deploysync.State) {
		out = append(out, Scenario{Name: name, Reason: reason, State: s})
	}

	// Appendix B traces.
	add("new deployment", "a new Deployment gets its first ReplicaSet at full size", state(Deployment(3)))

	{
		d := Deployment(4)
		d.Spec.Template = Template("nginx:2")
		Observed(d, 4, 4, 4, availableCond(), progressingCond(deployutil.ReasonNewReplicaSetAvailable, `ReplicaSet "web-old" has successfully progressed.`, time.Hour))
		add("template change", "a template change creates the new ReplicaSet within maxSurge and scales the old one down within maxUnavailable",
			state(d, ReplicaSet(Steady("web-old", "nginx:1", 4, "1", time.Hour))))
	}
	{
		d := Deployment(8)
		Observed(d, 5, 2, 5, availableCond(), progressingCond(deployutil.ReasonReplicaSetUpdated, `ReplicaSet "web-new" is progressing.`, time.Minute))
		d.Status.Conditions = nil // the trace starts without a Progressing condition
		old := Steady("web-old", "nginx:0", 3, "1", time.Hour)
		old.Desired, old.Max = "4", "5"
		nw := Steady("web-new", "nginx:1", 2, "2", time.Minute)
		nw.Desired, nw.Max = "4", "5"
		add("scaling event mid-rollout", "spec.replicas 4→8 while two ReplicaSets run: both grow in proportion to max-replicas",
			state(d, ReplicaSet(old), ReplicaSet(nw)))
	}
	{
		d := Deployment(3)
		d.Spec.Paused = true
		add("paused new deployment", "a paused Deployment gets the DeploymentPaused condition and no ReplicaSet", state(d))
	}
	{
		d := Recreate(Deployment(2))
		d.Spec.Template = Template("nginx:2")
		old := ReplicaSet(RS{Name: "web-old", Image: "nginx:1", Revision: "1", Desired: "2", Max: "2", Age: time.Hour})
		old.Status.TerminatingReplicas = ptr.To[int32](1)
		s := state(d, old)
		s.Pods = map[types.UID][]*corev1.Pod{old.UID: {Pod(old, "web-old-a", corev1.PodRunning, true)}}
		add("recreate waits for terminating pod", "Recreate waits while an old pod is terminating: a terminating Running pod still counts", s)

		d2 := Recreate(Deployment(2))
		d2.Spec.Template = Template("nginx:2")
		old2 := ReplicaSet(RS{Name: "web-old", Image: "nginx:1", Revision: "1", Desired: "2", Max: "2", Age: time.Hour})
		s2 := state(d2, old2)
		s2.Pods = map[types.UID][]*corev1.Pod{old2.UID: {Pod(old2, "web-old-a", corev1.PodSucceeded, false), Pod(old2, "web-old-b", corev1.PodFailed, true)}}
		add("recreate creates new at full size", "once no old pod runs (finished pods do not count), Recreate creates the new ReplicaSet at full size", s2)
	}
	{
		d := Deployment(3)
		foreign := ReplicaSet(RS{Name: "web-6bcddfc897", Image: "busybox", Replicas: 1, Current: 1, Owner: "orphan", Labels: map[string]string{"app": "other"}})
		add("hash collision", "the name the new ReplicaSet would get is taken by an unrelated ReplicaSet: collisionCount goes up and the sync fails",
			state(d, foreign))
	}
	{
		d := Deployment(3)
		d.Spec.Template = Template("nginx:2")
		d.Annotations = map[string]string{deployutil.RollbackToAnnotation: "0", deployutil.RevisionAnnotation: "2", deployutil.ChangeCauseAnnotation: "v2"}
		Observed(d, 3, 3, 3, availableCond(), progressingCond(deployutil.ReasonNewReplicaSetAvailable, `ReplicaSet "web-cur" has successfully progressed.`, time.Hour))
		d.Status.Conditions = []appsv1.DeploymentCondition{availableCond()}
		cur := Steady("web-cur", "nginx:2", 3, "2", time.Minute)
		old := Steady("web-old", "nginx:1", 0, "1", time.Hour)
		old.Desired, old.Max = "3", "4"
		c, o := ReplicaSet(cur), ReplicaSet(old)
		c.Annotations[deployutil.ChangeCauseAnnotation] = "v2"
		o.Annotations[deployutil.ChangeCauseAnnotation] = "v1"
		add("rollback to previous", "the deprecated rollback annotation brings revision 1's template and annotations back", state(d, o, c))
	}
	{
		d := Deployment(3)
		d.Annotations = map[string]string{deployutil.RevisionAnnotation: "1", "team": "blue"}
		Observed(d, 3, 3, 3, availableCond(), progressingCond(deployutil.ReasonNewReplicaSetAvailable, `ReplicaSet "web-cur" has successfully progressed.`, time.Hour))
		cur := ReplicaSet(Steady("web-cur", "nginx:1", 3, "1", time.Hour))
		cur.Spec.Replicas = ptr.To[int32](3)
		cur.Annotations[deployutil.MaxReplicasAnnotation] = "4"
		cur.Status.TerminatingReplicas = nil
		add("annotation copy", "a new Deployment annotation is copied to the new ReplicaSet (upstream writes it twice in one sync)", state(d, cur))
	}
	{
		d := Deployment(3)
		d.Spec.Template = Template("nginx:2")
		Observed(d, 3, 3, 3, availableCond())
		old := Steady("web-old", "nginx:1", 3, "1", time.Hour)
		old.Desired = "2"
		add("stale desired-replicas", "a stale desired-replicas annotation makes every sync a scaling event: the rollout never starts",
			state(d, ReplicaSet(old)))
	}

	out = append(out, subtle()...)
	out = append(out, everyday()...)
	return out
}

func subtle() []Scenario {
	var out []Scenario
	add := func(name, reason string, s deploysync.State) {
		out = append(out, Scenario{Name: name, Reason: reason, State: s})
	}
	rolling := func(replicas int32) *appsv1.Deployment {
		d := Deployment(replicas)
		d.Spec.Template = Template("nginx:2")
		return d
	}

	{
		d := Observed(rolling(4), 5, 1, 4, availableCond())
		nw := RS{Name: "web-new", Image: "nginx:2", Replicas: 1, Current: 1, Ready: 1, Available: 1, Revision: "2", Desired: "4", Max: "5", Age: time.Minute}
		old := RS{Name: "web-old", Image: "nginx:1", Replicas: 2, Current: 4, Ready: 4, Available: 3, Revision: "1", Desired: "4", Max: "5", Age: time.Hour}
		older := RS{Name: "web-older", Image: "nginx:0", Replicas: 2, Current: 1, Ready: 1, Available: 1, Revision: "0", Desired: "4", Max: "5", Age: 2 * time.Hour}
		add("swallowed cleanup error", "an old ReplicaSet reporting more available replicas than its spec stops the unhealthy cleanup and skips the scale-down",
			state(d, ReplicaSet(older), ReplicaSet(old), ReplicaSet(nw)))
	}
	for _, c := range []struct {
		name, reason string
		from, to     int32
		sizes        []int32
	}{
		{"proportional 3 to 4", "scaling up 3→4 over 1/1/1: the newest of the equal ReplicaSets takes the leftover", 3, 4, []int32{1, 1, 1}},
		{"proportional 3 to 2", "scaling down 3→2 over 1/1/1: the oldest of the equal ReplicaSets gives up its replica", 3, 2, []int32{1, 1, 1}},
		{"proportional 7 to 10", "scaling up 7→10 with 2 new and 3, 2 old: (3, 4, 3)", 7, 10, []int32{2, 3, 2}},
		{"proportional to zero", "scaling to 0 empties every ReplicaSet", 7, 0, []int32{2, 3, 2}},
	} {
		d := Fenceposts(rolling(c.to), intstr.FromInt32(0), intstr.FromInt32(1))
		Observed(d, c.from, c.sizes[0], c.from, availableCond())
		n := itoa(c.from)
		var rss []*appsv1.ReplicaSet
		for i, size := range c.sizes {
			image := "nginx:2"
			if i > 0 {
				image = "nginx:" + itoa(int32(10-i))
			}
			rss = append(rss, ReplicaSet(RS{Name: "web-" + itoa(int32(i)), Image: image, Replicas: size, Current: size, Ready: size, Available: size,
				Revision: itoa(int32(len(c.sizes) - i)), Desired: n, Max: n, Age: time.Duration(i+1) * time.Minute}))
		}
		add(c.name, c.reason, state(d, rss...))
	}
	{
		// 9 → 5 replicas: web-a (5, max-replicas 10) gives up its share, but
		// web-b's stale max-replicas (2) makes its own fraction +6, and the
		// leftover clamps web-a at 0: 10 replicas where 5 were asked for.
		d := Fenceposts(rolling(5), intstr.FromInt32(0), intstr.FromInt32(1))
		Observed(d, 9, 0, 9, availableCond())
		a := Steady("web-a", "nginx:1", 5, "1", 2*time.Hour)
		a.Desired, a.Max = "9", "10"
		b := Steady("web-b", "nginx:0", 4, "0", time.Hour)
		b.Desired, b.Max = "9", "2"
		add("proportional against the grain", "a stale max-replicas annotation makes one ReplicaSet grow while the Deployment shrinks; the leftover is clamped at zero",
			state(d, ReplicaSet(a), ReplicaSet(b)))
	}
	{
		d := rolling(3)
		a := ReplicaSet(Steady("web-b", "nginx:2", 1, "2", time.Minute))
		b := ReplicaSet(Steady("web-a", "nginx:2", 1, "3", time.Minute))
		old := ReplicaSet(Steady("web-old", "nginx:1", 2, "1", time.Hour))
		add("oldest equal template wins", "two ReplicaSets share the template; created in the same second, the first by name is the new one",
			state(Observed(d, 4, 2, 4, availableCond()), old, a, b))
	}
	{
		d := rolling(3)
		d.Annotations = map[string]string{deployutil.RollbackToAnnotation: "0"}
		a := ReplicaSet(Steady("web-a", "nginx:1", 3, "5", time.Hour))
		b := ReplicaSet(Steady("web-b", "nginx:0", 0, "5", 2*time.Hour))
		add("rollback creates first", "a rollback with no ReplicaSet for the current template creates one first; duplicate top revisions make revision 0 mean that revision",
			state(d, b, a))
	}
	{
		d := rolling(3)
		d.Annotations = map[string]string{deployutil.RollbackToAnnotation: "7"}
		cur := ReplicaSet(Steady("web-cur", "nginx:2", 3, "2", time.Minute))
		add("rollback revision not found", "a rollback to a revision no ReplicaSet has only warns and clears the annotation", state(Observed(d, 3, 3, 3, availableCond()), cur))
	}
	{
		d := rolling(3)
		d.Annotations = map[string]string{deployutil.RollbackToAnnotation: "2"}
		cur := ReplicaSet(Steady("web-cur", "nginx:2", 3, "2", time.Minute))
		add("rollback same template", "a rollback to the current revision warns that the template is unchanged", state(Observed(d, 3, 3, 3, availableCond()), cur))
	}
	{
		d := rolling(3)
		d.Annotations = map[string]string{deployutil.RollbackToAnnotation: "0"}
		cur := ReplicaSet(Steady("web-cur", "nginx:2", 3, "1", time.Minute))
		add("rollback no last revision", "a rollback to the previous revision when there is none warns and clears the annotation", state(Observed(d, 3, 3, 3, availableCond()), cur))
	}
	for _, c := range []struct {
		name string
		ago  time.Duration
	}{{"before", 599 * time.Second}, {"at", 600 * time.Second}, {"after", 601 * time.Second}, {"within a second", 599*time.Second + 500*time.Millisecond}} {
		d := rolling(3)
		Observed(d, 4, 1, 3, availableCond(), progressingCond(deployutil.ReasonReplicaSetUpdated, `ReplicaSet "web-new" is progressing.`, c.ago))
		nw := RS{Name: "web-new", Image: "nginx:2", Replicas: 1, Current: 1, Ready: 0, Available: 0, Revision: "2", Desired: "3", Max: "4", Age: time.Minute}
		old := Steady("web-old", "nginx:1", 3, "1", time.Hour)
		old.Desired, old.Max = "3", "4"
		add("deadline "+c.name, "a stuck rollout, its progress deadline "+c.name+" now: timed out only strictly after; otherwise requeued at the deadline",
			state(d, ReplicaSet(old), ReplicaSet(nw)))
	}
	{
		d := rolling(3)
		d.Spec.Paused = true
		Observed(d, 3, 0, 3, availableCond(), Cond(progressing, condFalse, deployutil.ReasonProgressDeadlineExceeded, `ReplicaSet "web-new" has timed out progressing.`, time.Minute))
		old := ReplicaSet(Steady("web-old", "nginx:1", 3, "1", time.Hour))
		add("paused keeps deadline exceeded", "pausing never overwrites ProgressDeadlineExceeded", state(d, old))
	}
	{
		d := rolling(3)
		Observed(d, 3, 0, 3, availableCond(), Cond(progressing, condUnknown, deployutil.ReasonDeploymentPaused, "Deployment is paused", 2*time.Hour))
		old := ReplicaSet(Steady("web-old", "nginx:1", 3, "1", time.Hour))
		add("resumed", "resuming marks Progressing Unknown/DeploymentResumed, restarting the deadline, then the rollout starts", state(d, old))
	}
	{
		d := rolling(5)
		d.Spec.Paused = true
		d.Spec.RevisionHistoryLimit = ptr.To[int32](1)
		Observed(d, 3, 0, 3, availableCond(), Cond(progressing, condUnknown, deployutil.ReasonDeploymentPaused, "Deployment is paused", time.Hour))
		cur := Steady("web-cur", "nginx:1", 3, "3", time.Hour)
		cur.Max = "4"
		h1 := ReplicaSet(Steady("web-h1", "nginx:a", 0, "1", 3*time.Hour))
		h2 := ReplicaSet(Steady("web-h2", "nginx:b", 0, "2", 2*time.Hour))
		h2.Status.ObservedGeneration = 0
		h2.Generation = 2
		add("paused scales and cleans", "a paused Deployment still scales (3→5) and deletes history past the limit, skipping unobserved ReplicaSets",
			state(d, h1, h2, ReplicaSet(cur)))
	}
	{
		d := rolling(3)
		d.Spec.MinReadySeconds = 10
		Observed(d, 3, 3, 3, availableCond())
		cur := ReplicaSet(Steady("web-cur", "nginx:2", 3, "1", time.Hour))
		add("minReadySeconds sync", "minReadySeconds is copied to the new ReplicaSet with an update, and the sync returns early", state(d, cur))
	}
	{
		d := Recreate(Deployment(2))
		d.Spec.Template = Template("nginx:2")
		old := ReplicaSet(RS{Name: "web-old", Image: "nginx:1", Revision: "1", Desired: "2", Max: "2", Age: time.Hour})
		stranger := ReplicaSet(RS{Name: "web-stranger", Image: "nginx:1", Owner: "foreign"})
		s := state(d, old, stranger)
		s.Pods = map[types.UID][]*corev1.Pod{stranger.UID: {Pod(stranger, "p", corev1.PodRunning, false)}}
		add("recreate ignores foreign pods", "pods of ReplicaSets the Deployment does not own never block a Recreate", s)
	}
	{
		d := Recreate(Deployment(2))
		d.Spec.Template = Template("nginx:2")
		Observed(d, 2, 0, 2, availableCond())
		old := ReplicaSet(Steady("web-old", "nginx:1", 2, "1", time.Hour))
		add("recreate scales old down", "Recreate first scales every old ReplicaSet to zero", state(d, old))
	}
	{
		d := rolling(3)
		Observed(d, 3, 0, 3, availableCond())
		old := ReplicaSet(Steady("web-old", "nginx:1", 3, "1", time.Hour))
		old.Status.ObservedGeneration = 0
		old.Status.TerminatingReplicas = nil
		other := ReplicaSet(Steady("web-other", "nginx:0", 0, "0", 2*time.Hour))
		other.Status.TerminatingReplicas = nil
		s := Scenario{Name: "terminating replicas unknown", Reason: "a synced ReplicaSet without terminatingReplicas makes the sum unknown (nil)", State: state(d, other, old)}
		out = append(out, s)
		s2 := s
		s2.Name, s2.Reason, s2.NoTerminatingReplicas = "terminating replicas gate off", "with the feature gate off, terminatingReplicas is not reported", true
		out = append(out, s2)
	}
	{
		d := Deployment(3)
		d.Spec.Selector = &metav1.LabelSelector{}
		d.Generation = 4
		add("selecting all", "an empty selector gets a warning and an observedGeneration bump, nothing else", state(d))
	}
	{
		d := Deployment(5)
		Observed(d, 3, 3, 3, availableCond())
		orphan := ReplicaSet(Steady("web-orphan", "nginx:1", 3, "1", time.Hour))
		orphan.OwnerReferences = nil
		stray := ReplicaSet(Steady("web-stray", "nginx:0", 0, "0", 2*time.Hour))
		stray.Labels = map[string]string{"app": "elsewhere"}
		foreign := ReplicaSet(RS{Name: "web-foreign", Image: "nginx:1", Owner: "foreign", Age: time.Hour})
		add("adopt and release", "an orphan with matching labels is adopted and, being the new ReplicaSet of a scaled Deployment, scaled in the same sync; a stray owned one is released, a foreign one ignored",
			state(d, stray, foreign, orphan))
	}
	{
		d := rolling(3)
		d.DeletionTimestamp = ptr.To(metav1.NewTime(Now.Add(-time.Minute)))
		d.Spec.MinReadySeconds = 5
		orphan := ReplicaSet(Steady("web-orphan", "nginx:1", 1, "1", time.Hour))
		orphan.OwnerReferences = nil
		cur := ReplicaSet(Steady("web-cur", "nginx:2", 3, "2", time.Minute))
		add("deleting", "a Deployment being deleted adopts nothing, scales nothing, but still syncs its new ReplicaSet and status",
			state(d, orphan, cur))
	}
	{
		d := rolling(3)
		d.Status.CollisionCount = ptr.To[int32](1)
		hash := deployutil.ComputeHash(&d.Spec.Template, d.Status.CollisionCount)
		released := ReplicaSet(RS{Name: "web-" + hash, Image: "nginx:2", Replicas: 1, Current: 1, Revision: "1", Labels: map[string]string{"app": "moved"}})
		add("released comes back", "a ReplicaSet released for its labels carries the new ReplicaSet's name and template: the create's AlreadyExists is looked up in a cache that has the release, no controller, collisionCount goes up",
			state(d, released))
		lag := out[len(out)-1]
		lag.Name, lag.Reason, lag.LaggingCache = "released comes back with a lagging cache",
			"the same with a cache that has not delivered the release yet: upstream takes the ReplicaSet as the new one, and its later writes are based on the version before the release", true
		out = append(out, lag)
	}
	{
		d := rolling(3)
		hash := deployutil.ComputeHash(&d.Spec.Template, d.Status.CollisionCount)
		adopted := ReplicaSet(RS{Name: "web-" + hash, Image: "nginx:9", Replicas: 1, Current: 1, Ready: 1, Available: 1, Revision: "1", Owner: "orphan", Age: time.Hour})
		add("collision on an adopted ReplicaSet", "an orphan whose labels match is adopted in this sync, but it has another template and the new ReplicaSet's name: the create finds it as the cache had it (no controller) and collisionCount goes up",
			state(d, adopted))
	}
	{
		d := rolling(3)
		d.Status.CollisionCount = ptr.To[int32](3)
		hash := deployutil.ComputeHash(&d.Spec.Template, d.Status.CollisionCount)
		foreign := ReplicaSet(RS{Name: "web-" + hash, Image: "nginx:1", Replicas: 2, Current: 2, Owner: "foreign", Age: time.Hour})
		add("collision on another Deployment's ReplicaSet", "the new ReplicaSet's name (collisionCount 3) belongs to another Deployment's ReplicaSet with the same template: a collision, collisionCount 3→4",
			state(d, foreign))
	}
	return out
}

func everyday() []Scenario {
	var out []Scenario
	add := func(name, reason string, s deploysync.State) {
		out = append(out, Scenario{Name: name, Reason: reason, State: s})
	}
	{
		d := Deployment(10)
		d.Spec.Template = Template("nginx:2")
		Observed(d, 12, 5, 9, availableCond(), progressingCond(deployutil.ReasonReplicaSetUpdated, `ReplicaSet "web-new" is progressing.`, time.Minute))
		nw := RS{Name: "web-new", Image: "nginx:2", Replicas: 5, Current: 5, Ready: 4, Available: 4, Revision: "2", Desired: "10", Max: "13", Age: time.Minute}
		old := RS{Name: "web-old", Image: "nginx:1", Replicas: 7, Current: 7, Ready: 5, Available: 5, Revision: "1", Desired: "10", Max: "13", Age: time.Hour}
		add("rolling mid-rollout", "mid-rollout: old ReplicaSet's unhealthy replicas go first", state(d, ReplicaSet(old), ReplicaSet(nw)))
	}
	{
		d := Deployment(3)
		Observed(d, 3, 3, 3, availableCond(), progressingCond(deployutil.ReasonReplicaSetUpdated, `ReplicaSet "web-cur" is progressing.`, time.Minute))
		d.Annotations = map[string]string{deployutil.RevisionAnnotation: "2"}
		cur := Steady("web-cur", "nginx:1", 3, "2", time.Minute)
		cur.Max = "4"
		old := ReplicaSet(Steady("web-old", "nginx:0", 0, "1", time.Hour))
		add("rolling completes", "the last old replica is gone and all are available: Progressing becomes NewReplicaSetAvailable", state(d, old, ReplicaSet(cur)))
	}
	{
		d := Deployment(3)
		d.Spec.RevisionHistoryLimit = ptr.To[int32](2)
		d.Annotations = map[string]string{deployutil.RevisionAnnotation: "5"}
		Observed(d, 3, 3, 3, availableCond(), progressingCond(deployutil.ReasonNewReplicaSetAvailable, `ReplicaSet "web-5" has successfully progressed.`, time.Minute))
		cur := Steady("web-5", "nginx:1", 3, "5", time.Minute)
		cur.Max = "4"
		rss := []*appsv1.ReplicaSet{ReplicaSet(cur)}
		for i := int32(1); i <= 4; i++ {
			rss = append(rss, ReplicaSet(Steady("web-"+itoa(i), "nginx:0."+itoa(i), 0, itoa(i), time.Duration(10-i)*time.Hour)))
		}
		add("history cleanup", "a complete rollout deletes the oldest ReplicaSets beyond revisionHistoryLimit 2", state(d, rss...))
	}
	{
		d := Deployment(3)
		d.Spec.Template = Template("nginx:1")
		Observed(d, 3, 0, 3, availableCond())
		again := Steady("web-again", "nginx:1", 0, "1", 2*time.Hour)
		again.Desired, again.Max = "3", "4"
		a := ReplicaSet(again)
		a.Annotations[deployutil.RevisionHistoryAnnotation] = ""
		cur := Steady("web-cur", "nginx:2", 3, "3", time.Hour)
		cur.Max = "4"
		add("revision history", "a ReplicaSet becoming the new one again gets the next revision and remembers its old one", state(d, a, ReplicaSet(cur)))
	}
	{
		d := Fenceposts(Deployment(4), intstr.FromInt32(0), intstr.FromInt32(1))
		d.Spec.Template = Template("nginx:2")
		Observed(d, 4, 0, 4, availableCond())
		old := Steady("web-old", "nginx:1", 4, "1", time.Hour)
		old.Max = "4"
		add("maxSurge 0", "with maxSurge 0 the old ReplicaSet shrinks first and the new one is created empty", state(d, ReplicaSet(old)))
	}
	{
		d := Fenceposts(Deployment(4), intstr.FromInt32(1), intstr.FromInt32(0))
		d.Spec.Template = Template("nginx:2")
		Observed(d, 4, 0, 4, availableCond())
		old := Steady("web-old", "nginx:1", 4, "1", time.Hour)
		old.Max = "5"
		add("maxUnavailable 0", "with maxUnavailable 0 the new ReplicaSet grows by one before anything shrinks", state(d, ReplicaSet(old)))
	}
	{
		d := Deployment(3)
		d.Spec.Template = Template("nginx:2")
		Observed(d, 3, 1, 3, availableCond())
		nw := RS{Name: "web-new", Image: "nginx:2", Replicas: 1, Current: 1, Revision: "2", Desired: "3", Max: "4", Age: time.Minute}
		n := ReplicaSet(nw)
		n.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: condTrue, Reason: "FailedCreate", Message: "quota exceeded", LastTransitionTime: metav1.NewTime(Now.Add(-time.Minute))}}
		old := Steady("web-old", "nginx:1", 3, "1", time.Hour)
		old.Max = "4"
		add("replica failure", "a ReplicaFailure condition of the new ReplicaSet is copied to the Deployment", state(d, ReplicaSet(old), n))
	}
	return out
}
