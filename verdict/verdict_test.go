package verdict_test

import (
	"math"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	sc "github.com/deploysync/deploysync/internal/testing/scenarios"
	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/verdict"
)

// done is a finished rollout of 4 replicas: counts at 4, Available and
// Progressing=NewReplicaSetAvailable, the new ReplicaSet ready.
func done() (*appsv1.Deployment, []*appsv1.ReplicaSet) {
	d := sc.Observed(sc.Deployment(4), 4, 4, 4,
		sc.Cond(appsv1.DeploymentAvailable, corev1.ConditionTrue, "MinimumReplicasAvailable", "", time.Minute),
		sc.Cond(appsv1.DeploymentProgressing, corev1.ConditionTrue, "NewReplicaSetAvailable", "", time.Minute))
	rs := sc.ReplicaSet(sc.Steady("web-new", "nginx:1", 4, "2", time.Minute))
	old := sc.ReplicaSet(sc.Steady("web-old", "nginx:0", 0, "1", time.Hour))
	return d, []*appsv1.ReplicaSet{rs, old}
}

type row struct {
	name   string
	reason string
	edit   func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet)
	pods   func(rss []*appsv1.ReplicaSet) map[types.UID][]*corev1.Pod
	tool   verdict.Tool
	want   verdict.Verdict
}

