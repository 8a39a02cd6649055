package applier

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/execute"
)

// TestApplyMatchesInMemoryApply applies real plans of deploysync.Sync to a
// fake server that keeps resourceVersions strictly, and checks that the
// server ends where deploysync.Apply says the plan leads, with the plan's
// events recorded. Together the rows use every kind of action.
func TestApplyMatchesInMemoryApply(t *testing.T) {
	tests := []struct {
		name   string
		state  func() deploysync.State
		want   []string // the plan's action kinds, in order
		reason string
	}{
		{
			name: "new Deployment",
			state: func() deploysync.State {
				return deploysync.State{Deployment: deployment()}
			},
			want:   []string{"create", "event", "status"},
			reason: "no ReplicaSet: create the new one at full size, record revision 1 and the status",
		},
		{
			name: "adopt an orphan, then scale it",
			state: func() deploysync.State {
				d := deployment()
				return deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{replicaSet(d, "nginx:1", 1, "", orphan)}}
			},
			want:   []string{"adopt", "update-rs", "event", "status"},
			reason: "the orphan's labels match: adopt it (a patch), then scale it with an update of the same object, which must carry the patch's resourceVersion",
		},
		{
			name: "release a ReplicaSet whose labels changed",
			state: func() deploysync.State {
				d := deployment(complete)
				cur := replicaSet(d, "nginx:1", 3, "2")
				stray := replicaSet(d, "nginx:0", 0, "1", func(rs *appsv1.ReplicaSet) { rs.Labels = map[string]string{"app": "other"} })
				return deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{cur, stray}}
			},
			want:   []string{"release"},
			reason: "a controlled ReplicaSet no longer matching the selector is released with a patch",
		},
		{
			name: "rollback through the deprecated annotation",
			state: func() deploysync.State {
				d := deployment(func(d *appsv1.Deployment) {
					d.Spec.Template = template("nginx:2")
					d.Annotations = map[string]string{deployutil.RevisionAnnotation: "2", deployutil.RollbackToAnnotation: "0"}
				})
				return deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{
					replicaSet(d, "nginx:1", 0, "1"), replicaSet(d, "nginx:2", 3, "2"),
				}}
			},
			want:   []string{"status", "update-d", "event"},
			reason: "a status write (Found new replica set) then the rollback's update of the same Deployment, which must carry the status write's resourceVersion",
		},
		{
			name: "history cleanup",
			state: func() deploysync.State {
				d := deployment(complete, func(d *appsv1.Deployment) { d.Spec.RevisionHistoryLimit = ptr.To[int32](0) })
				return deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{
					replicaSet(d, "nginx:0", 0, "1"), replicaSet(d, "nginx:1", 3, "2"),
				}}
			},
			want:   []string{"delete"},
			reason: "a complete rollout with revisionHistoryLimit 0 deletes its scaled-down old ReplicaSet",
		},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			st := tt.state()
			st.Now = now
			srv := newStrictServer(objects(st)...)
			plan, err := deploysync.Sync(st)
			if err != nil {
				t.Fatalf("Sync: %v", err)
			}
			if got := kinds(plan); !cmp.Equal(got, tt.want) {
				t.Fatalf("plan kinds = %v, want %v (%s)\n%s", got, tt.want, tt.reason, plan)
			}
			for _, k := range kinds(plan) {
				seen[k] = true
			}
			wantState, err := deploysync.Apply(st, plan)
			if err != nil {
				t.Fatalf("deploysync.Apply: %v", err)
			}

			rec := record.NewFakeRecorder(10)
			a := &Applier{Client: srv.cs, Recorder: rec}
			if err := apply(a, st.Deployment, plan); err != nil {
				t.Fatalf("Apply: %v (%s)", err, tt.reason)
			}
			if diff := cmp.Diff(summarize(wantState), serverState(t, srv)); diff != "" {
				t.Errorf("server state differs from deploysync.Apply (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(planEvents(plan), recorded(rec)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
	for _, k := range []string{"create", "update-rs", "delete", "adopt", "release", "update-d", "status", "event"} {
		if !seen[k] {
			t.Errorf("no row applies an action of kind %q", k)
		}
	}
}

// TestAdoptionPrecondition checks that an adoption is sent only when the
// Deployment read fresh from the server is the owner and not being deleted.
func TestAdoptionPrecondition(t *testing.T) {
	tests := []struct {
		name    string
		server  func(d *appsv1.Deployment) *appsv1.Deployment // the Deployment the server holds; nil: none
		refused bool
		reason  string
	}{
		{name: "same Deployment", server: func(d *appsv1.Deployment) *appsv1.Deployment { return d },
			reason: "the cache and the server agree: adopt"},
		{name: "recreated under the same name", server: func(d *appsv1.Deployment) *appsv1.Deployment {
			d = d.DeepCopy()
			d.UID = "another-uid"
			return d
		}, refused: true, reason: "the cached Deployment was deleted and another took its name: it must not adopt for the old one"},
		{name: "being deleted", server: func(d *appsv1.Deployment) *appsv1.Deployment {
			d = d.DeepCopy()
			d.DeletionTimestamp = ptr.To(metav1.NewTime(now))
			d.Finalizers = []string{"example.com/hold"}
			return d
		}, refused: true, reason: "a Deployment being deleted adopts nothing (its ReplicaSets would be collected)"},
		{name: "gone", server: func(*appsv1.Deployment) *appsv1.Deployment { return nil },
			refused: true, reason: "the Deployment is gone from the server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d := deployment()
			rs := replicaSet(d, "nginx:1", 1, "", orphan)
			plan, err := deploysync.Sync(deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{rs}, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			objs := []runtime.Object{rs.DeepCopy()}
			if sd := tt.server(d.DeepCopy()); sd != nil {
				objs = append(objs, sd)
			}
			srv := newStrictServer(objs...)
			err = apply(&Applier{Client: srv.cs, Recorder: record.NewFakeRecorder(10)}, d, plan)
			patched := countVerb(srv.cs.Actions(), "patch")
			if tt.refused {
				if !errors.Is(err, execute.ErrAdoptionRefused) {
					t.Errorf("Apply error = %v, want execute.ErrAdoptionRefused (%s)", err, tt.reason)
				}
				if patched != 0 {
					t.Errorf("%d patches sent, want none (%s)", patched, tt.reason)
				}
				return
			}
			if err != nil || patched != 1 {
				t.Errorf("Apply error = %v with %d patches, want nil and 1 (%s)", err, patched, tt.reason)
			}
		})
	}
}

// TestCreateAlreadyExists checks both answers to a create whose name is
// taken on the server but not in the state the plan was made from.
func TestCreateAlreadyExists(t *testing.T) {
	tests := []struct {
		name      string
		existing  func(planned *appsv1.ReplicaSet) *appsv1.ReplicaSet
		collision bool
		reason    string
	}{
		{name: "ours", existing: func(planned *appsv1.ReplicaSet) *appsv1.ReplicaSet { return planned },
			reason: "our own ReplicaSet with our template (an earlier sync created it; the cache lags): stop the stale plan and requeue"},
		{name: "foreign", existing: func(planned *appsv1.ReplicaSet) *appsv1.ReplicaSet {
			rs := planned.DeepCopy()
			rs.OwnerReferences = nil
			rs.Spec.Template.Spec.Containers[0].Image = "other"
			return rs
		}, collision: true, reason: "not ours and another template: a hash collision, collisionCount 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d := deployment()
			plan, err := deploysync.Sync(deploysync.State{Deployment: d, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			planned := plan.Actions[0].(*action.CreateReplicaSet).ReplicaSet
			srv := newStrictServer(d.DeepCopy(), tt.existing(planned).DeepCopy())
			rec := record.NewFakeRecorder(10)
			// The cache reads the server: it holds the ReplicaSet.
			fromServer := func(ctx context.Context, namespace, name string) (*appsv1.ReplicaSet, error) {
				return srv.cs.AppsV1().ReplicaSets(namespace).Get(ctx, name, metav1.GetOptions{})
			}
			err = apply(WithCache(&Applier{Client: srv.cs, Recorder: rec}, fromServer), d, plan)
			got, gerr := srv.cs.AppsV1().Deployments(ns).Get(context.Background(), d.Name, metav1.GetOptions{})
			if gerr != nil {
				t.Fatal(gerr)
			}
			var collision *deploysync.HashCollisionError
			if tt.collision {
				if !errors.As(err, &collision) || collision.CollisionCount != 1 {
					t.Fatalf("Apply error = %v, want a HashCollisionError with collisionCount 1 (%s)", err, tt.reason)
				}
				if got.Status.CollisionCount == nil || *got.Status.CollisionCount != 1 {
					t.Errorf("server collisionCount = %v, want 1 (%s)", got.Status.CollisionCount, tt.reason)
				}
				if len(rec.Events) != 0 {
					t.Errorf("%d events recorded, want none: the plan stops at the collision", len(rec.Events))
				}
				return
			}
			if !errors.Is(err, execute.ErrStalePlan) {
				t.Fatalf("Apply error = %v, want execute.ErrStalePlan (%s)", err, tt.reason)
			}
			if got.Annotations[deployutil.RevisionAnnotation] != "" || got.Status.CollisionCount != nil || len(rec.Events) != 0 {
				t.Errorf("server Deployment revision %q collisionCount %v, %d events: the stale rest of the plan was applied",
					got.Annotations[deployutil.RevisionAnnotation], got.Status.CollisionCount, len(rec.Events))
			}
		})
	}
}

// TestCreateAlreadyExistsFromCache checks that with WithCache a taken name
// is answered from the cache, as upstream answers it from its lister,
// whatever the server holds: the server here always holds the ReplicaSet
// released (no owner, labels out of the selector), and the cache decides.
func TestCreateAlreadyExistsFromCache(t *testing.T) {
	tests := []struct {
		name string
		// cached is the cache's version of the server's ReplicaSet; nil
		// when the cache does not hold it yet.
		cached func(released *appsv1.ReplicaSet) *appsv1.ReplicaSet
		want   string // "stale", "collision" or "notfound"
		reason string
	}{
		{name: "cache still shows it owned", cached: func(released *appsv1.ReplicaSet) *appsv1.ReplicaSet {
			rs := released.DeepCopy()
			rs.OwnerReferences = []metav1.OwnerReference{deployutil.ControllerRef(deployment())}
			return rs
		}, want: "stale", reason: "upstream's lister has not delivered the release: the Deployment's own ReplicaSet with its template, no collision"},
		{name: "cache has the release", cached: func(released *appsv1.ReplicaSet) *appsv1.ReplicaSet { return released.DeepCopy() },
			want: "collision", reason: "upstream's lister shows it released: not the Deployment's, a hash collision, collisionCount 1"},
		{name: "cache does not hold it", cached: func(*appsv1.ReplicaSet) *appsv1.ReplicaSet { return nil },
			want: "notfound", reason: "upstream's lister Get fails with NotFound: the sync fails with nothing decided and no status write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			d := deployment()
			plan, err := deploysync.Sync(deploysync.State{Deployment: d, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			released := plan.Actions[0].(*action.CreateReplicaSet).ReplicaSet.DeepCopy()
			released.OwnerReferences = nil
			released.Labels = map[string]string{"app": "released"}
			srv := newStrictServer(d.DeepCopy(), released.DeepCopy())
			cached := tt.cached(released)
			reads := 0
			lookup := func(_ context.Context, namespace, name string) (*appsv1.ReplicaSet, error) {
				reads++
				if cached == nil || namespace != cached.Namespace || name != cached.Name {
					return nil, apierrors.NewNotFound(schema.GroupResource{Group: "apps", Resource: "replicaset"}, name)
				}
				return cached, nil
			}
			rec := record.NewFakeRecorder(10)
			err = apply(WithCache(&Applier{Client: srv.cs, Recorder: rec}, lookup), d, plan)
			got, gerr := srv.cs.AppsV1().Deployments(ns).Get(context.Background(), d.Name, metav1.GetOptions{})
			if gerr != nil {
				t.Fatal(gerr)
			}
			if reads != 1 {
				t.Errorf("the cache was read %d times, want once (%s)", reads, tt.reason)
			}
			if len(rec.Events) != 0 {
				t.Errorf("%d events recorded, want none: the plan stops at the create (%s)", len(rec.Events), tt.reason)
			}
			var collision *deploysync.HashCollisionError
			switch tt.want {
			case "stale":
				if !errors.Is(err, execute.ErrStalePlan) {
					t.Errorf("Apply error = %v, want execute.ErrStalePlan (%s)", err, tt.reason)
				}
			case "collision":
				if !errors.As(err, &collision) || collision.CollisionCount != 1 {
					t.Errorf("Apply error = %v, want a HashCollisionError with collisionCount 1 (%s)", err, tt.reason)
				}
			case "notfound":
				if !apierrors.IsAlreadyExists(err) || errors.Is(err, execute.ErrStalePlan) || errors.As(err, &collision) {
					t.Errorf("Apply error = %v, want the create's AlreadyExists, neither stale plan nor collision (%s)", err, tt.reason)
				}
			}
			wantCount := map[bool]string{true: "1", false: "nil"}[tt.want == "collision"]
			if gotCount := ptrString(got.Status.CollisionCount); gotCount != wantCount {
				t.Errorf("server collisionCount = %s, want %s (%s)", gotCount, wantCount, tt.reason)
			}
		})
	}
}

func ptrString(p *int32) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

// TestConflictStopsThePlan checks that a 409 stops the plan at the failing
// action and comes back as a conflict the caller requeues.
func TestConflictStopsThePlan(t *testing.T) {
	d := deployment()
	rs := replicaSet(d, "nginx:1", 1, "", orphan)
	st := deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{rs}, Now: now}
	srv := newStrictServer(objects(st)...)
	plan, err := deploysync.Sync(st)
	if err != nil {
		t.Fatal(err)
	}
	srv.cs.PrependReactor("update", "replicasets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "replicasets"}, rs.Name, errors.New("modified"))
	})
	rec := record.NewFakeRecorder(10)
	err = apply(&Applier{Client: srv.cs, Recorder: rec}, d, plan)
	var ae *execute.ActionError
	if !apierrors.IsConflict(err) || !errors.As(err, &ae) || ae.Index != 1 {
		t.Fatalf("Apply error = %v, want a conflict at action 1 (the update after the adoption)", err)
	}
	if n := countVerb(srv.cs.Actions(), "update"); n != 1 {
		t.Errorf("%d updates sent, want 1: the status update after the failed scale must not be sent", n)
	}
	if len(rec.Events) != 0 {
		t.Errorf("%d events recorded, want none: the event follows the failed action", len(rec.Events))
	}
}

// TestReleaseIgnoresGoneAndInvalid checks that a release answered NotFound
// or Invalid is not a failure, and that other failures are.
func TestReleaseIgnoresGoneAndInvalid(t *testing.T) {
	gr := schema.GroupResource{Group: "apps", Resource: "replicasets"}
	tests := []struct {
		name   string
		answer error
		fail   bool
		reason string
	}{
		{name: "not found", answer: apierrors.NewNotFound(gr, "x"), reason: "the ReplicaSet is gone: nothing to release"},
		{name: "invalid", answer: apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}, "x", nil),
			reason: "the uid precondition of the patch failed: it is another object now"},
		{name: "forbidden", answer: apierrors.NewForbidden(gr, "x", errors.New("no")), fail: true,
			reason: "any other answer is a failure to retry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			srv := newStrictServer()
			srv.cs.PrependReactor("patch", "replicasets", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, tt.answer
			})
			plan := deploysync.Plan{Actions: []action.Action{&action.ReleaseReplicaSet{Namespace: ns, Name: "x", UID: "x",
				OwnerUID: "d-uid", Patch: []byte(`{"metadata":{"uid":"x","ownerReferences":[{"$patch":"delete","uid":"d-uid"}]}}`)}}}
			err := apply(&Applier{Client: srv.cs, Recorder: record.NewFakeRecorder(1)}, deployment(), plan)
			if (err != nil) != tt.fail {
				t.Errorf("Apply error = %v, want failure %v (%s)", err, tt.fail, tt.reason)
			}
		})
	}
}

