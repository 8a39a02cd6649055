package deploysync

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/facts"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// The merge's inputs: a Deployment as read, a ReplicaSet it owns, an orphan
// it may adopt and one it owns and may release.
func mergeDeployment0() *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "web-uid", Generation: 5,
			Annotations: map[string]string{deployutil.RevisionAnnotation: "1", deployutil.RollbackToAnnotation: "0", "team": "a"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1"}}},
			},
		},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 4, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3},
	}
}

func mergeReplicaSet0(d *appsv1.Deployment, name string, replicas int32, owned bool) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: d.Namespace, UID: types.UID(name + "-uid"),
			Labels: map[string]string{"app": "web"}, Annotations: map[string]string{deployutil.RevisionAnnotation: "1"}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(replicas), Selector: d.Spec.Selector.DeepCopy(), Template: *d.Spec.Template.DeepCopy()},
	}
	if owned {
		rs.OwnerReferences = []metav1.OwnerReference{deployutil.ControllerRef(d)}
	}
	return rs
}

// TestMerge drives the session's recorders as the sync does and checks the
// actions merge folds the log into, against the rule in merge.go.
func TestMerge(t *testing.T) {
	// with returns a copy of rs changed by f: what a decision sends.
	with := func(rs *appsv1.ReplicaSet, f func(*appsv1.ReplicaSet)) *appsv1.ReplicaSet {
		c := rs.DeepCopy()
		f(c)
		return c
	}
	withD := func(d *appsv1.Deployment, f func(*appsv1.Deployment)) *appsv1.Deployment {
		c := d.DeepCopy()
		f(c)
		return c
	}
	replicas := func(n int32) func(*appsv1.ReplicaSet) {
		return func(rs *appsv1.ReplicaSet) { rs.Spec.Replicas = ptr.To(n) }
	}
	annotate := func(k, v string) func(*appsv1.ReplicaSet) {
		return func(rs *appsv1.ReplicaSet) { rs.Annotations[k] = v }
	}
	ev := func(msg string) *action.Event {
		return &action.Event{Type: corev1.EventTypeNormal, Reason: "R", Message: msg, Why: why("why " + msg)}
	}
	record := func(s *session, e *action.Event) { s.event(e.Type, e.Reason, e.Message, e.Why...) }

	d := mergeDeployment0()
	a := mergeReplicaSet0(d, "web-a", 3, true)
	orphan := mergeReplicaSet0(d, "web-o", 1, false)
	mine := mergeReplicaSet0(d, "web-m", 1, true)
	created := mergeReplicaSet0(d, "web-new", 0, true)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cond := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "R",
		LastUpdateTime: metav1.NewTime(now), LastTransitionTime: metav1.NewTime(now)}

	tests := []struct {
		name   string
		reason string
		log    func(s *session)
		want   []action.Action
	}{
		{
			name:   "empty log",
			reason: "a sync that writes nothing and emits nothing has no actions",
			log:    func(*session) {},
			want:   nil,
		},
		{
			name:   "one update",
			reason: "an update of a ReplicaSet as read is one UpdateReplicaSet with the change, at its own position",
			log: func(s *session) {
				record(s, ev("e1"))
				s.writeRS(a, with(a, replicas(2)), why("scale down"))
			},
			want: []action.Action{ev("e1"), &action.UpdateReplicaSet{ReplicaSet: with(a, replicas(2)), Why: why("scale down")}},
		},
		{
			name: "two updates of one ReplicaSet",
			reason: "the second update is based on what the first sent: one UpdateReplicaSet at the second's position carries both changes " +
				"and both reasons in order; the event between them stays where it was",
			log: func(s *session) {
				a1 := with(a, replicas(2))
				s.writeRS(a, a1, why("scale down"))
				record(s, ev("e1"))
				s.writeRS(a1, with(a1, annotate("x", "1")), why("copy annotations"))
				record(s, ev("e2"))
			},
			want: []action.Action{
				ev("e1"),
				&action.UpdateReplicaSet{ReplicaSet: with(with(a, replicas(2)), annotate("x", "1")), Why: why("scale down", "copy annotations")},
				ev("e2"),
			},
		},
		{
			name: "an update stepping back",
			reason: "each ReplicaSet update is diffed against its own base, so a later update back to the as-read size is a change too: " +
				"the object ends at the last size sent",
			log: func(s *session) {
				a1 := with(a, replicas(2))
				s.writeRS(a, a1, why("scale down"))
				s.writeRS(a1, with(a1, replicas(3)), why("scale up"))
			},
			want: []action.Action{&action.UpdateReplicaSet{ReplicaSet: a.DeepCopy(), Why: why("scale down", "scale up")}},
		},
		{
			name:   "a repeated reason",
			reason: "two updates with the same reason say it once",
			log: func(s *session) {
				a1 := with(a, replicas(2))
				s.writeRS(a, a1, why("scale down"))
				s.writeRS(a1, with(a1, replicas(1)), why("scale down"))
			},
			want: []action.Action{&action.UpdateReplicaSet{ReplicaSet: with(a, replicas(1)), Why: why("scale down")}},
		},
		{
			name: "an update of an in-memory copy",
			reason: "the new ReplicaSet's annotations copied in memory (derive) are not a server version: an update of that copy is " +
				"diffed against the ReplicaSet as read, so the copied annotations ride along",
			log: func(s *session) {
				c := with(a, annotate("x", "1"))
				s.derive(c, a)
				s.writeRS(c, with(c, replicas(4)), why("scale up"))
			},
			want: []action.Action{&action.UpdateReplicaSet{ReplicaSet: with(with(a, annotate("x", "1")), replicas(4)), Why: why("scale up")}},
		},
		{
			name: "a created ReplicaSet",
			reason: "a created ReplicaSet keeps its create's position, with a later update folded into the object and its reason " +
				"appended; the status write and event between keep theirs",
			log: func(s *session) {
				s.log = append(s.log, entry{kind: createRS, name: created.Name, sent: created, why: why("create")})
				s.editAnnotations() // as the sync does before an edit
				s.d.Annotations[deployutil.RevisionAnnotation] = "2"
				s.updateStatus(why("record revision")...)
				record(s, ev("e1"))
				s.writeRS(created, with(created, replicas(2)), why("scale up"))
			},
			want: []action.Action{
				&action.CreateReplicaSet{ReplicaSet: with(created, replicas(2)), Why: why("create", "scale up")},
				&action.UpdateDeploymentStatus{Deployment: withD(d, func(d *appsv1.Deployment) { d.Annotations[deployutil.RevisionAnnotation] = "2" }),
					Why: why("record revision")},
				ev("e1"),
			},
		},
		{
			name:   "an adoption alone",
			reason: "an adoption is its own action with upstream's patch; with no update after it, no UpdateReplicaSet",
			log: func(s *session) {
				s.log = append(s.log, entry{kind: adoptRS, name: orphan.Name, why: why("adopt")})
			},
			want: []action.Action{&action.AdoptReplicaSet{Namespace: "ns", Name: orphan.Name, UID: orphan.UID, OwnerUID: d.UID,
				Patch: facts.AdoptPatch(d, orphan.UID), Why: why("adopt")}},
		},
		{
			name: "an adoption then an update",
			reason: "the update is sent after the adoption's patch, so its object carries the Deployment's controller reference " +
				"besides its own change",
			log: func(s *session) {
				s.log = append(s.log, entry{kind: adoptRS, name: orphan.Name, why: why("adopt")})
				s.writeRS(orphan, with(orphan, replicas(0)), why("scale down"))
			},
			want: []action.Action{
				&action.AdoptReplicaSet{Namespace: "ns", Name: orphan.Name, UID: orphan.UID, OwnerUID: d.UID,
					Patch: facts.AdoptPatch(d, orphan.UID), Why: why("adopt")},
				&action.UpdateReplicaSet{ReplicaSet: with(orphan, func(rs *appsv1.ReplicaSet) {
					rs.Spec.Replicas = ptr.To[int32](0)
					rs.OwnerReferences = []metav1.OwnerReference{deployutil.ControllerRef(d)}
				}), Why: why("scale down")},
			},
		},
		{
			name:   "a release then an update",
			reason: "the update is sent after the release's patch, so its object no longer names the Deployment as owner",
			log: func(s *session) {
				s.log = append(s.log, entry{kind: releaseRS, name: mine.Name, why: why("release")})
				s.writeRS(mine, with(mine, annotate("x", "1")), why("annotate"))
			},
			want: []action.Action{
				&action.ReleaseReplicaSet{Namespace: "ns", Name: mine.Name, UID: mine.UID, OwnerUID: d.UID,
					Patch: facts.ReleasePatch(mine.UID, d.UID), Why: why("release")},
				&action.UpdateReplicaSet{ReplicaSet: with(mine, func(rs *appsv1.ReplicaSet) {
					rs.Annotations["x"] = "1"
					rs.OwnerReferences = nil
				}), Why: why("annotate")},
			},
		},
		{
			name:   "a deletion",
			reason: "a deletion is its own action naming the ReplicaSet as read, at its position",
			log: func(s *session) {
				record(s, ev("e1"))
				s.log = append(s.log, entry{kind: deleteRS, name: mine.Name, why: why("past the history limit")})
				record(s, ev("e2"))
			},
			want: []action.Action{ev("e1"), &action.DeleteReplicaSet{Namespace: "ns", Name: mine.Name, UID: mine.UID, Why: why("past the history limit")}, ev("e2")},
		},
		{
			name: "two status writes",
			reason: "the Deployment's status writes are one UpdateDeploymentStatus at the last one's position with both changes and " +
				"both reasons",
			log: func(s *session) {
				s.d.Status.ObservedGeneration = 5
				s.updateStatus(why("observe generation")...)
				record(s, ev("e1"))
				s.d.Status.Conditions = []appsv1.DeploymentCondition{cond}
				s.d.Status.CollisionCount = ptr.To[int32](1)
				s.updateStatus(why("progress")...)
			},
			want: []action.Action{
				ev("e1"),
				&action.UpdateDeploymentStatus{Deployment: withD(d, func(d *appsv1.Deployment) {
					d.Status.ObservedGeneration = 5
					d.Status.Conditions = []appsv1.DeploymentCondition{cond}
					d.Status.CollisionCount = ptr.To[int32](1)
				}), Why: why("observe generation", "progress")},
			},
		},
		{
			name: "an update and a status write",
			reason: "each kind of Deployment write sits at its last position and both carry the one merged object: the status write " +
				"before the update already shows the update's template and the removed rollback annotation, the update the status",
			log: func(s *session) {
				s.d.Status.ObservedGeneration = 5
				s.updateStatus(why("observe generation")...)
				s.d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "nginx:0"}}
				s.editAnnotations() // as the sync does before an edit
				delete(s.d.Annotations, deployutil.RollbackToAnnotation)
				s.updateDeployment(why("roll back")...)
				record(s, ev("e1"))
			},
			want: func() []action.Action {
				merged := withD(d, func(d *appsv1.Deployment) {
					d.Status.ObservedGeneration = 5
					d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "nginx:0"}}
					delete(d.Annotations, deployutil.RollbackToAnnotation)
				})
				return []action.Action{
					&action.UpdateDeploymentStatus{Deployment: merged, Why: why("observe generation")},
					&action.UpdateDeployment{Deployment: merged.DeepCopy(), Why: why("roll back")},
					ev("e1"),
				}
			}(),
		},
		{
			name: "a Deployment field sent back to its as-read value",
			reason: "a Deployment write sends the whole working copy and is diffed against the Deployment as read, so a later write " +
				"that sends a field's as-read value changes nothing and the earlier value stands (merge.go's rule)",
			log: func(s *session) {
				s.d.Status.Replicas = 4
				s.updateStatus(why("count")...)
				s.d.Status.Replicas = 3
				s.updateStatus(why("count again")...)
			},
			want: []action.Action{&action.UpdateDeploymentStatus{Deployment: withD(d, func(d *appsv1.Deployment) { d.Status.Replicas = 4 }),
				Why: why("count", "count again")}},
		},
		{
			name: "a Deployment annotation added, then missing",
			reason: "annotations are diffed key by key against the Deployment as read: a key an earlier write added and a later " +
				"write lacks was not in the read, so nothing removes it",
			log: func(s *session) {
				s.editAnnotations() // as the sync does before an edit
				s.d.Annotations["extra"] = "1"
				s.updateStatus(why("add")...)
				s.editAnnotations() // as the sync does before an edit
				delete(s.d.Annotations, "extra")
				s.updateStatus(why("without")...)
			},
			want: []action.Action{&action.UpdateDeploymentStatus{Deployment: withD(d, func(d *appsv1.Deployment) { d.Annotations["extra"] = "1" }),
				Why: why("add", "without")}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mergeDeployment0()
			rss := []*appsv1.ReplicaSet{a, orphan, mine}
			frozen := testutil.Freeze(t, d, rss, created)
			s := newSession(State{Deployment: d, ReplicaSets: rss, Now: now}, defaultOptions())
			tt.log(s)
			got := s.plan()
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("actions (-want +got):\n%s\n(%s)", diff, tt.reason)
			}
			// Each action's object is its own: not the state's, not another
			// action's, not one the log sent.
			seen := map[any]bool{d: true, created: true}
			for _, rs := range rss {
				seen[rs] = true
			}
			for _, a := range got {
				var obj any
				switch a := a.(type) {
				case *action.CreateReplicaSet:
					obj = a.ReplicaSet
				case *action.UpdateReplicaSet:
					obj = a.ReplicaSet
				case *action.UpdateDeployment:
					obj = a.Deployment
				case *action.UpdateDeploymentStatus:
					obj = a.Deployment
				default:
					continue
				}
				if seen[obj] {
					t.Errorf("%s shares its object with the state, the log or another action", a)
				}
				seen[obj] = true
			}
			frozen.Check(t)
		})
	}
}

