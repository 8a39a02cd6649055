package execute_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/execute"
	"github.com/deploysync/deploysync/execute/executetest"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

var (
	exT0  = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	exNow = exT0.Add(time.Hour)
)

// exDeployment is a defaulted Deployment "web" (3 replicas, nginx:1,
// app=web) changed by the given functions.
func exDeployment(changes ...func(*appsv1.Deployment)) *appsv1.Deployment {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "d-uid", Generation: 1, ResourceVersion: "1",
			CreationTimestamp: metav1.NewTime(exT0)},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: exTemplate("nginx:1"),
		},
	}
	for _, c := range changes {
		c(d)
	}
	return deployutil.SetDefaults(d)
}

func exTemplate(image string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: image}}},
	}
}

// exReplicaSet is a ReplicaSet of d's template with another image, named
// by its hash, controlled by d, with all its replicas available.
func exReplicaSet(d *appsv1.Deployment, image string, replicas int32, revision string, changes ...func(*appsv1.ReplicaSet)) *appsv1.ReplicaSet {
	tpl := exTemplate(image)
	tpl = *deployutil.SetPodTemplateDefaults(&tpl)
	hash := deployutil.ComputeHash(&tpl, nil)
	tpl.Labels = map[string]string{"app": "web", appsv1.DefaultDeploymentUniqueLabelKey: hash}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: deployutil.ReplicaSetName(d.Name, hash), Namespace: "ns", UID: types.UID("rs-" + hash),
			Labels: tpl.Labels, Generation: 1, CreationTimestamp: metav1.NewTime(exT0),
			Annotations: map[string]string{
				deployutil.RevisionAnnotation:        revision,
				deployutil.DesiredReplicasAnnotation: "3",
				deployutil.MaxReplicasAnnotation:     "4",
			},
			OwnerReferences: []metav1.OwnerReference{deployutil.ControllerRef(d)},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: tpl.Labels},
			Template: tpl,
		},
		Status: appsv1.ReplicaSetStatus{Replicas: replicas, ReadyReplicas: replicas, AvailableReplicas: replicas,
			ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0)},
	}
	for _, c := range changes {
		c(rs)
	}
	return rs
}

func exOrphan(rs *appsv1.ReplicaSet) { rs.OwnerReferences = nil; rs.Annotations = nil }

// exComplete gives d the status of a finished rollout of its replicas.
func exComplete(d *appsv1.Deployment) {
	n := *d.Spec.Replicas
	d.Annotations = map[string]string{deployutil.RevisionAnnotation: "2"}
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: n, UpdatedReplicas: n,
		ReadyReplicas: n, AvailableReplicas: n, TerminatingReplicas: ptr.To[int32](0),
		Conditions: []appsv1.DeploymentCondition{
			facts.NewCondition(appsv1.DeploymentAvailable, corev1.ConditionTrue, deployutil.ReasonMinimumReplicasAvailable,
				"Deployment has minimum availability.", exT0),
			facts.NewCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, deployutil.ReasonNewReplicaSetAvailable,
				`ReplicaSet "x" has successfully progressed.`, exT0),
		}}
}

// exStates are the states the tests of Plan plan from; together their
// plans hold every kind of action Sync emits.
var exStates = map[string]func() deploysync.State{
	"new": func() deploysync.State {
		return deploysync.State{Deployment: exDeployment()}
	},
	"adopt": func() deploysync.State {
		d := exDeployment()
		return deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{exReplicaSet(d, "nginx:1", 1, "", exOrphan)}}
	},
	"release": func() deploysync.State {
		d := exDeployment(exComplete)
		cur := exReplicaSet(d, "nginx:1", 3, "2")
		stray := exReplicaSet(d, "nginx:0", 0, "1", func(rs *appsv1.ReplicaSet) { rs.Labels = map[string]string{"app": "other"} })
		return deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{cur, stray}}
	},
	"rollback": func() deploysync.State {
		d := exDeployment(func(d *appsv1.Deployment) {
			d.Spec.Template = exTemplate("nginx:2")
			d.Annotations = map[string]string{deployutil.RevisionAnnotation: "2", deployutil.RollbackToAnnotation: "0"}
		})
		return deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{
			exReplicaSet(d, "nginx:1", 0, "1"), exReplicaSet(d, "nginx:2", 3, "2"),
		}}
	},
	"cleanup": func() deploysync.State {
		d := exDeployment(exComplete, func(d *appsv1.Deployment) { d.Spec.RevisionHistoryLimit = ptr.To[int32](0) })
		return deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{
			exReplicaSet(d, "nginx:0", 0, "1"), exReplicaSet(d, "nginx:1", 3, "2"),
		}}
	},
}

