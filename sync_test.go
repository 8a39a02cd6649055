package deploysync_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// syncAndApply runs Sync on a state, checks that neither Sync nor Apply
// modifies it, and returns the plan and the state after it.
func syncAndApply(t *testing.T, s deploysync.State, opts ...deploysync.Option) (deploysync.Plan, deploysync.State) {
	t.Helper()
	frozen := testutil.Freeze(t, s.Deployment, s.ReplicaSets, s.Pods)
	plan, err := deploysync.Sync(s, opts...)
	frozen.Check(t)
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	after, err := deploysync.Apply(s, plan)
	frozen.Check(t)
	if err != nil {
		t.Fatalf("Apply: %v\n%s", err, plan)
	}
	for _, a := range plan.Actions {
		if a.Explain() == "" {
			t.Errorf("action without a reason: %s", a)
		}
	}
	return plan, after
}

// TestSyncUpstreamController restates the whole-sync cases of upstream's
// deployment_controller_test.go: TestSyncDeploymentCreatesReplicaSet,
// TestSyncDeploymentDontDoAnythingDuringDeletion,
// TestDontSyncDeploymentsWithEmptyPodSelector and TestReentrantRollback.
// Upstream compares verbs and resources; here the whole plan is compared
// (upstream's fake recorder drops events, a plan has them). Upstream
// writes the Deployment's status twice when it creates a ReplicaSet; a
// plan writes it once with both changes.
func TestSyncUpstreamController(t *testing.T) {
	deleting := testutil.Deployment("foo", 1)
	deleting.DeletionTimestamp = ptr.To(metav1.NewTime(testutil.Epoch()))
	emptySelector := testutil.Deployment("foo", 1)
	emptySelector.Spec.Selector = &metav1.LabelSelector{}
	newGeneration := emptySelector.DeepCopy()
	newGeneration.Generation = 1

	// TestReentrantRollback: the Deployment is at revision 2 and asks for
	// the previous one; deploymentrs-old (revision 1) differs only in its
	// termination grace period. Upstream's fixture shares one label map
	// between selector, template and ReplicaSets, so the hash label it adds
	// to the ReplicaSets' selectors lands everywhere; here only the
	// ReplicaSets carry it, as in a cluster.
	rollback := testutil.Deployment("foo", 1)
	rollback.Annotations = map[string]string{deployutil.RevisionAnnotation: "2", deployutil.RollbackToAnnotation: "0"}
	rsOld := testutil.ReplicaSet("deploymentrs-old", 0, testutil.OwnedBy(rollback))
	rsOld.Annotations = map[string]string{deployutil.RevisionAnnotation: "1"}
	rsOld.Spec.Template.Spec.TerminationGracePeriodSeconds = ptr.To[int64](1)
	rsOld.Spec.Template.Labels[deployutil.PodTemplateHashLabel] = "hash-old"
	rsNew := testutil.ReplicaSet("deploymentrs-new", 1, testutil.OwnedBy(rollback))
	rsNew.Annotations = map[string]string{deployutil.RevisionAnnotation: "2"}
	rsNew.Spec.Template.Labels[deployutil.PodTemplateHashLabel] = "hash-new"
	for _, rs := range []*appsv1.ReplicaSet{rsOld, rsNew} {
		rs.Labels[deployutil.PodTemplateHashLabel] = rs.Spec.Template.Labels[deployutil.PodTemplateHashLabel]
		rs.Spec.Selector.MatchLabels[deployutil.PodTemplateHashLabel] = rs.Spec.Template.Labels[deployutil.PodTemplateHashLabel]
	}

	tests := []struct {
		name        string
		state       deploysync.State
		wantBranch  deploysync.Branch
		wantActions []string
		check       func(t *testing.T, after deploysync.State)
		reason      string
	}{
		{name: "creates a replica set", state: deploysync.State{Deployment: testutil.Deployment("foo", 1), Now: testutil.Epoch()},
			wantBranch: deploysync.RollingUpdate,
			wantActions: []string{
				"create replicaset foo-5d94f67bbb 1",
				"event Normal ScalingReplicaSet Scaled up replica set foo-5d94f67bbb from 0 to 1",
				"update deployment status foo",
			},
			check: func(t *testing.T, after deploysync.State) {
				rs := after.ReplicaSets[0]
				want := map[string]string{deployutil.RevisionAnnotation: "1", deployutil.DesiredReplicasAnnotation: "1", deployutil.MaxReplicasAnnotation: "1"}
				if diff := cmp.Diff(want, rs.Annotations); diff != "" {
					t.Errorf("annotations of the new ReplicaSet (-want +got):\n%s", diff)
				}
				wantLabels := map[string]string{"foo": "bar", deployutil.PodTemplateHashLabel: "5d94f67bbb"}
				if diff := cmp.Diff(wantLabels, rs.Spec.Selector.MatchLabels); diff != "" || !cmp.Equal(wantLabels, rs.Labels) || !cmp.Equal(wantLabels, rs.Spec.Template.Labels) {
					t.Errorf("labels, selector and template labels must all carry the hash (-want +got selector):\n%s", diff)
				}
				if ref := metav1.GetControllerOf(rs); ref == nil || ref.UID != "foo-uid" || rs.Namespace != "default" {
					t.Errorf("the new ReplicaSet is controlled by the Deployment, in its namespace")
				}
				if got := after.Deployment.Annotations[deployutil.RevisionAnnotation]; got != "1" {
					t.Errorf("Deployment revision %q, want 1", got)
				}
			},
			reason: "upstream: create replicasets, then status updates; the name is foo-<hash of the fixture template> (hash 5d94f67bbb, reference Appendix A)"},
		{name: "only status during deletion", state: deploysync.State{Deployment: deleting, Now: testutil.Epoch()},
			wantBranch: deploysync.Deleting, wantActions: []string{"update deployment status foo"},
			reason: "upstream: a Deployment being deleted only gets its status updated"},
		{name: "empty selector", state: deploysync.State{Deployment: emptySelector, Now: testutil.Epoch()},
			wantBranch:  deploysync.SelectingAll,
			wantActions: []string{"event Warning SelectingAll This deployment is selecting all pods. A non-empty selector is required."},
			reason:      "upstream: no write (generation 0 is already observed), only the warning its fake recorder drops"},
		{name: "empty selector, new generation", state: deploysync.State{Deployment: newGeneration, Now: testutil.Epoch()},
			wantBranch: deploysync.SelectingAll,
			wantActions: []string{"event Warning SelectingAll This deployment is selecting all pods. A non-empty selector is required.",
				"update deployment status foo"},
			check: func(t *testing.T, after deploysync.State) {
				if after.Deployment.Status.ObservedGeneration != 1 {
					t.Errorf("observedGeneration = %d, want 1", after.Deployment.Status.ObservedGeneration)
				}
			},
			reason: "upstream's comment: normally there is a status update to sync observedGeneration"},
		{name: "reentrant rollback", state: deploysync.State{Deployment: rollback, ReplicaSets: []*appsv1.ReplicaSet{rsOld, rsNew}, Now: testutil.Epoch()},
			wantBranch: deploysync.Rollback,
			wantActions: []string{"update deployment foo",
				`event Normal DeploymentRollback Rolled back deployment "foo" to revision 1`},
			check: func(t *testing.T, after deploysync.State) {
				d := after.Deployment
				if diff := cmp.Diff(map[string]string{deployutil.RevisionAnnotation: "2"}, d.Annotations); diff != "" {
					t.Errorf("annotations (-want +got):\n%s", diff)
				}
				want := *rsOld.Spec.Template.DeepCopy()
				delete(want.Labels, deployutil.PodTemplateHashLabel)
				if diff := cmp.Diff(want, d.Spec.Template); diff != "" {
					t.Errorf("template (-want +got):\n%s", diff)
				}
			},
			reason: "upstream: the rollback is one Deployment update and no ReplicaSet is written; the template of revision 1 comes back without its hash label"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			plan, after := syncAndApply(t, tt.state)
			if plan.Branch != tt.wantBranch || plan.Err != nil || plan.Requeue || plan.RequeueAfter != 0 {
				t.Errorf("branch %s, err %v, requeue %v/%v; want %s and no requeue", plan.Branch, plan.Err, plan.Requeue, plan.RequeueAfter, tt.wantBranch)
			}
			if diff := cmp.Diff(tt.wantActions, fxSummary(plan.Actions)); diff != "" {
				t.Errorf("actions (-want +got):\n%s\n(%s)", diff, tt.reason)
			}
			if tt.check != nil {
				tt.check(t, after)
			}
		})
	}
}