// TestPlanErrIsReturned checks that a plan's Err comes back after its
// actions were applied (a collision Sync saw in its state).
func TestPlanErrIsReturned(t *testing.T) {
	d := deployment()
	first, err := deploysync.Sync(deploysync.State{Deployment: d, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	foreign := first.Actions[0].(*action.CreateReplicaSet).ReplicaSet.DeepCopy()
	foreign.UID, foreign.OwnerReferences = "foreign", nil
	foreign.Labels = map[string]string{"app": "foreign"}
	foreign.Spec.Template.Spec.Containers[0].Image = "other"
	st := deploysync.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{foreign}, Now: now}
	srv := newStrictServer(objects(st)...)
	plan, err := deploysync.Sync(st)
	if err != nil || plan.Err == nil {
		t.Fatalf("Sync = %v, %v; want a plan with a collision", plan, err)
	}
	err = apply(&Applier{Client: srv.cs, Recorder: record.NewFakeRecorder(1)}, d, plan)
	var collision *deploysync.HashCollisionError
	if !errors.As(err, &collision) {
		t.Fatalf("Apply error = %v, want the plan's HashCollisionError", err)
	}
	got, _ := srv.cs.AppsV1().Deployments(ns).Get(context.Background(), d.Name, metav1.GetOptions{})
	if got.Status.CollisionCount == nil || *got.Status.CollisionCount != 1 {
		t.Errorf("collisionCount = %v, want 1: the plan's status write is applied before its Err is returned", got.Status.CollisionCount)
	}
}

// --- helpers ---

// apply performs the plan made for d with execute.Plan through c.
func apply(c execute.Client, d *appsv1.Deployment, plan deploysync.Plan) error {
	_, err := execute.Plan(context.Background(), c, deploysync.State{Deployment: d}, plan)
	return err
}

func kinds(p deploysync.Plan) []string {
	var out []string
	for _, a := range p.Actions {
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
		}
	}
	return out
}