// exPlan makes the plan of the named state, at exNow.
func exPlan(t *testing.T, name string) (deploysync.State, deploysync.Plan) {
	t.Helper()
	s := exStates[name]()
	s.Now = exNow
	p, err := deploysync.Sync(s)
	if err != nil {
		t.Fatalf("Sync(%s): %v", name, err)
	}
	return s, p
}

func exFake(s deploysync.State, faults ...executetest.Fault) *executetest.Fake {
	return executetest.New([]*appsv1.Deployment{s.Deployment}, s.ReplicaSets, faults...)
}

// exKinds names a list of actions by kind, for comparisons.
func exKinds(acts []action.Action) []string {
	out := []string{}
	for _, a := range acts {
		switch a.(type) {
		case *action.CreateReplicaSet:
			out = append(out, "create")
		case *action.UpdateReplicaSet:
			out = append(out, "update-rs")
		case *action.DeleteReplicaSet:
			out = append(out, "delete")
		case *action.AdoptReplicaSet:
			out = append(out, "adopt")
		case *action.ReleaseReplicaSet:
			out = append(out, "release")
		case *action.UpdateDeployment:
			out = append(out, "update-d")
		case *action.UpdateDeploymentStatus:
			out = append(out, "status")
		case *action.Event:
			out = append(out, "event")
		default:
			out = append(out, "?")
		}
	}
	return out
}

// exWorld is a state without what only a server sets (resourceVersions,
// the UIDs of created objects), so the fake's world and Apply's compare.
func exWorld(s deploysync.State, created map[string]bool) deploysync.State {
	out := deploysync.State{Deployment: s.Deployment.DeepCopy()}
	out.Deployment.ResourceVersion = ""
	for _, rs := range s.ReplicaSets {
		rs = rs.DeepCopy()
		rs.ResourceVersion = ""
		if created[rs.Name] {
			rs.UID = ""
		}
		out.ReplicaSets = append(out.ReplicaSets, rs)
	}
	return out
}