// TestSyncDeletionRace restates upstream's TestSyncDeploymentDeletionRace:
// the cache says the Deployment is not being deleted, the server says it
// is, and an orphan matches. Upstream re-reads the Deployment before
// adopting and fails the sync. A plan carries that precondition on its
// AdoptReplicaSet action, first in the plan; an applier that checks it
// against the fresh Deployment (as Apply does) stops there.
func TestSyncDeletionRace(t *testing.T) {
	cached := testutil.Deployment("foo", 1)
	orphan := testutil.ReplicaSet("rs1", 1, testutil.OwnedBy(cached))
	orphan.OwnerReferences = nil
	live := cached.DeepCopy()
	live.DeletionTimestamp = ptr.To(metav1.NewTime(testutil.Epoch()))
	tests := []struct {
		name     string
		fresh    *appsv1.Deployment
		wantFail bool
		reason   string
	}{
		{name: "deleted meanwhile", fresh: live, wantFail: true,
			reason: "upstream: only the recheck happens, and the sync fails so the cache can catch up"},
		{name: "recreated under the same name", fresh: func() *appsv1.Deployment { d := cached.DeepCopy(); d.UID = "other"; return d }(), wantFail: true,
			reason: "upstream's recheck also refuses a Deployment whose UID changed"},
		{name: "still there", fresh: cached, wantFail: false,
			reason: "the precondition holds: the adoption goes ahead"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			s := deploysync.State{Deployment: cached, ReplicaSets: []*appsv1.ReplicaSet{orphan}, Now: testutil.Epoch()}
			frozen := testutil.Freeze(t, cached, s.ReplicaSets, tt.fresh)
			plan, err := deploysync.Sync(s)
			frozen.Check(t)
			if err != nil {
				t.Fatal(err)
			}
			adopt, ok := plan.Actions[0].(*action.AdoptReplicaSet)
			if !ok || adopt.Name != "rs1" || adopt.OwnerUID != "foo-uid" {
				t.Fatalf("first action %s, want the adoption of rs1 by foo-uid", plan.Actions[0])
			}
			live := s
			live.Deployment = tt.fresh
			_, err = deploysync.Apply(live, plan)
			frozen.Check(t)
			var ae *deploysync.ApplyError
			if failed := errors.As(err, &ae) && ae.Index == 0; failed != tt.wantFail {
				t.Errorf("Apply = %v, want failure at action 0: %v (%s)", err, tt.wantFail, tt.reason)
			}
		})
	}
}