func TestVerdicts(t *testing.T) {
	const ns = "default/web"
	rows := []row{
		{name: "kubectl done", reason: "kubectl's last rule: everything updated and available", tool: verdict.Kubectl,
			want: verdict.Verdict{Done: true, Message: "deployment \"web\" successfully rolled out\n"}},
		{name: "kubectl deadline", reason: "kubectl's rule 3 is an error, so a failed verdict with its text",
			edit: func(d *appsv1.Deployment, _ []*appsv1.ReplicaSet) {
				d.Status.Conditions[1].Reason = "ProgressDeadlineExceeded"
			},
			tool: verdict.Kubectl, want: verdict.Verdict{Failed: true, Message: `deployment "web" exceeded its progress deadline`}},

		{name: "kstatus current", reason: "kstatus's last rule counts status.replicas", tool: verdict.Kstatus,
			want: verdict.Verdict{Done: true, Status: "Current", Message: "Deployment is available. Replicas: 4"}},
		{name: "kstatus terminating", reason: "a deletion timestamp comes before every other rule",
			edit: func(d *appsv1.Deployment, _ []*appsv1.ReplicaSet) {
				d.DeletionTimestamp = ptr.To(metav1.NewTime(sc.Now))
				d.Generation = 5
			},
			tool: verdict.Kstatus, want: verdict.Verdict{Status: "Terminating", Message: "Resource scheduled for deletion"}},
		{name: "kstatus generation", reason: "both generations set and different", edit: func(d *appsv1.Deployment, _ []*appsv1.ReplicaSet) { d.Generation = 3 },
			tool: verdict.Kstatus, want: verdict.Verdict{Status: "InProgress", Message: "Deployment generation is 3, but latest observed generation is 1"}},
		{name: "kstatus generation unobserved", reason: "observedGeneration 0 is absent from the JSON kstatus reads, so the generation rule does not apply",
			edit: func(d *appsv1.Deployment, _ []*appsv1.ReplicaSet) { d.Generation, d.Status.ObservedGeneration = 3, 0 },
			tool: verdict.Kstatus, want: verdict.Verdict{Done: true, Status: "Current", Message: "Deployment is available. Replicas: 4"}},
		{name: "kstatus stalled", reason: "a Stalled=True condition of any resource is Failed with its message",
			edit: func(d *appsv1.Deployment, _ []*appsv1.ReplicaSet) {
				d.Status.Conditions = append(d.Status.Conditions, appsv1.DeploymentCondition{Type: "Stalled", Status: corev1.ConditionTrue, Message: "stuck"})
			},
			tool: verdict.Kstatus, want: verdict.Verdict{Failed: true, Status: "Failed", Message: "stuck"}},
		{name: "kstatus deadline under any status", reason: "kstatus does not read the Progressing condition's status for the deadline",
			edit: func(d *appsv1.Deployment, _ []*appsv1.ReplicaSet) {
				d.Status.Conditions[1].Reason, d.Status.Conditions[1].Status = "ProgressDeadlineExceeded", corev1.ConditionTrue
			},
			tool: verdict.Kstatus, want: verdict.Verdict{Failed: true, Status: "Failed", Message: "Progress deadline exceeded"}},
		{name: "kstatus ready", reason: "readyReplicas is the last count kstatus checks",
			edit: func(d *appsv1.Deployment, _ []*appsv1.ReplicaSet) { d.Status.ReadyReplicas = 2 },
			tool: verdict.Kstatus, want: verdict.Verdict{Status: "InProgress", Message: "Ready: 2/4"}},
		{name: "kstatus surge", reason: "more replicas than wanted: pending termination, counted from spec.replicas",
			edit: func(d *appsv1.Deployment, _ []*appsv1.ReplicaSet) { d.Status.Replicas = 6 },
			tool: verdict.Kstatus, want: verdict.Verdict{Status: "InProgress", Message: "Pending termination: 2"}},
		{name: "kstatus no deadline", reason: "progressDeadlineSeconds 2³¹−1 stands for no deadline: the Progressing condition is not needed",
			edit: func(d *appsv1.Deployment, _ []*appsv1.ReplicaSet) {
				d.Spec.ProgressDeadlineSeconds = ptr.To[int32](math.MaxInt32)
				d.Status.Conditions = d.Status.Conditions[:1]
			},
			tool: verdict.Kstatus, want: verdict.Verdict{Done: true, Status: "Current", Message: "Deployment is available. Replicas: 4"}},
		{name: "kstatus paused", reason: "a paused Deployment's Progressing reason is DeploymentPaused, never NewReplicaSetAvailable",
			edit: func(d *appsv1.Deployment, _ []*appsv1.ReplicaSet) {
				d.Spec.Paused = true
				d.Status.Conditions[1].Reason, d.Status.Conditions[1].Status = "DeploymentPaused", corev1.ConditionUnknown
			},
			tool: verdict.Kstatus, want: verdict.Verdict{Status: "InProgress", Message: "ReplicaSet not Available"}},

		{name: "helm3 ready", reason: "new ReplicaSet observed, 4 ready of 4 − 1 expected", tool: verdict.Helm3, want: verdict.Verdict{Done: true}},
		{name: "helm3 expected pods", reason: "25% of 4 is 1 unavailable allowed, so 3 expected; 2 are ready",
			edit: func(_ *appsv1.Deployment, rss []*appsv1.ReplicaSet) { rss[0].Status.ReadyReplicas = 2 },
			tool: verdict.Helm3, want: verdict.Verdict{Message: "Deployment is not ready: " + ns + ". 2 out of 3 expected pods are ready"}},
		{name: "helm3 recreate", reason: "Recreate allows no unavailable pod: all 4 expected",
			edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
				sc.Recreate(d)
				rss[0].Status.ReadyReplicas = 3
			},
			tool: verdict.Helm3, want: verdict.Verdict{Message: "Deployment is not ready: " + ns + ". 3 out of 4 expected pods are ready"}},
		{name: "helm3 unavailable rounds down", reason: "10% of 4 is 0 unavailable (rounded down; surge rounds up to 1): all 4 expected",
			edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
				sc.Fenceposts(d, intstr.FromString("10%"), intstr.FromString("10%"))
				rss[0].Status.ReadyReplicas = 3
			},
			tool: verdict.Helm3, want: verdict.Verdict{Message: "Deployment is not ready: " + ns + ". 3 out of 4 expected pods are ready"}},
		{name: "helm3 both fenceposts resolve to 0", reason: "maxSurge 0% and maxUnavailable 10% of 4 both resolve to 0, which makes maxUnavailable 1: 3 expected",
			edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
				sc.Fenceposts(d, intstr.FromString("0%"), intstr.FromString("10%"))
				rss[0].Status.ReadyReplicas = 3
			},
			tool: verdict.Helm3, want: verdict.Verdict{Done: true}},
		{name: "helm3 reads ready, not available", reason: "minReadySeconds is not waited for: ready pods count",
			edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
				d.Status.AvailableReplicas, rss[0].Status.AvailableReplicas = 0, 0
			},
			tool: verdict.Helm3, want: verdict.Verdict{Done: true}},
		{name: "helm3 rs generation", reason: "the new ReplicaSet's generation is checked first",
			edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) { rss[0].Generation, d.Generation = 2, 2 },
			tool: verdict.Helm3, want: verdict.Verdict{Message: "ReplicaSet is not ready: default/web-new. observedGeneration (1) does not match spec generation (2)."}},
		{name: "helm3 oldest matching", reason: "two ReplicaSets with the template: the oldest is the new one",
			edit: func(_ *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
				rss[1].Spec.Template = *rss[0].Spec.Template.DeepCopy() // web-old now matches and is older
				rss[1].Status.ObservedGeneration = 0
			},
			tool: verdict.Helm3, want: verdict.Verdict{Message: "ReplicaSet is not ready: default/web-old. observedGeneration (0) does not match spec generation (1)."}},
		{name: "helm3 foreign", reason: "a ReplicaSet another Deployment controls is not ours, however equal its template",
			edit: func(_ *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
				rss[0].OwnerReferences[0].UID = "other"
			},
			tool: verdict.Helm3, want: verdict.Verdict{Reasons: []string{"no ReplicaSet controlled by the Deployment has its pod template yet"}}},
		{name: "helm3 paused", reason: "Client.Wait builds the checker with PausedAsReady",
			edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
				d.Spec.Paused, rss[0].Status.ReadyReplicas = true, 0
			},
			tool: verdict.Helm3, want: verdict.Verdict{Done: true}},

		{name: "helm4 paused", reason: "Helm 4 leaves paused Deployments out of its wait",
			edit: func(d *appsv1.Deployment, _ []*appsv1.ReplicaSet) { d.Spec.Paused, d.Status.UpdatedReplicas = true, 0 },
			tool: verdict.Helm4, want: verdict.Verdict{Done: true}},
		{name: "helm4 waiting", reason: "otherwise kstatus, wrapped in Helm 4's error",
			edit: func(d *appsv1.Deployment, _ []*appsv1.ReplicaSet) { d.Status.UpdatedReplicas = 1 },
			tool: verdict.Helm4, want: verdict.Verdict{Status: "InProgress", Message: "resource Deployment/default/web not ready. status: InProgress, message: Updated: 1/4"}},

		{name: "argocd healthy", reason: "Healthy has no message", tool: verdict.ArgoCD, want: verdict.Verdict{Done: true, Status: "Healthy"}},
		{name: "argocd hook finalizer", reason: "a hook being deleted keeps its ordinary health",
			edit: func(d *appsv1.Deployment, _ []*appsv1.ReplicaSet) {
				d.DeletionTimestamp = ptr.To(metav1.NewTime(sc.Now))
				d.Finalizers = []string{"argocd.argoproj.io/hook-finalizer"}
			},
			tool: verdict.ArgoCD, want: verdict.Verdict{Done: true, Status: "Healthy"}},
		{name: "argocd first progressing", reason: "only the first Progressing condition is read",
			edit: func(d *appsv1.Deployment, _ []*appsv1.ReplicaSet) {
				d.Status.Conditions = append(d.Status.Conditions, appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Reason: "ProgressDeadlineExceeded"})
			},
			tool: verdict.ArgoCD, want: verdict.Verdict{Done: true, Status: "Healthy"}},
		{name: "argocd paused", reason: "paused comes before every count",
			edit: func(d *appsv1.Deployment, _ []*appsv1.ReplicaSet) { d.Spec.Paused, d.Generation = true, 9 },
			tool: verdict.ArgoCD, want: verdict.Verdict{Status: "Suspended", Message: "Deployment is paused"}},
		{name: "argocd observed ahead", reason: "an observedGeneration above generation passes Argo CD's check (it tests generation ≤ observed)",
			edit: func(d *appsv1.Deployment, _ []*appsv1.ReplicaSet) { d.Status.ObservedGeneration = 7 },
			tool: verdict.ArgoCD, want: verdict.Verdict{Done: true, Status: "Healthy"}},

		{name: "strict done", reason: "nothing left", tool: verdict.StrictTool,
			want: verdict.Verdict{Done: true, Message: `deployment "web" rolled out: generation 1 observed, 4 replicas updated and available, no old or terminating pods`}},
		{name: "strict every reason", reason: "each unmet condition is one reason, in the documented order",
			edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
				d.Generation = 2
				d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.AvailableReplicas = 6, 5, 3
				d.Status.TerminatingReplicas = ptr.To[int32](1)
				rss[1].Spec.Replicas = ptr.To[int32](1)
			},
			pods: func(rss []*appsv1.ReplicaSet) map[types.UID][]*corev1.Pod {
				return map[types.UID][]*corev1.Pod{rss[1].UID: {
					sc.Pod(rss[1], "web-old-b", corev1.PodRunning, true),
					sc.Pod(rss[1], "web-old-a", corev1.PodRunning, true),
					sc.Pod(rss[1], "web-old-done", corev1.PodSucceeded, true), // finished: not shutting down
				}}
			},
			tool: verdict.StrictTool, want: verdict.Verdict{
				Message: "status.observedGeneration 1 is not metadata.generation 2: the controller has not acted on the latest spec",
				Reasons: []string{
					"status.observedGeneration 1 is not metadata.generation 2: the controller has not acted on the latest spec",
					"3 of 4 replicas are available",
					"5 updated replicas for 4 wanted: the new ReplicaSet still has 1 surge replicas",
					"1 replicas of old ReplicaSets are still counted (status.replicas 6, updatedReplicas 5)",
					"old ReplicaSet web-old still has spec.replicas 1 and status.replicas 0",
					"status.terminatingReplicas is 1: old pods are still shutting down",
					"2 pods have a deletion timestamp and are still shutting down: web-old-a, web-old-b",
				}}},
		{name: "strict no new ReplicaSet", reason: "counts can claim done before the new ReplicaSet is listed",
			edit: func(_ *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
				rss[0].Spec.Template.Spec.Containers[0].Image = "nginx:2"
			},
			tool: verdict.StrictTool, want: verdict.Verdict{
				Message: "no ReplicaSet of the Deployment has its pod template: the new ReplicaSet is not created yet",
				Reasons: []string{
					"no ReplicaSet of the Deployment has its pod template: the new ReplicaSet is not created yet",
					"old ReplicaSet web-new still has spec.replicas 4 and status.replicas 4",
				}}},
		{name: "strict unreported terminating", reason: "a nil terminatingReplicas is not a reason by itself",
			edit: func(d *appsv1.Deployment, _ []*appsv1.ReplicaSet) { d.Status.TerminatingReplicas = nil },
			tool: verdict.StrictTool,
			want: verdict.Verdict{Done: true, Message: `deployment "web" rolled out: generation 1 observed, 4 replicas updated and available, no old or terminating pods`}},
		{name: "strict refused status", reason: "rule 7: availableReplicas above replicas passes rules 3–6 but not upstream's DeploymentComplete",
			edit: func(d *appsv1.Deployment, _ []*appsv1.ReplicaSet) { d.Status.AvailableReplicas = 5 },
			tool: verdict.StrictTool, want: verdict.Verdict{
				Message: "status.replicas 4 and availableReplicas 5 are not spec.replicas 4: the status is not complete",
				Reasons: []string{"status.replicas 4 and availableReplicas 5 are not spec.replicas 4: the status is not complete"}}},
		{name: "strict status lags the new ReplicaSet", reason: "rule 8: the status is complete, the new ReplicaSet was scaled since",
			edit: func(_ *appsv1.Deployment, rss []*appsv1.ReplicaSet) { rss[0].Spec.Replicas = ptr.To[int32](5) },
			tool: verdict.StrictTool, want: verdict.Verdict{
				Message: "the new ReplicaSet web-new has spec.replicas 5, status.replicas 4 and availableReplicas 4 for 4 wanted: the Deployment's status lags it",
				Reasons: []string{"the new ReplicaSet web-new has spec.replicas 5, status.replicas 4 and availableReplicas 4 for 4 wanted: the Deployment's status lags it"}}},
		{name: "strict second ReplicaSet with the template", reason: "rule 9: the younger ReplicaSet with the template is old, as the controller scales it away",
			edit: func(_ *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
				rss[1].Spec.Template = rss[0].Spec.Template
				rss[1].CreationTimestamp = metav1.NewTime(sc.Now)
				rss[1].Spec.Replicas = ptr.To[int32](1)
			},
			tool: verdict.StrictTool, want: verdict.Verdict{
				Message: "old ReplicaSet web-old still has spec.replicas 1 and status.replicas 0",
				Reasons: []string{"old ReplicaSet web-old still has spec.replicas 1 and status.replicas 0"}}},
		{name: "strict ReplicaSet reports terminating", reason: "rule 10: the Deployment's status has no terminatingReplicas, its ReplicaSet reports some",
			edit: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
				d.Status.TerminatingReplicas = nil
				rss[1].Status.TerminatingReplicas = ptr.To[int32](2)
			},
			tool: verdict.StrictTool, want: verdict.Verdict{
				Message: "ReplicaSet web-old reports status.terminatingReplicas 2: its pods are still shutting down",
				Reasons: []string{"ReplicaSet web-old reports status.terminatingReplicas 2: its pods are still shutting down"}}},
		{name: "strict ReplicaSets of others", reason: "only ReplicaSets the Deployment controls count",
			edit: func(_ *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
				rss[1].OwnerReferences = nil
				rss[1].Spec.Replicas = ptr.To[int32](2)
			},
			tool: verdict.StrictTool,
			want: verdict.Verdict{Done: true, Message: `deployment "web" rolled out: generation 1 observed, 4 replicas updated and available, no old or terminating pods`}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			d, rss := done()
			if r.edit != nil {
				r.edit(d, rss)
			}
			var pods map[types.UID][]*corev1.Pod
			if r.pods != nil {
				pods = r.pods(rss)
			}
			f := testutil.Freeze(t, d, rss, pods)
			all := verdict.All(d, rss, pods)
			f.Check(t)
			i := slices.Index(verdict.Tools(), r.tool)
			got := all[i]
			r.want.Tool = r.tool
			if got.Tool != r.want.Tool || got.Done != r.want.Done || got.Failed != r.want.Failed || got.Status != r.want.Status ||
				got.Message != r.want.Message || !slices.Equal(got.Reasons, r.want.Reasons) {
				t.Errorf("%s\n got %#v\nwant %#v", r.reason, got, r.want)
			}
		})
	}
}