// TestPlanMatchesApply performs plans of Sync with execute.Plan on the fake
// server and checks that the server ends where Apply says the plan leads,
// with every action done, the plan's events recorded and the plan's
// requeue passed on; and that every second write of one object carried the
// resourceVersion the first returned (the fake refuses any other).
func TestPlanMatchesApply(t *testing.T) {
	tests := []struct {
		state  string
		want   []string
		reason string
	}{
		{"new", []string{"create", "event", "status"}, "no ReplicaSet: create the new one, record revision 1 and the status"},
		{"adopt", []string{"adopt", "update-rs", "event", "status"}, "adopt the orphan (a patch), then scale it with an update of the same object: the update must carry the patch's resourceVersion"},
		{"release", []string{"release"}, "a controlled ReplicaSet no longer matching the selector is released with a patch"},
		{"rollback", []string{"status", "update-d", "event"}, "a status write then the rollback's update of the same Deployment, which must carry the status write's resourceVersion"},
		{"cleanup", []string{"delete"}, "revisionHistoryLimit 0 deletes the scaled-down old ReplicaSet"},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.state, func(t *testing.T) {
			s, p := exPlan(t, tt.state)
			if got := exKinds(p.Actions); !cmp.Equal(got, tt.want) {
				t.Fatalf("plan = %v, want %v (%s)\n%s", got, tt.want, tt.reason, p)
			}
			for _, k := range tt.want {
				seen[k] = true
			}
			p.RequeueAfter = 7 * time.Second
			want, err := deploysync.Apply(s, p)
			require.NoError(t, err, "Apply")
			f := exFake(s)
			frozen := testutil.Freeze(t, append([]any{s.Deployment, s.ReplicaSets}, planObjects(p)...)...)
			res, err := execute.Plan(context.Background(), f, s, p)
			require.NoError(t, err, "execute.Plan")
			frozen.Check(t)
			if got := exKinds(res.Done); !cmp.Equal(got, tt.want) || res.Failed != nil || len(res.NotDone) != 0 || res.Unknown {
				t.Errorf("done %v, failed %v, not done %v, unknown %v; want all of %v done", got, res.Failed, exKinds(res.NotDone), res.Unknown, tt.want)
			}
			if res.Requeue || res.RequeueAfter != 7*time.Second {
				t.Errorf("requeue %v after %v, want the plan's 7s", res.Requeue, res.RequeueAfter)
			}
			created := map[string]bool{}
			for _, a := range p.Actions {
				if c, ok := a.(*action.CreateReplicaSet); ok {
					created[c.ReplicaSet.Name] = true
				}
			}
			if diff := cmp.Diff(exWorld(want, created), exWorld(f.State("ns", "web"), created)); diff != "" {
				t.Errorf("fake's world differs from Apply's (-Apply +fake):\n%s", diff)
			}
			var wantEvents []executetest.Event
			for _, a := range p.Actions {
				if e, ok := a.(*action.Event); ok {
					wantEvents = append(wantEvents, executetest.Event{Object: "ns/web", Type: e.Type, Reason: e.Reason, Message: e.Message})
				}
			}
			if diff := cmp.Diff(wantEvents, f.Events()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			writesD := slices.Contains(tt.want, "status") || slices.Contains(tt.want, "update-d")
			switch w := f.State("ns", "web").Deployment; {
			case !writesD && res.Written != nil:
				t.Errorf("Written is set (resourceVersion %s), the plan writes no Deployment", res.Written.ResourceVersion)
			case writesD && res.Written == nil:
				t.Errorf("Written is nil, the plan writes the Deployment")
			case writesD && res.Written.ResourceVersion != w.ResourceVersion:
				t.Errorf("Written has resourceVersion %s, the server %s", res.Written.ResourceVersion, w.ResourceVersion)
			}
			checkChained(t, f.Calls(), tt.state == "adopt" || tt.state == "rollback")
		})
	}
	for _, k := range []string{"create", "update-rs", "delete", "adopt", "release", "update-d", "status", "event"} {
		if !seen[k] {
			t.Errorf("no row executes an action of kind %q", k)
		}
	}
}

// checkChained checks that every update of an object written before in the
// same run sent the resourceVersion that write returned, and that some
// update did so if twice is set.
func checkChained(t *testing.T, calls []executetest.Call, twice bool) {
	t.Helper()
	last := map[string]string{}
	chained := 0
	for _, c := range calls {
		kind := "ReplicaSet"
		if strings.Contains(c.Method, "Deployment") {
			kind = "Deployment"
		}
		k := kind + " " + c.Namespace + "/" + c.Name
		if strings.HasPrefix(c.Method, "Update") {
			if v, ok := last[k]; ok {
				chained++
				if c.ResourceVersion != v {
					t.Errorf("%s of %s sent resourceVersion %q, the run's previous write returned %q", c.Method, k, c.ResourceVersion, v)
				}
			}
		}
		if c.Returned != "" && c.Method != "GetDeployment" {
			last[k] = c.Returned
		}
	}
	if twice && chained == 0 {
		t.Errorf("no update followed a write of the same object: %+v", calls)
	}
}

// planObjects are the objects a plan's actions point to.
func planObjects(p deploysync.Plan) []any {
	var out []any
	for _, a := range p.Actions {
		switch a := a.(type) {
		case *action.CreateReplicaSet:
			out = append(out, a.ReplicaSet)
		case *action.UpdateReplicaSet:
			out = append(out, a.ReplicaSet)
		case *action.UpdateDeployment:
			out = append(out, a.Deployment)
		case *action.UpdateDeploymentStatus:
			out = append(out, a.Deployment)
		}
	}
	return out
}