// TestSyncReplicaSetName restates upstream's
// TestDeploymentController_generateReplicaSetName (3 rows): the name of a
// created ReplicaSet is the Deployment's name, cut to leave room for the
// hash within 253 characters.
func TestSyncReplicaSetName(t *testing.T) {
	tests := []struct {
		name       string
		deployment string
		wantPrefix string
		reason     string
	}{
		{name: "short", deployment: "my-deployment", wantPrefix: "my-deployment", reason: "upstream: kept whole"},
		{name: "truncated", deployment: strings.Repeat("a", 250), wantPrefix: strings.Repeat("a", 242), reason: "upstream: cut to 242 for a 10-character hash"},
		{name: "not truncated", deployment: strings.Repeat("a", 242), wantPrefix: strings.Repeat("a", 242), reason: "upstream: 242 fits exactly"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			plan, _ := syncAndApply(t, deploysync.State{Deployment: testutil.Deployment(tt.deployment, 1), Now: testutil.Epoch()})
			create, ok := plan.Actions[0].(*action.CreateReplicaSet)
			if !ok {
				t.Fatalf("first action %s, want a create", plan.Actions[0])
			}
			name := create.ReplicaSet.Name
			i := strings.LastIndex(name, "-")
			if len(name) > 253 || i < 0 || name[:i] != tt.wantPrefix || name[i+1:] != create.ReplicaSet.Labels[deployutil.PodTemplateHashLabel] {
				t.Errorf("name %q (%d characters): want %q-<hash> within 253 (%s)", name, len(name), tt.wantPrefix, tt.reason)
			}
		})
	}
}