// objects are the state's objects, to be stored by newStrictServer (which
// gives them their resourceVersions in place).
func objects(st deploysync.State) []runtime.Object {
	out := []runtime.Object{st.Deployment}
	for _, rs := range st.ReplicaSets {
		out = append(out, rs)
	}
	return out
}

// world is what the comparison looks at: the fields a plan writes.
type world struct {
	DeploymentAnnotations map[string]string
	DeploymentImage       string
	Status                appsv1.DeploymentStatus
	ReplicaSets           []rsSummary
}

type rsSummary struct {
	Name        string
	Replicas    int32
	Annotations map[string]string
	Controller  string
	Labels      map[string]string
}

func summarize(st deploysync.State) world {
	w := world{
		DeploymentAnnotations: st.Deployment.Annotations,
		DeploymentImage:       st.Deployment.Spec.Template.Spec.Containers[0].Image,
		Status:                st.Deployment.Status,
	}
	for _, rs := range st.ReplicaSets {
		s := rsSummary{Name: rs.Name, Replicas: *rs.Spec.Replicas, Annotations: rs.Annotations, Labels: rs.Labels}
		if ref := metav1.GetControllerOfNoCopy(rs); ref != nil {
			s.Controller = string(ref.UID)
		}
		w.ReplicaSets = append(w.ReplicaSets, s)
	}
	sort.Slice(w.ReplicaSets, func(i, j int) bool { return w.ReplicaSets[i].Name < w.ReplicaSets[j].Name })
	return w
}

func serverState(t *testing.T, srv *strictServer) world {
	t.Helper()
	ctx := context.Background()
	ds, err := srv.cs.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(ds.Items) != 1 {
		t.Fatalf("listing deployments: %v (%d)", err, len(ds.Items))
	}
	rsl, err := srv.cs.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := deploysync.State{Deployment: &ds.Items[0]}
	for i := range rsl.Items {
		st.ReplicaSets = append(st.ReplicaSets, &rsl.Items[i])
	}
	return summarize(st)
}

func planEvents(p deploysync.Plan) []string {
	var out []string
	for _, a := range p.Actions {
		if e, ok := a.(*action.Event); ok {
			out = append(out, fmt.Sprintf("%s %s %s", e.Type, e.Reason, e.Message))
		}
	}
	return out
}

func recorded(rec *record.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-rec.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func countVerb(actions []k8stesting.Action, verb string) int {
	n := 0
	for _, a := range actions {
		if a.GetVerb() == verb {
			n++
		}
	}
	return n
}