// cached is a fake whose cache holds the given ReplicaSets.
type cached struct {
	*executetest.Fake
	rss []*appsv1.ReplicaSet
}

func (c cached) CachedReplicaSet(_ context.Context, ns, name string) (*appsv1.ReplicaSet, error) {
	for _, rs := range c.rss {
		if rs.Namespace == ns && rs.Name == name {
			return rs, nil
		}
	}
	return nil, apierrors.NewNotFound(appsv1.Resource("replicasets"), name)
}

// TestPlanFaults executes plans on a fake server that fails chosen calls,
// and checks what execute.Plan reports done, failed and not done, whether the
// failed write is unknown, how it asks to requeue, and what the server
// holds after.
func TestPlanFaults(t *testing.T) {
	fault := func(call string, n int, k executetest.Kind) executetest.Fault {
		return executetest.Fault{Call: call, N: n, Kind: k}
	}
	tests := []struct {
		name  string
		state string
		// server changes what the server holds before execute.Plan (nil: as the
		// state); cache, if set, is the client's ReplicaSet cache.
		server  func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (*appsv1.Deployment, []*appsv1.ReplicaSet)
		cache   func(d *appsv1.Deployment) []*appsv1.ReplicaSet
		faults  []executetest.Fault
		done    []string
		failed  string // kind of the failed action; "" none
		notDone []string
		unknown bool
		// tookEffect: the failed write happened (a timeout after it).
		tookEffect bool
		errIs      func(error) bool
		// check inspects the server after execute.Plan.
		check  func(t *testing.T, f *executetest.Fake)
		reason string
	}{
		{
			name: "conflict stops the plan", state: "adopt",
			faults: []executetest.Fault{fault("UpdateReplicaSet", 1, executetest.Conflict)},
			done:   []string{"adopt"}, failed: "update-rs", notDone: []string{"event", "status"},
			errIs:  apierrors.IsConflict,
			check:  calls("GetDeployment", "PatchReplicaSet", "UpdateReplicaSet"),
			reason: "a 409 ends the plan: the adoption stays done, the scale failed, the event and the status are not attempted; the sync is retried rate limited",
		},
		{
			name: "conflict on the Nth write counts every write", state: "rollback",
			faults: []executetest.Fault{fault("", 2, executetest.Conflict)},
			done:   []string{"status"}, failed: "update-d", notDone: []string{"event"},
			errIs:  apierrors.IsConflict,
			reason: "the second write of the plan (the rollback's update after the status write) is refused; the event after it is not recorded",
		},
		{
			name: "500 is unknown", state: "new",
			faults: []executetest.Fault{fault("CreateReplicaSet", 1, executetest.InternalError)},
			done:   []string{"status", "event"}, failed: "create", notDone: []string{"event", "status"}, unknown: true,
			errIs:  apierrors.IsInternalError,
			check:  func(t *testing.T, f *executetest.Fake) { wantReplicaSets(t, f, 0) },
			reason: "an apiserver answers 500 for storage errors whose outcome it does not know: the create is reported unknown (the fake did not write it), not retried; as upstream, the failure goes to the status (Progressing False, ReplicaSetCreateError) and a Warning event, reported done before the plan's own event and status, which are not done",
		},
		{
			name: "timeout after the write", state: "new",
			faults: []executetest.Fault{fault("CreateReplicaSet", 1, executetest.TimeoutAfterWrite)},
			done:   []string{"status", "event"}, failed: "create", notDone: []string{"event", "status"}, unknown: true, tookEffect: true,
			errIs: apierrors.IsTimeout,
			check: func(t *testing.T, f *executetest.Fake) {
				wantReplicaSets(t, f, 1)
				calls("CreateReplicaSet", "UpdateDeploymentStatus")(t, f)
			},
			reason: "the ReplicaSet was created but the answer was a timeout: reported unknown, sent once (a retry would meet AlreadyExists or, for an update, write twice); as upstream, the failure is written to the status (Progressing False, ReplicaSetCreateError)",
		},
		{
			name: "timeout after a status write", state: "adopt",
			faults: []executetest.Fault{fault("UpdateDeploymentStatus", 1, executetest.TimeoutAfterWrite)},
			done:   []string{"adopt", "update-rs", "event"}, failed: "status", unknown: true, tookEffect: true,
			errIs:  apierrors.IsTimeout,
			reason: "the last write's outcome is unknown; nothing is left to do but the requeue",
		},
		{
			name: "delete of a ReplicaSet already gone", state: "cleanup",
			server: without("web-5f477c74b4"),
			done:   []string{"delete"},
			check:  calls("DeleteReplicaSet"),
			reason: "NotFound on a delete means the ReplicaSet is gone: done, as upstream",
		},
		{
			name: "release NotFound", state: "release",
			server: without("web-5f477c74b4"),
			done:   []string{"release"},
			check:  calls("PatchReplicaSet"),
			reason: "a ReplicaSet gone before its release needs no release: done, as upstream",
		},
		{
			name: "update NotFound", state: "adopt",
			faults: []executetest.Fault{fault("UpdateReplicaSet", 1, executetest.NotFound)},
			done:   []string{"adopt"}, failed: "update-rs", notDone: []string{"event", "status"},
			errIs:  apierrors.IsNotFound,
			reason: "a scale of a ReplicaSet that is gone fails the plan, a refusal the server answered: not unknown",
		},
		{
			name: "adoption refused: the Deployment has another UID", state: "adopt",
			server: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (*appsv1.Deployment, []*appsv1.ReplicaSet) {
				d = d.DeepCopy()
				d.UID = "recreated"
				return d, rss
			},
			failed: "adopt", notDone: []string{"update-rs", "event", "status"},
			errIs:  func(err error) bool { return errors.Is(err, execute.ErrAdoptionRefused) },
			check:  calls("GetDeployment"),
			reason: "the fresh read shows a Deployment recreated under the same name: no patch is sent",
		},
		{
			name: "adoption refused: the Deployment is being deleted", state: "adopt",
			server: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (*appsv1.Deployment, []*appsv1.ReplicaSet) {
				d = d.DeepCopy()
				d.DeletionTimestamp = ptr.To(metav1.NewTime(exNow))
				return d, rss
			},
			failed: "adopt", notDone: []string{"update-rs", "event", "status"},
			errIs:  func(err error) bool { return errors.Is(err, execute.ErrAdoptionRefused) },
			check:  calls("GetDeployment"),
			reason: "the fresh read shows the Deployment being deleted (the cache did not yet): no patch is sent",
		},
		{
			name: "adoption refused: the fresh read fails", state: "adopt",
			faults: []executetest.Fault{fault("GetDeployment", 1, executetest.InternalError)},
			failed: "adopt", notDone: []string{"update-rs", "event", "status"},
			errIs: func(err error) bool {
				return errors.Is(err, execute.ErrAdoptionRefused) && apierrors.IsInternalError(err)
			},
			check:  calls("GetDeployment"),
			reason: "without a fresh read the precondition is unknown: refused, and no write is unknown since none was sent",
		},
		{
			name: "AlreadyExists: ours, in the cache", state: "new",
			server: withNew, cache: func(d *appsv1.Deployment) []*appsv1.ReplicaSet { return []*appsv1.ReplicaSet{newOf(d)} },
			failed: "create", notDone: []string{"event", "status"},
			errIs: func(err error) bool {
				return errors.Is(err, execute.ErrStalePlan) && !apierrors.IsAlreadyExists(err)
			},
			check:  calls("CreateReplicaSet"),
			reason: "ResolveAlreadyExists: the cache shows the Deployment's own ReplicaSet with its template; the rest of the plan announces a creation that did not happen: stop, requeue",
		},
		{
			name: "AlreadyExists: a collision, in the cache", state: "new",
			server: withNew,
			cache: func(d *appsv1.Deployment) []*appsv1.ReplicaSet {
				rs := newOf(d)
				rs.OwnerReferences = nil
				return []*appsv1.ReplicaSet{rs}
			},
			done: []string{"status"}, failed: "create", notDone: []string{"event", "status"},
			errIs: func(err error) bool {
				var c *deploysync.HashCollisionError
				return errors.As(err, &c) && c.CollisionCount == 1
			},
			check: func(t *testing.T, f *executetest.Fake) {
				if c := f.State("ns", "web").Deployment.Status.CollisionCount; c == nil || *c != 1 {
					t.Errorf("server's collisionCount = %v, want 1", c)
				}
				calls("CreateReplicaSet", "UpdateDeploymentStatus")(t, f)
			},
			reason: "ResolveAlreadyExists: the cache shows an orphan by that name: a hash collision, collisionCount raised to 1 with a status write, the plan's own status write not sent",
		},
		{
			name: "AlreadyExists: not in the state, no cache", state: "new",
			server: withNew,
			failed: "create", notDone: []string{"event", "status"},
			errIs:  apierrors.IsAlreadyExists,
			check:  calls("CreateReplicaSet"),
			reason: "the state the plan was made from does not hold the ReplicaSet (Sync would have answered from it): nothing is decided, the next sync's state holds it",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			s, p := exPlan(t, tt.state)
			p.RequeueAfter = 7 * time.Second
			d, rss := s.Deployment, s.ReplicaSets
			if tt.server != nil {
				d, rss = tt.server(d, rss)
			}
			f := executetest.New([]*appsv1.Deployment{d}, rss, tt.faults...)
			var c execute.Client = f
			if tt.cache != nil {
				c = cached{f, tt.cache(s.Deployment)}
			}
			res, err := execute.Plan(context.Background(), c, s, p)
			if got := exKinds(res.Done); !cmp.Equal(got, append([]string{}, tt.done...)) {
				t.Errorf("done = %v, want %v (%s)", got, tt.done, tt.reason)
			}
			if got := exKinds(res.NotDone); !cmp.Equal(got, append([]string{}, tt.notDone...)) {
				t.Errorf("not done = %v, want %v (%s)", got, tt.notDone, tt.reason)
			}
			if tt.failed == "" {
				if err != nil || res.Failed != nil {
					t.Fatalf("execute.Plan: %v (failed %v), want success (%s)", err, res.Failed, tt.reason)
				}
				if res.Requeue || res.RequeueAfter != 7*time.Second {
					t.Errorf("requeue %v after %v, want the plan's 7s", res.Requeue, res.RequeueAfter)
				}
				want, aerr := deploysync.Apply(s, p)
				require.NoError(t, aerr, "Apply")
				if tt.server != nil {
					// The server did not hold the state: Apply's world is
					// not its world. The world minus the missing object is.
					want.Deployment, want.ReplicaSets = tt.server(want.Deployment, want.ReplicaSets)
				}
				if diff := cmp.Diff(exWorld(want, nil), exWorld(f.State("ns", "web"), nil)); diff != "" {
					t.Errorf("fake's world differs from Apply's (-Apply +fake):\n%s", diff)
				}
			} else {
				if got := exKinds([]action.Action{res.Failed}); res.Failed == nil || got[0] != tt.failed {
					t.Errorf("failed = %v, want %s (%s)", res.Failed, tt.failed, tt.reason)
				}
				if err == nil || !tt.errIs(err) {
					t.Errorf("execute.Plan error = %v, not the one wanted (%s)", err, tt.reason)
				}
				if !res.Requeue || res.RequeueAfter != 0 {
					t.Errorf("requeue %v after %v, want rate limited only", res.Requeue, res.RequeueAfter)
				}
				if tt.server == nil {
					// What execute.Plan reports done (plus the write that took
					// effect unbeknownst) is what the server did.
					applied := res.Done
					if tt.tookEffect {
						applied = append(applied[:len(applied):len(applied)], res.Failed)
					}
					want, aerr := deploysync.Apply(s, deploysync.Plan{Actions: applied})
					require.NoError(t, aerr, "Apply of the done actions")
					created := map[string]bool{}
					for _, a := range applied {
						if c, ok := a.(*action.CreateReplicaSet); ok {
							created[c.ReplicaSet.Name] = true
						}
					}
					if diff := cmp.Diff(exWorld(want, created), exWorld(f.State("ns", "web"), created)); diff != "" {
						t.Errorf("the server differs from Apply of what execute.Plan reports done (-Apply +fake):\n%s", diff)
					}
				}
			}
			if res.Unknown != tt.unknown {
				t.Errorf("unknown = %v, want %v (%s)", res.Unknown, tt.unknown, tt.reason)
			}
			var ae *execute.ActionError
			if errors.As(err, &ae) && ae.Unknown != tt.unknown {
				t.Errorf("ActionError.Unknown = %v, want %v", ae.Unknown, tt.unknown)
			}
			if tt.check != nil {
				tt.check(t, f)
			}
		})
	}
}