// TestSyncRequeue restates upstream's TestRequeueStuckDeployment (11 rows)
// through Sync: a Recreate Deployment whose status is already what Sync
// computes, so nothing is written and only the requeue is decided.
// Upstream's function returns the time left until the deadline; the
// controller then requeues one second after it (Plan.RequeueAfter), or at
// once, rate limited, when less than a second is left (Plan.Requeue); -1
// means no requeue.
func TestSyncRequeue(t *testing.T) {
	stuckAt := testutil.Epoch()
	stuck := fxProgressing(corev1.ConditionTrue, "", stuckAt)
	failed := fxProgressing(corev1.ConditionFalse, deployutil.ReasonProgressDeadlineExceeded, time.Time{})
	complete := fxProgressing(corev1.ConditionTrue, deployutil.ReasonNewReplicaSetAvailable, stuckAt)
	at := func(min, sec, nsec int) time.Time { return time.Date(2017, 2, 15, 18, min, sec, nsec, time.UTC) }
	tests := []struct {
		name                   string
		pds                    *int32
		replicas, current, avl int32
		noNewRS                bool
		cond                   *appsv1.DeploymentCondition
		now                    time.Time
		wantRequeue            bool
		wantAfter              time.Duration
		reason                 string
	}{
		{name: "no deadline", pds: nil, replicas: 4, current: 3, avl: 2, now: at(49, 30, 0),
			reason: "upstream: -1 without progressDeadlineSeconds"},
		{name: "infinite deadline", pds: ptr.To[int32](math.MaxInt32), replicas: 4, current: 3, avl: 2, now: at(49, 30, 0),
			reason: "upstream: -1 with MaxInt32"},
		{name: "no Progressing condition", pds: ptr.To[int32](60), replicas: 4, current: 3, avl: 2, noNewRS: true, now: at(49, 30, 0),
			reason: "upstream: -1 without a Progressing condition. A sync adds FoundNewReplicaSet as soon as the new ReplicaSet exists, so the state here is a Recreate rollout waiting for old pods, before the new ReplicaSet is created"},
		{name: "complete", pds: ptr.To[int32](60), replicas: 3, current: 3, avl: 3, cond: &complete, now: at(49, 30, 0),
			reason: "upstream: -1 for a complete Deployment (upstream's row has no condition at all, which returns -1 one check earlier; with a condition, completeness decides)"},
		{name: "already failed", pds: ptr.To[int32](60), replicas: 3, current: 3, avl: 0, cond: &failed, now: at(49, 30, 0),
			reason: "upstream: -1 once ProgressDeadlineExceeded"},
		{name: "30s left", pds: ptr.To[int32](60), replicas: 3, current: 3, avl: 1, cond: &stuck, now: at(49, 30, 0), wantAfter: 31 * time.Second,
			reason: "upstream: 30s left, requeued 1s after the deadline"},
		{name: "1s left", pds: ptr.To[int32](60), replicas: 3, current: 3, avl: 1, cond: &stuck, now: at(49, 59, 0), wantAfter: 2 * time.Second,
			reason: "upstream: 1s left is not less than a second"},
		{name: "less than a second left", pds: ptr.To[int32](60), replicas: 3, current: 3, avl: 1, cond: &stuck, now: at(49, 59, 1), wantRequeue: true,
			reason: "upstream: 0 — requeue now, rate limited"},
		{name: "at the deadline", pds: ptr.To[int32](60), replicas: 3, current: 3, avl: 1, cond: &stuck, now: at(50, 0, 0), wantRequeue: true,
			reason: "upstream: 0 — the deadline is strict, so this is not yet a timeout"},
		{name: "1s past the deadline", pds: ptr.To[int32](60), replicas: 3, current: 3, avl: 1, cond: &complete, now: at(50, 1, 0), wantRequeue: true,
			reason: "upstream: 0. Past the deadline a sync would record the timeout instead of requeueing; it requeues past the deadline only for a rollout it once saw complete (NewReplicaSetAvailable) that has since lost pods"},
		{name: "60s past the deadline", pds: ptr.To[int32](60), replicas: 3, current: 3, avl: 1, cond: &complete, now: at(51, 0, 0), wantRequeue: true,
			reason: "upstream: 0, as the row before"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d := fxProgressDeployment(tt.pds, tt.replicas, tt.current, tt.current, tt.avl)
			var rs *appsv1.ReplicaSet
			if tt.noNewRS {
				rs = fxProgressReplicaSet(d, fxRS{name: "progress-test-old", spec: 0, status: tt.current, available: tt.avl}, false)
				d.Status.UpdatedReplicas = 0
				d.Status.UnavailableReplicas = 0
			} else {
				rs = fxProgressReplicaSet(d, fxRS{name: "progress-test-new", spec: tt.replicas, status: tt.current, available: tt.avl}, true)
				d.Status.UnavailableReplicas = tt.replicas - tt.avl
			}
			d.Status.TerminatingReplicas = ptr.To[int32](0)
			if tt.cond != nil {
				d.Status.Conditions = append(d.Status.Conditions, *tt.cond)
			}
			avail := facts.NewCondition(appsv1.DeploymentAvailable, corev1.ConditionFalse, deployutil.ReasonMinimumReplicasUnavailable,
				"Deployment does not have minimum availability.", testutil.Epoch())
			if tt.avl >= tt.replicas {
				avail = facts.NewCondition(appsv1.DeploymentAvailable, corev1.ConditionTrue, deployutil.ReasonMinimumReplicasAvailable,
					"Deployment has minimum availability.", testutil.Epoch())
			}
			d.Status.Conditions = append(d.Status.Conditions, avail)

			plan, _ := syncAndApply(t, deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{rs}, Now: tt.now})
			if len(plan.Actions) != 0 {
				t.Errorf("unexpected actions (the status must already be what Sync computes):\n%s", plan)
			}
			if plan.Requeue != tt.wantRequeue || plan.RequeueAfter != tt.wantAfter {
				t.Errorf("requeue %v after %v, want %v after %v (%s)", plan.Requeue, plan.RequeueAfter, tt.wantRequeue, tt.wantAfter, tt.reason)
			}
		})
	}
}

