package simulate_test

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/simulate"
)

// start is the simulated time of step 0 in every scenario.
var start = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// deployment returns web in default: nginx:1.27, RollingUpdate 25%/25%
// unless edited, the other fields left to SetDefaults.
func deployment(replicas int32, edit ...func(*appsv1.Deployment)) *appsv1.Deployment {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	}
	for _, e := range edit {
		e(d)
	}
	return d
}

func fenceposts(surge, unavailable intstr.IntOrString) func(*appsv1.Deployment) {
	return func(d *appsv1.Deployment) {
		d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}}
	}
}

func recreate(d *appsv1.Deployment) {
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
}

func steady(t testing.TB, d *appsv1.Deployment) deploysync.State {
	t.Helper()
	s, err := simulate.Steady(d, start)
	if err != nil {
		t.Fatalf("Steady: %v", err)
	}
	return s
}

// scenario is a golden run.
type scenario struct {
	name   string
	reason string
	state  func(t testing.TB) deploysync.State
	opts   []simulate.Option
	want   simulate.Outcome
}

// refusedMessage is the apiserver's error for a pod a validating webhook
// denies, as it words it.
const refusedMessage = `admission webhook "images.example.com" denied the request: image nginx:refused is not allowed`

// quotaMessage is the apiserver's error for a ReplicaSet create a full
// ResourceQuota on count/replicasets.apps refuses, as it words it.
const quotaMessage = `replicasets.apps "web-7549484477" is forbidden: exceeded quota: replicasets, requested: count/replicasets.apps=1, used: count/replicasets.apps=1, limited: count/replicasets.apps=1`

// upgrade is the image change every rollout scenario starts with.
var upgrade = simulate.SetImage(0, "web", "nginx:1.28")