// without removes the named ReplicaSet from the server.
func without(name string) func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (*appsv1.Deployment, []*appsv1.ReplicaSet) {
	return func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (*appsv1.Deployment, []*appsv1.ReplicaSet) {
		var out []*appsv1.ReplicaSet
		for _, rs := range rss {
			if rs.Name != name {
				out = append(out, rs)
			}
		}
		return d, out
	}
}

// withNew puts the Deployment's new ReplicaSet on the server only.
func withNew(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (*appsv1.Deployment, []*appsv1.ReplicaSet) {
	return d, append(rss[:len(rss):len(rss)], newOf(d))
}

// newOf is the ReplicaSet Sync creates for d (its name and template).
func newOf(d *appsv1.Deployment) *appsv1.ReplicaSet {
	p, err := deploysync.Sync(deploysync.State{Deployment: d, Now: exNow})
	if err != nil {
		panic(err)
	}
	return p.Actions[0].(*action.CreateReplicaSet).ReplicaSet.DeepCopy()
}

// calls checks that the server received exactly these calls other than
// events, in order.
func calls(want ...string) func(t *testing.T, f *executetest.Fake) {
	return func(t *testing.T, f *executetest.Fake) {
		t.Helper()
		var got []string
		for _, c := range f.Calls() {
			if c.Method != "Event" {
				got = append(got, c.Method)
			}
		}
		if !cmp.Equal(got, want) {
			t.Errorf("calls = %v, want %v", got, want)
		}
	}
}

func wantReplicaSets(t *testing.T, f *executetest.Fake, n int) {
	t.Helper()
	if got := len(f.State("ns", "web").ReplicaSets); got != n {
		t.Errorf("the server holds %d ReplicaSets, want %d", got, n)
	}
}

// TestPlanOutcomes checks how the plan's own requeue and error come
// back once all its actions are done.
func TestPlanOutcomes(t *testing.T) {
	collision := func() (deploysync.State, deploysync.Plan) {
		d := exDeployment()
		taken := newOf(d)
		taken.UID, taken.OwnerReferences = "foreign", nil
		taken.Labels = map[string]string{"app": "foreign"}
		taken.Spec.Template.Spec.Containers[0].Image = "other"
		s := deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{taken}, Now: exNow}
		p, err := deploysync.Sync(s)
		if err != nil || p.Err == nil {
			t.Fatalf("Sync = %v, %v; want a plan with a collision", p, err)
		}
		return s, p
	}
	tests := []struct {
		name    string
		plan    func() (deploysync.State, deploysync.Plan)
		requeue bool
		after   time.Duration
		errIs   func(error) bool
		check   func(t *testing.T, f *executetest.Fake)
		reason  string
	}{
		{
			name: "plan Err", plan: collision, requeue: true,
			errIs: func(err error) bool { var c *deploysync.HashCollisionError; return errors.As(err, &c) },
			check: func(t *testing.T, f *executetest.Fake) {
				if c := f.State("ns", "web").Deployment.Status.CollisionCount; c == nil || *c != 1 {
					t.Errorf("collisionCount = %v, want 1: the plan's status write comes before its Err", c)
				}
			},
			reason: "Sync saw the collision in its state: the status write raising collisionCount is done, then the plan's Err is returned with a rate-limited requeue",
		},
		{
			name: "plan Requeue", requeue: true,
			plan: func() (deploysync.State, deploysync.Plan) {
				s, p := exPlan(t, "cleanup")
				p.Requeue = true
				return s, p
			},
			reason: "the progress deadline less than a second away: a rate-limited requeue, no error",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			s, p := tt.plan()
			f := exFake(s)
			res, err := execute.Plan(context.Background(), f, s, p)
			if tt.errIs == nil && err != nil || tt.errIs != nil && !tt.errIs(err) {
				t.Errorf("execute.Plan error = %v (%s)", err, tt.reason)
			}
			if len(res.Done) != len(p.Actions) || res.Failed != nil || len(res.NotDone) != 0 {
				t.Errorf("done %v, failed %v, not done %v: want every action done", exKinds(res.Done), res.Failed, exKinds(res.NotDone))
			}
			if res.Requeue != tt.requeue || res.RequeueAfter != tt.after {
				t.Errorf("requeue %v after %v, want %v after %v (%s)", res.Requeue, res.RequeueAfter, tt.requeue, tt.after, tt.reason)
			}
			want, aerr := deploysync.Apply(s, p)
			require.NoError(t, aerr, "Apply")
			if diff := cmp.Diff(exWorld(want, nil), exWorld(f.State("ns", "web"), nil)); diff != "" {
				t.Errorf("fake's world differs from Apply's (-Apply +fake):\n%s", diff)
			}
			if tt.check != nil {
				tt.check(t, f)
			}
		})
	}
}