// TestSyncRolloutStatus restates upstream's TestSyncRolloutStatus (11 rows)
// through Sync, on Recreate Deployments (upstream's currentDeployment) at
// a time long past every deadline, as upstream's rows run at the wall
// clock. Upstream checks the Progressing condition's status and reason;
// its time checks compare its expectations with themselves. Here the
// times are checked as the rows' names say: kept (testTime) or new (Now).
// Where upstream passes a nil new ReplicaSet next to an active old one, the
// old one is first scaled down by the Recreate step, as in a sync.
func TestSyncRolloutStatus(t *testing.T) {
	pds := ptr.To[int32](60)
	now := testutil.Epoch().Add(10 * time.Minute)
	failed := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: deployutil.ReasonProgressDeadlineExceeded}
	available := fxProgressing(corev1.ConditionTrue, deployutil.ReasonNewReplicaSetAvailable, testutil.Epoch())
	updated := fxProgressing(corev1.ConditionTrue, deployutil.ReasonReplicaSetUpdated, testutil.Epoch())
	type when int
	const (
		unchecked when = iota
		kept
		fresh
	)
	tests := []struct {
		name           string
		d              *appsv1.Deployment
		old            []fxRS
		newRS          *fxRS
		runningOldPod  bool
		wantNone       bool
		wantStatus     corev1.ConditionStatus
		wantReason     string
		wantMessage    string
		wantUpdate     when
		wantTransition when
		wantUnchanged  *appsv1.DeploymentCondition
		reason         string
	}{
		{name: "no deadline: remove Progressing", d: fxProgressDeployment(nil, 3, 2, 2, 2, updated),
			old: []fxRS{{"bar", 0, 1, 1}}, newRS: &fxRS{"foo", 3, 2, 2}, wantNone: true,
			reason: "upstream: without a deadline the Progressing condition is removed and progress is not estimated"},
		{name: "one active ReplicaSet: no estimate", d: fxProgressDeployment(pds, 3, 3, 3, 3, available),
			old: []fxRS{{"bar", 3, 3, 3}}, wantUnchanged: &available,
			reason: "upstream: NewReplicaSetAvailable stays as it is (status, reason and times)"},
		{name: "progressing: keep the transition time", d: fxProgressDeployment(pds, 3, 2, 2, 2, updated),
			old: []fxRS{{"bar", 0, 1, 1}}, newRS: &fxRS{"foo", 3, 2, 2},
			wantStatus: corev1.ConditionTrue, wantReason: deployutil.ReasonReplicaSetUpdated, wantMessage: `ReplicaSet "foo" is progressing.`,
			wantUpdate: fresh, wantTransition: kept,
			reason: "upstream: Progressing=True stays True: lastTransitionTime kept, lastUpdateTime refreshed"},
		{name: "progressing after a timeout", d: fxProgressDeployment(pds, 3, 2, 2, 2, failed),
			old: []fxRS{{"bar", 0, 1, 1}}, newRS: &fxRS{"foo", 3, 2, 2},
			wantStatus: corev1.ConditionTrue, wantReason: deployutil.ReasonReplicaSetUpdated, wantUpdate: fresh, wantTransition: fresh,
			reason: "upstream: from Progressing=False everything is updated"},
		{name: "progressing, no condition yet", d: fxProgressDeployment(pds, 3, 2, 2, 2),
			old: []fxRS{{"bar", 0, 1, 1}}, newRS: &fxRS{"foo", 3, 2, 2},
			wantStatus: corev1.ConditionTrue, wantReason: deployutil.ReasonReplicaSetUpdated, wantUpdate: fresh, wantTransition: fresh,
			reason: "upstream: the condition is created"},
		{name: "complete: keep the transition time", d: fxProgressDeployment(pds, 3, 3, 3, 3, updated),
			newRS:      &fxRS{"foo", 3, 3, 3},
			wantStatus: corev1.ConditionTrue, wantReason: deployutil.ReasonNewReplicaSetAvailable, wantMessage: `ReplicaSet "foo" has successfully progressed.`,
			wantUpdate: fresh, wantTransition: kept,
			reason: "upstream: complete from Progressing=True: lastTransitionTime kept"},
		{name: "complete after a timeout", d: fxProgressDeployment(pds, 3, 3, 3, 3, failed),
			newRS:      &fxRS{"foo", 3, 3, 3},
			wantStatus: corev1.ConditionTrue, wantReason: deployutil.ReasonNewReplicaSetAvailable, wantUpdate: fresh, wantTransition: fresh,
			reason: "upstream: complete from Progressing=False: everything updated"},
		{name: "complete, no condition yet", d: fxProgressDeployment(pds, 3, 3, 3, 3),
			newRS:      &fxRS{"foo", 3, 3, 3},
			wantStatus: corev1.ConditionTrue, wantReason: deployutil.ReasonNewReplicaSetAvailable, wantUpdate: fresh, wantTransition: fresh,
			reason: "upstream: the condition is created"},
		{name: "complete without a new ReplicaSet", d: fxProgressDeployment(pds, 0, 3, 3, 3, updated),
			old: []fxRS{{"foo", 0, 0, 0}}, runningOldPod: true,
			wantStatus: corev1.ConditionTrue, wantReason: deployutil.ReasonNewReplicaSetAvailable,
			wantMessage: `Deployment "progress-test" has successfully progressed.`, wantUpdate: fresh, wantTransition: kept,
			reason: "upstream: no nil dereference without a new ReplicaSet; the message names the Deployment. (A pod of the old ReplicaSet still running keeps Recreate from creating the new one, so it stays nil in this sync.)"},
		{name: "timed out", d: fxProgressDeployment(pds, 3, 2, 2, 2, updated),
			newRS:      &fxRS{"foo", 3, 2, 2},
			wantStatus: corev1.ConditionFalse, wantReason: deployutil.ReasonProgressDeadlineExceeded, wantMessage: `ReplicaSet "foo" has timed out progressing.`,
			wantUpdate: fresh, wantTransition: fresh,
			reason: "upstream: no progress for longer than the deadline"},
		{name: "already timed out", d: fxProgressDeployment(pds, 3, 2, 2, 2, failed),
			newRS: &fxRS{"foo", 3, 2, 2}, wantUnchanged: &failed,
			reason: "upstream: an existing ProgressDeadlineExceeded condition is not updated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			s := deploysync.State{Deployment: tt.d, Now: now}
			for _, r := range tt.old {
				s.ReplicaSets = append(s.ReplicaSets, fxProgressReplicaSet(tt.d, r, false))
			}
			if tt.newRS != nil {
				s.ReplicaSets = append(s.ReplicaSets, fxProgressReplicaSet(tt.d, *tt.newRS, true))
			}
			if tt.runningOldPod {
				old := s.ReplicaSets[0]
				s.Pods = map[types.UID][]*corev1.Pod{old.UID: {fxPodOf(old, corev1.PodRunning)}}
			}
			plan, after := syncAndApply(t, s)
			if plan.Branch != deploysync.Recreate {
				t.Errorf("branch %s, want Recreate", plan.Branch)
			}
			got := deployutil.GetCondition(after.Deployment.Status, appsv1.DeploymentProgressing)
			switch {
			case tt.wantNone:
				if got != nil {
					t.Errorf("Progressing = %+v, want none (%s)", *got, tt.reason)
				}
				return
			case got == nil:
				t.Fatalf("no Progressing condition (%s)\n%s", tt.reason, plan)
			case tt.wantUnchanged != nil:
				if diff := cmp.Diff(*tt.wantUnchanged, *got); diff != "" {
					t.Errorf("Progressing changed (-want +got):\n%s\n(%s)", diff, tt.reason)
				}
				return
			}
			if got.Status != tt.wantStatus || got.Reason != tt.wantReason || (tt.wantMessage != "" && got.Message != tt.wantMessage) {
				t.Errorf("Progressing = %s/%s %q, want %s/%s %q (%s)", got.Status, got.Reason, got.Message, tt.wantStatus, tt.wantReason, tt.wantMessage, tt.reason)
			}
			for _, c := range []struct {
				field string
				got   metav1.Time
				want  when
			}{{"lastUpdateTime", got.LastUpdateTime, tt.wantUpdate}, {"lastTransitionTime", got.LastTransitionTime, tt.wantTransition}} {
				switch {
				case c.want == kept && !c.got.Time.Equal(testutil.Epoch()):
					t.Errorf("%s = %v, want it kept at %v (%s)", c.field, c.got, testutil.Epoch(), tt.reason)
				case c.want == fresh && !c.got.Time.Equal(now):
					t.Errorf("%s = %v, want the time of the sync %v (%s)", c.field, c.got, now, tt.reason)
				}
			}
		})
	}
}