// fieldUse says whether the merge carries a change of a field to the
// object written and, if not, why no sync ever writes it.
type fieldUse struct {
	merged bool
	why    string
}

// TestMergeFields fails when a type the merge diffs has a field it does not
// account for — a field added by a k8s.io/api bump, or one a decision starts
// writing — and checks each listing against the merge itself: a change of
// every field listed as merged arrives in the merged object, a change of any
// other is dropped.
func TestMergeFields(t *testing.T) {
	never := func(why string) fieldUse { return fieldUse{why: why} }
	merged := func(why string) fieldUse { return fieldUse{merged: true, why: why} }
	// rsMerge changes one field (field returns it) of a ReplicaSet update's
	// sent object and returns the merged object's value of it, and the sent one.
	rsMerge := func(t *testing.T, field func(*appsv1.ReplicaSet) reflect.Value) (got, sent reflect.Value) {
		base := &appsv1.ReplicaSet{Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](1)}}
		s := base.DeepCopy()
		w := base.DeepCopy()
		fill(t, field(s))
		mergeReplicaSet(w, base, s)
		return field(w), field(s)
	}
	tests := []struct {
		typ    reflect.Type
		reason string
		fields map[string]fieldUse
		// merge changes the named field in what a write sends and returns
		// the merged object's value of the field and the sent value.
		merge func(t *testing.T, field string) (got, sent reflect.Value)
	}{
		{
			typ:    reflect.TypeFor[appsv1.ReplicaSetSpec](),
			reason: "the spec of a ReplicaSet update",
			fields: map[string]fieldUse{
				"Replicas":        merged("scaling sets it"),
				"MinReadySeconds": merged("the new ReplicaSet's sync copies the Deployment's"),
				"Selector":        never("immutable in apps/v1; only the create sets it"),
				"Template": never("set by the create; a template change makes another ReplicaSet, so no sync edits an " +
					"existing one's"),
			},
			merge: func(t *testing.T, field string) (reflect.Value, reflect.Value) {
				return rsMerge(t, func(rs *appsv1.ReplicaSet) reflect.Value {
					return reflect.ValueOf(&rs.Spec).Elem().FieldByName(field)
				})
			},
		},
		{
			typ: reflect.TypeFor[metav1.ObjectMeta](),
			reason: "the metadata of a ReplicaSet update (a Deployment write sends only its annotations of the metadata: " +
				"sentDeployment has no other)",
			fields: map[string]fieldUse{
				"Annotations": merged("revision, revision history, the Deployment's annotations and the replica annotations " +
					"on ReplicaSets; the revision, a rollback's and the rollback annotation's removal on the Deployment"),
				"OwnerReferences": never("adoptions and releases change it by their own actions, which merge applies to the " +
					"object of a later update (TestMerge); an update never changes it"),
				"Labels": never("set by the create (the template's labels and the pod-template-hash); a sync never " +
					"relabels an existing ReplicaSet or the Deployment"),
				"Name":                       never("identity: set by the create"),
				"GenerateName":               never("the controller names its ReplicaSets itself"),
				"Namespace":                  never("identity: set by the create"),
				"SelfLink":                   never("server-set, deprecated"),
				"UID":                        never("server-set"),
				"ResourceVersion":            never("server-set"),
				"Generation":                 never("server-set"),
				"CreationTimestamp":          never("server-set"),
				"DeletionTimestamp":          never("server-set by a delete"),
				"DeletionGracePeriodSeconds": never("server-set by a delete"),
				"Finalizers":                 never("the Deployment controller sets no finalizers"),
				"ManagedFields":              never("server-set"),
			},
			merge: func(t *testing.T, field string) (reflect.Value, reflect.Value) {
				return rsMerge(t, func(rs *appsv1.ReplicaSet) reflect.Value {
					return reflect.ValueOf(&rs.ObjectMeta).Elem().FieldByName(field)
				})
			},
		},
		{
			typ:    reflect.TypeFor[appsv1.DeploymentStatus](),
			reason: "the status a status write sends: sentDeployment holds it whole, so every field must be merged",
			fields: map[string]fieldUse{
				"ObservedGeneration":  merged("every status sync observes the generation"),
				"Replicas":            merged("the status counts"),
				"UpdatedReplicas":     merged("the status counts"),
				"ReadyReplicas":       merged("the status counts"),
				"AvailableReplicas":   merged("the status counts"),
				"UnavailableReplicas": merged("the status counts"),
				"TerminatingReplicas": merged("the status counts (feature gate on)"),
				"Conditions":          merged("Progressing, Available, ReplicaFailure"),
				"CollisionCount":      merged("a hash collision raises it"),
			},
			merge: func(t *testing.T, field string) (reflect.Value, reflect.Value) {
				base := &appsv1.Deployment{}
				sent := &sentDeployment{}
				w := base.DeepCopy()
				v := fill(t, reflect.ValueOf(&sent.status).Elem().FieldByName(field))
				mergeDeployment(w, base, sent, true)
				return reflect.ValueOf(w.Status).FieldByName(field), v
			},
		},
		{
			typ: reflect.TypeFor[appsv1.DeploymentSpec](),
			reason: "the spec an update of the Deployment sends: sentDeployment holds only its template, as only a " +
				"rollback updates the Deployment",
			fields: map[string]fieldUse{
				"Template":                merged("a rollback replaces it"),
				"Replicas":                never("the user's (or an autoscaler's); the controller only reads it"),
				"Selector":                never("the user's; immutable in apps/v1"),
				"Strategy":                never("the user's"),
				"MinReadySeconds":         never("the user's"),
				"RevisionHistoryLimit":    never("the user's"),
				"Paused":                  never("the user's (kubectl rollout pause); the controller only reads it"),
				"ProgressDeadlineSeconds": never("the user's"),
			},
			merge: func(t *testing.T, field string) (reflect.Value, reflect.Value) {
				base := &appsv1.Deployment{}
				spec := base.Spec.DeepCopy()
				v := fill(t, reflect.ValueOf(spec).Elem().FieldByName(field))
				sent := &sentDeployment{template: &spec.Template}
				w := base.DeepCopy()
				mergeDeployment(w, base, sent, false)
				return reflect.ValueOf(w.Spec).FieldByName(field), v
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.typ.Name(), func(t *testing.T) {
			for i := range tt.typ.NumField() {
				f := tt.typ.Field(i)
				use, ok := tt.fields[f.Name]
				if !ok {
					t.Errorf("%s.%s is not accounted for by the merge (merge.go): merge it and list it as merged, or list "+
						"it with why no sync writes it (%s)", tt.typ, f.Name, tt.reason)
					continue
				}
				if use.why == "" {
					t.Errorf("%s.%s is listed without a why", tt.typ, f.Name)
				}
				got, sent := tt.merge(t, f.Name)
				if carried := reflect.DeepEqual(got.Interface(), sent.Interface()); carried != use.merged {
					t.Errorf("%s.%s: the merge carries a change of it = %v, listed as merged = %v (%s; %s)",
						tt.typ, f.Name, carried, use.merged, use.why, tt.reason)
				}
			}
			for name := range tt.fields {
				if _, ok := tt.typ.FieldByName(name); !ok {
					t.Errorf("%s has no field %s, listed for the merge", tt.typ, name)
				}
			}
		})
	}
}

// fill sets v (a settable field) to a value other than its zero value and
// other than 1 (the ReplicaSet base's size), and returns v.
func fill(t *testing.T, v reflect.Value) reflect.Value {
	t.Helper()
	if !v.IsValid() {
		t.Fatal("fill: no such field")
	}
	if v.Type() == reflect.TypeFor[time.Time]() {
		v.Set(reflect.ValueOf(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
		return v
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.String:
		v.SetString("x")
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(t, p.Elem())
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(t, s.Index(0))
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(t, k)
		fill(t, e)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		// One exported field set is enough to differ from the zero value.
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(t, v.Field(i))
				return v
			}
		}
		t.Fatalf("fill: %s has no exported field", v.Type())
	default:
		t.Fatalf("fill: cannot make a value of kind %s (%s); extend fill", v.Kind(), v.Type())
	}
	return v
}

// why returns one reason per text, as notes: the merge treats reasons as
// opaque values, so any rule serves.
func why(texts ...string) action.Reasons {
	var out action.Reasons
	for _, t := range texts {
		out = append(out, action.Because(action.RuleNote, action.Str("text", t)))
	}
	return out
}