// failing is a fake whose ReplicaSet updates fail with err.
type failing struct {
	*executetest.Fake
	err error
}

func (f failing) UpdateReplicaSet(context.Context, *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	return nil, f.err
}

// TestPlanUnknownOutcomes checks which write errors execute.Plan reports as
// unknown (the write may have happened) and which as refused.
func TestPlanUnknownOutcomes(t *testing.T) {
	gr := appsv1.Resource("replicasets")
	tests := []struct {
		name    string
		err     error
		unknown bool
		reason  string
	}{
		{"connection reset", errors.New("read tcp: connection reset by peer"), true, "no answer from the server: the request may have been served"},
		{"client deadline", context.DeadlineExceeded, true, "the client gave up waiting; the server may have written"},
		{"gateway timeout", apierrors.NewTimeoutError("timeout", 0), true, "504: the apiserver's storage did not answer in time"},
		{"server timeout", apierrors.NewServerTimeout(gr, "update", 0), true, "500 ServerTimeout"},
		{"unavailable", apierrors.NewServiceUnavailable("down"), true, "a 5xx says nothing certain of the write"},
		{"forbidden", apierrors.NewForbidden(gr, "x", errors.New("no")), false, "403: refused before anything was written"},
		{"too many requests", apierrors.NewTooManyRequests("slow down", 1), false, "429: refused by priority and fairness before the handler ran"},
		{"conflict", apierrors.NewConflict(gr, "x", errors.New("modified")), false, "409: the precondition failed, nothing written"},
		{"request timeout", &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 408, Reason: metav1.StatusReasonTimeout}}, true, "408 is a timeout too"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, p := exPlan(t, "adopt")
			f := failing{exFake(s), tt.err}
			res, err := execute.Plan(context.Background(), f, s, p)
			var ae *execute.ActionError
			if !errors.As(err, &ae) || !errors.Is(err, tt.err) {
				t.Fatalf("execute.Plan error = %v, want an ActionError wrapping %v", err, tt.err)
			}
			if res.Unknown != tt.unknown || ae.Unknown != tt.unknown {
				t.Errorf("unknown = %v (ActionError %v), want %v (%s)", res.Unknown, ae.Unknown, tt.unknown, tt.reason)
			}
			if got := exKinds([]action.Action{res.Failed}); got[0] != "update-rs" || !res.Requeue {
				t.Errorf("failed %v, requeue %v; want the update, rate limited", got, res.Requeue)
			}
		})
	}
}