// TestSyncInvalidInput checks that Sync refuses, before deciding anything,
// a state an apiserver would not hold — upstream's own 0/0 fixture among
// them.
func TestSyncInvalidInput(t *testing.T) {
	zeroZero := testutil.Deployment("foo", 1)
	zeroZero.Spec.Strategy.RollingUpdate.MaxUnavailable.IntVal = 0
	foreign := testutil.Deployment("foo", 1)
	other := testutil.ReplicaSet("foo-1", 1, testutil.OwnedBy(foreign))
	other.Namespace = "elsewhere"
	tests := []struct {
		name      string
		state     deploysync.State
		wantField string
		reason    string
	}{
		{name: "maxSurge and maxUnavailable 0", state: deploysync.State{Deployment: zeroZero},
			wantField: "spec.strategy.rollingUpdate.maxUnavailable", reason: "upstream's newDeployment fixture default, refused by apiserver validation"},
		{name: "ReplicaSet of another namespace", state: deploysync.State{Deployment: foreign, ReplicaSets: []*appsv1.ReplicaSet{other}},
			wantField: "metadata.namespace", reason: "the state holds one namespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			frozen := testutil.Freeze(t, tt.state.Deployment, tt.state.ReplicaSets)
			plan, err := deploysync.Sync(tt.state)
			frozen.Check(t)
			var ie *deployutil.InputError
			if !errors.As(err, &ie) || !errors.Is(err, deployutil.ErrInvalidInput) || ie.Field != tt.wantField || len(plan.Actions) != 0 {
				t.Errorf("Sync = %v, %v; want an InputError for %s and no plan (%s)", plan, err, tt.wantField, tt.reason)
			}
		})
	}
}