func scenarios() []scenario {
	return []scenario{
		{
			name:   "rolling 25-25 10 replicas",
			reason: "the default strategy: at most 13 pods, at least 8 available, the new ReplicaSet grows as old pods become available",
			state:  func(t testing.TB) deploysync.State { return steady(t, deployment(10)) },
			opts:   []simulate.Option{simulate.WithChanges(upgrade)},
			want:   simulate.Complete,
		},
		{
			name:   "rolling maxSurge 0",
			reason: "maxSurge 0: old pods go first, never more than 10 pods; at least 8 available",
			state: func(t testing.TB) deploysync.State {
				return steady(t, deployment(10, fenceposts(intstr.FromInt32(0), intstr.FromString("25%"))))
			},
			opts: []simulate.Option{simulate.WithChanges(upgrade)},
			want: simulate.Complete,
		},
		{
			name:   "rolling maxUnavailable 0",
			reason: "maxUnavailable 0: all 10 stay available; new pods surge by 3 and old ones go only once new ones are available",
			state: func(t testing.TB) deploysync.State {
				return steady(t, deployment(10, fenceposts(intstr.FromString("25%"), intstr.FromInt32(0))))
			},
			opts: []simulate.Option{simulate.WithChanges(upgrade)},
			want: simulate.Complete,
		},
		{
			name:   "recreate",
			reason: "Recreate scales the old ReplicaSet to 0, waits until its terminating pods are gone, then creates the new one at full size",
			state:  func(t testing.TB) deploysync.State { return steady(t, deployment(4, recreate)) },
			opts:   []simulate.Option{simulate.WithChanges(upgrade)},
			want:   simulate.Complete,
		},
		{
			name:   "scale up mid-rollout",
			reason: "spec.replicas 10→20 at 3s while two ReplicaSets run: both grow in proportion (scaling event), then the rollout goes on",
			state:  func(t testing.TB) deploysync.State { return steady(t, deployment(10)) },
			opts:   []simulate.Option{simulate.WithChanges(upgrade, simulate.SetReplicas(3*time.Second, 20))},
			want:   simulate.Complete,
		},
		{
			name:   "scale down mid-rollout",
			reason: "spec.replicas 10→4 at 3s: both ReplicaSets shrink in proportion to replicas+maxSurge (6), then the rollout goes on",
			state:  func(t testing.TB) deploysync.State { return steady(t, deployment(10)) },
			opts:   []simulate.Option{simulate.WithChanges(upgrade, simulate.SetReplicas(3*time.Second, 4))},
			want:   simulate.Complete,
		},
		{
			name:   "pause and resume",
			reason: "paused at 1s the rollout stops where it is (Progressing Unknown/DeploymentPaused); resumed at 30s it restarts the deadline and completes",
			state:  func(t testing.TB) deploysync.State { return steady(t, deployment(10)) },
			opts: []simulate.Option{simulate.WithChanges(upgrade, simulate.Pause(time.Second),
				simulate.Resume(30*time.Second))},
			want: simulate.Complete,
		},
		{
			name:   "rollback through the annotation",
			reason: "nginx:bad never becomes ready; at 20s the deprecated rollback annotation brings revision 1's template back: its ReplicaSet becomes revision 3 and scales up, the broken one down",
			state:  func(t testing.TB) deploysync.State { return steady(t, deployment(10)) },
			opts: []simulate.Option{simulate.WithFailingImage("nginx:bad"), simulate.WithChanges(
				simulate.SetImage(0, "web", "nginx:bad"), simulate.RollbackTo(20*time.Second, 0))},
			want: simulate.Complete,
		},
		{
			name:   "never ready deadline exceeded",
			reason: "nginx:bad never becomes ready: the rollout stalls at maxSurge/maxUnavailable and, 600s after the last progress, Progressing becomes False/ProgressDeadlineExceeded",
			state:  func(t testing.TB) deploysync.State { return steady(t, deployment(10)) },
			opts: []simulate.Option{simulate.WithFailingImage("nginx:bad"), simulate.WithChanges(
				simulate.SetImage(0, "web", "nginx:bad"))},
			want: simulate.DeadlineExceeded,
		},
		{
			name:   "rolling 1000 replicas",
			reason: "a large rollout: 250 pods of surge and of unavailability per wave",
			state:  func(t testing.TB) deploysync.State { return steady(t, deployment(1000)) },
			opts:   []simulate.Option{simulate.WithChanges(upgrade)},
			want:   simulate.Complete,
		},
		{
			name:   "min ready seconds",
			reason: "minReadySeconds 10: a pod counts as available only after being ready for more than 10s, which paces the rollout",
			state: func(t testing.TB) deploysync.State {
				return steady(t, deployment(4, func(d *appsv1.Deployment) { d.Spec.MinReadySeconds = 10 }))
			},
			opts: []simulate.Option{simulate.WithChanges(upgrade)},
			want: simulate.Complete,
		},
		{
			name:   "new deployment",
			reason: "a Deployment with no ReplicaSet yet gets its first one at full size; there is no old ReplicaSet to scale down",
			state: func(t testing.TB) deploysync.State {
				d := deployutil.SetDefaults(deployment(5))
				d.UID, d.Generation = "web-uid", 1
				return deploysync.State{Deployment: d, Now: start}
			},
			want: simulate.Complete,
		},
		{
			name: "refused pods then fixed",
			reason: "an admission webhook refuses nginx:refused pods: the new ReplicaSet gets ReplicaFailure and no pod, yet the rollout moves as if its pods existed (old 10→8, new 3→5: maxSurge counts ReplicaSet sizes) and stalls at 8 available; " +
				"at 10s nginx:1.28 replaces it: the refused ReplicaSet, 5 unavailable, goes to 0 at once and the rollout completes",
			state: func(t testing.TB) deploysync.State { return steady(t, deployment(10)) },
			opts: []simulate.Option{simulate.WithRefusedImage("nginx:refused", refusedMessage), simulate.WithChanges(
				simulate.SetImage(0, "web", "nginx:refused"), simulate.SetImage(10*time.Second, "web", "nginx:1.28"))},
			want: simulate.Complete,
		},
		{
			name: "refused pods then allowed",
			reason: "an admission webhook refuses nginx:refused pods until 7s: the new ReplicaSet gets ReplicaFailure and no pod, the rollout stalls at 8 available; " +
				"the lift is no event: the ReplicaSet controller's 11 failed syncs (the create's and the scale's, each with its own status write, then the rate-limited retries, each waiting its backoff after a 4ms sync) back off to the retry at 10.252s, which creates the pods",
			state: func(t testing.TB) deploysync.State { return steady(t, deployment(10)) },
			opts: []simulate.Option{simulate.WithRefusedImageUntil("nginx:refused", refusedMessage, 7*time.Second), simulate.WithChanges(
				simulate.SetImage(0, "web", "nginx:refused"))},
			want: simulate.Complete,
		},
		{
			name: "replica sets refused then allowed",
			reason: "a full quota on ReplicaSets refuses the new one: Progressing False/ReplicaSetCreateError, and the controller retries with backoff (5ms doubled per failure); " +
				"the quota is raised at 7s, which is no event: the rollout starts at the next retry, 10.24s after the first failure",
			state: func(t testing.TB) deploysync.State { return steady(t, deployment(10)) },
			opts:  []simulate.Option{simulate.WithRefusedReplicaSets(7*time.Second, quotaMessage), simulate.WithChanges(upgrade)},
			want:  simulate.Complete,
		},
		{
			name: "replica sets refused past the retries",
			reason: "the quota stays full for 3 minutes: the 16th failure, at 163.84s, would wait 163.84s more, but the controller drops the Deployment after 15 retries; " +
				"raised at 180s, nothing happens, at 327.68s neither, until the Deployment changes (an annotation at 340s), and the rollout then runs",
			state: func(t testing.TB) deploysync.State { return steady(t, deployment(10)) },
			opts: []simulate.Option{simulate.WithRefusedReplicaSets(180*time.Second, quotaMessage),
				simulate.WithChanges(upgrade, simulate.Annotate(340*time.Second, "example.com/retry", "1"))},
			want: simulate.Complete,
		},
		{
			name: "pod quota with maxSurge 0",
			reason: "a quota of 4 pods on 4 replicas, rolled with maxSurge 0 and maxUnavailable 1 (diagnose's way out of the maxSurge deadlock): each new pod is refused until the old pod deleted for it is gone, " +
				"since the quota counts terminating pods, and comes at the ReplicaSet controller's next retry",
			state: func(t testing.TB) deploysync.State {
				return steady(t, deployment(4, fenceposts(intstr.FromInt32(0), intstr.FromInt32(1))))
			},
			opts: []simulate.Option{simulate.WithPodQuota("pods", 4), simulate.WithChanges(upgrade)},
			want: simulate.Complete,
		},
		{
			name:   "flaky pods seed 7",
			reason: "with a 20% failure rate some new pods never become ready: the rollout cannot complete and times out; the seed fixes which pods fail",
			state:  func(t testing.TB) deploysync.State { return steady(t, deployment(10)) },
			opts:   []simulate.Option{simulate.WithFailureRate(0.2), simulate.WithSeed(7), simulate.WithChanges(upgrade)},
			want:   simulate.DeadlineExceeded,
		},
	}
}