// TestSyncHashCollision follows a hash collision: the name the new
// ReplicaSet would get belongs to a ReplicaSet that is not the
// Deployment's; the sync raises status.collisionCount and fails, so the
// next sync computes another name.
func TestSyncHashCollision(t *testing.T) {
	tests := []struct {
		name      string
		count     *int32
		wantCount int32
		reason    string
	}{
		{name: "first collision", count: nil, wantCount: 1, reason: "the first collision: collisionCount nil → 1"},
		{name: "second collision", count: ptr.To[int32](1), wantCount: 2, reason: "upstream: n → n+1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d := testutil.Deployment("foo", 1)
			d.Status.CollisionCount = tt.count
			taken := deployutil.ReplicaSetName(d.Name, deployutil.ComputeHash(&d.Spec.Template, tt.count))
			squatter := testutil.ReplicaSet(taken, 1, testutil.OwnedBy(d))
			squatter.OwnerReferences = nil
			squatter.Labels = map[string]string{"app": "other"}
			squatter.Spec.Template.Spec.Containers[0].Image = "other"
			plan, after := syncAndApply(t, deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{squatter}, Now: testutil.Epoch()})
			var hc *deploysync.HashCollisionError
			if !errors.As(plan.Err, &hc) || hc.Name != taken || hc.CollisionCount != tt.wantCount {
				t.Fatalf("plan.Err = %v, want a hash collision on %s raising the count to %d (%s)", plan.Err, taken, tt.wantCount, tt.reason)
			}
			if diff := cmp.Diff([]string{"update deployment status foo"}, fxSummary(plan.Actions)); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
			if got := after.Deployment.Status.CollisionCount; got == nil || *got != tt.wantCount {
				t.Errorf("collisionCount %v, want %d", got, tt.wantCount)
			}
			if !strings.Contains(plan.String(), "then fail: ") || plan.Requeue || plan.RequeueAfter != 0 {
				t.Errorf("plan %s: want a failure and no requeue", plan)
			}
		})
	}
}

// TestSyncNewReplicaSetShape checks what upstream's getNewReplicaSet
// copies onto a ReplicaSet it creates or brings back.
func TestSyncNewReplicaSetShape(t *testing.T) {
	t.Run("selector with expressions", func(t *testing.T) {
		d := testutil.Deployment("foo", 1)
		d.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{
			{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"web"}},
			{Key: "canary", Operator: metav1.LabelSelectorOpDoesNotExist},
		}
		d.Spec.Template.Labels["tier"] = "web"
		plan, _ := syncAndApply(t, deploysync.State{Deployment: d, Now: testutil.Epoch()})
		rs := plan.Actions[0].(*action.CreateReplicaSet).ReplicaSet
		hash := rs.Labels[deployutil.PodTemplateHashLabel]
		want := &metav1.LabelSelector{MatchLabels: map[string]string{"foo": "bar", deployutil.PodTemplateHashLabel: hash}, MatchExpressions: d.Spec.Selector.MatchExpressions}
		if diff := cmp.Diff(want, rs.Spec.Selector); diff != "" || hash == "" {
			t.Errorf("selector (-want +got):\n%s\n(upstream's CloneSelectorAndAddLabel keeps the expressions, nil values staying nil, and adds the hash to matchLabels)", diff)
		}
	})

	// A ReplicaSet at revision 2 (history "1") becomes the new one again
	// while revision 3 exists: it takes revision 4 and appends 2 to its
	// history — unless the history limit leaves no room.
	for _, tt := range []struct {
		name        string
		opts        []deploysync.Option
		wantHistory string
		reason      string
	}{
		{name: "history", wantHistory: "1,2", reason: "upstream's 2000-character limit has room"},
		{name: "history limit", opts: []deploysync.Option{deploysync.WithRevisionHistoryChars(2)}, wantHistory: "2",
			reason: "WithRevisionHistoryChars(2): \"1,2\" does not fit, so upstream drops the oldest entry"},
		{name: "no room for history", opts: []deploysync.Option{deploysync.WithRevisionHistoryChars(0)}, wantHistory: "1",
			reason: "WithRevisionHistoryChars(0): not even \"2\" fits, and upstream then leaves the history as it was"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d := testutil.Deployment("foo", 1)
			back := testutil.ReplicaSet("foo-back", 1, testutil.OwnedBy(d))
			back.Annotations = map[string]string{deployutil.RevisionAnnotation: "2", deployutil.RevisionHistoryAnnotation: "1"}
			newer := testutil.ReplicaSet("foo-newer", 0, testutil.OwnedBy(d))
			newer.Annotations = map[string]string{deployutil.RevisionAnnotation: "3"}
			newer.Spec.Template.Spec.Containers[0].Image = "foo/bar:3"
			plan, after := syncAndApply(t, deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{back, newer}, Now: testutil.Epoch()}, tt.opts...)
			var got *appsv1.ReplicaSet
			for _, rs := range after.ReplicaSets {
				if rs.Name == "foo-back" {
					got = rs
				}
			}
			if got.Annotations[deployutil.RevisionAnnotation] != "4" || got.Annotations[deployutil.RevisionHistoryAnnotation] != tt.wantHistory {
				t.Errorf("annotations %v, want revision 4 and history %q (%s)\n%s", got.Annotations, tt.wantHistory, tt.reason, plan)
			}
		})
	}
}
