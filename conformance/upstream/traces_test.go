package upstream_test

// The expectations in this file are the traces of Appendix B of
// shared/reference/upstream-v1.37.md, which were produced by running the real
// upstream controller; they check that the runner reproduces them.

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/conformance/upstream"
)

const (
	reasonScaling = "ScalingReplicaSet"
	oldHash       = "5f9c7d4b8c" // any label value other than the golden hash
)

var (
	availableTrue       = cond{"Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability."}
	availableFalse      = cond{"Available", "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability."}
	progressingCreated  = cond{"Progressing", "True", "NewReplicaSetCreated", `Created new replica set "web-6bcddfc897"`}
	progressingUpdated  = cond{"Progressing", "True", "ReplicaSetUpdated", `ReplicaSet "web-6bcddfc897" is progressing.`}
	progressingPaused   = cond{"Progressing", "Unknown", "DeploymentPaused", "Deployment is paused"}
	progressingFoundNew = cond{"Progressing", "True", "FoundNewReplicaSet", `Found new replica set "web-6bcddfc897"`}
)

// oldRS is web-old: revision 1, running the nginx:0 template.
func oldRS(replicas int32) *appsv1.ReplicaSet {
	return ownedRS("web-old", "old-uid", template("nginx:0"), oldHash, replicas, "1", now.Add(-time.Hour))
}

func TestB1NewDeployment(t *testing.T) {
	out := run(t, upstream.Input{Deployment: baseDeployment(3), Now: now, TerminatingReplicas: true})

	wantCalls(t, out,
		"create replicasets "+goldenName,
		"update deployments/status web",
		"update deployments/status web (stale)",
	)
	if out.Err != nil {
		t.Errorf("Err = %v, want nil", out.Err)
	}
	rs := findRS(t, out, goldenName)
	if got := *rs.Spec.Replicas; got != 3 {
		t.Errorf("replicas = %d, want 3", got)
	}
	hashed := map[string]string{"app": "web", hashLabel: goldenHash}
	wantMap(t, "labels", rs.Labels, hashed)
	wantMap(t, "selector", rs.Spec.Selector.MatchLabels, hashed)
	wantMap(t, "template labels", rs.Spec.Template.Labels, hashed)
	wantMap(t, "annotations", rs.Annotations, map[string]string{annDesired: "3", annMax: "4", annRevision: "1"})
	if ref := metav1.GetControllerOf(rs); ref == nil || ref.UID != "d-uid" {
		t.Errorf("controller ref = %+v, want the Deployment", ref)
	}
	if rs.ResourceVersion != "" || rs.UID != "" {
		t.Errorf("created RS has resourceVersion %q, UID %q; want both empty", rs.ResourceVersion, rs.UID)
	}

	d := out.Deployment
	wantMap(t, "Deployment annotations", d.Annotations, map[string]string{annRevision: "1"})
	wantCounts(t, d, counts{og: 1, unavail: 3, term: ptr.To[int32](0)})
	wantConditions(t, d, progressingCreated, availableFalse)
	if d.ResourceVersion != "d-rv" {
		t.Errorf("Deployment resourceVersion = %q, want the caller's d-rv", d.ResourceVersion)
	}
	wantEvents(t, out, normal(reasonScaling, "Scaled up replica set web-6bcddfc897 from 0 to 3"))
	if out.RequeueAfter != 0 || out.RequeueRateLimited {
		t.Errorf("requeue = %v/%v, want none (the status changed)", out.RequeueAfter, out.RequeueRateLimited)
	}
}

func traceB2Input() upstream.Input {
	return upstream.Input{
		Deployment:          baseDeployment(4),
		ReplicaSets:         []*appsv1.ReplicaSet{withSizeAnnotations(oldRS(4), "4", "5")},
		Now:                 now,
		TerminatingReplicas: true,
	}
}

func TestB2TemplateChange(t *testing.T) {
	out := run(t, traceB2Input())

	wantCalls(t, out,
		"create replicasets "+goldenName,
		"update deployments/status web",
		"update replicasets web-old",
		"update deployments/status web (stale)",
	)
	if got := rsNames(out); strings.Join(got, ",") != "web-old,"+goldenName {
		t.Errorf("ReplicaSets = %v, want input order then the created one", got)
	}
	newRS := findRS(t, out, goldenName)
	if got := *newRS.Spec.Replicas; got != 1 {
		t.Errorf("new RS replicas = %d, want 1 (surge)", got)
	}
	wantMap(t, "new RS annotations", newRS.Annotations, map[string]string{annDesired: "4", annMax: "5", annRevision: "2"})
	old := findRS(t, out, "web-old")
	if got := *old.Spec.Replicas; got != 3 {
		t.Errorf("old RS replicas = %d, want 3", got)
	}
	if old.ResourceVersion != "rv-web-old" {
		t.Errorf("old RS resourceVersion = %q, want the caller's", old.ResourceVersion)
	}
	d := out.Deployment
	wantMap(t, "Deployment annotations", d.Annotations, map[string]string{annRevision: "2"})
	wantCounts(t, d, counts{og: 1, r: 4, upd: 0, ready: 4, avail: 4, unavail: 1, term: ptr.To[int32](0)})
	wantConditions(t, d, availableTrue, progressingUpdated)
	wantEvents(t, out,
		normal(reasonScaling, "Scaled up replica set web-6bcddfc897 from 0 to 1"),
		normal(reasonScaling, "Scaled down replica set web-old from 4 to 3"),
	)
}

func TestB4PausedWithoutReplicaSets(t *testing.T) {
	d := baseDeployment(3)
	d.Spec.Paused = true
	out := run(t, upstream.Input{Deployment: d, Now: now, TerminatingReplicas: true})

	wantCalls(t, out,
		"update deployments/status web",
		"update deployments/status web (stale)",
	)
	if len(out.ReplicaSets) != 0 {
		t.Errorf("ReplicaSets = %v, want none created", rsNames(out))
	}
	wantCounts(t, out.Deployment, counts{og: 1, unavail: 0, term: ptr.To[int32](0)})
	wantConditions(t, out.Deployment, progressingPaused, availableFalse)
	wantEvents(t, out)
}

// recreateOld is web-old of trace B.5, scaled to 0, with the given number of
// pods still terminating.
func recreateOld(terminating int32) *appsv1.ReplicaSet {
	rs := withSizeAnnotations(oldRS(0), "2", "2")
	rs.Status.TerminatingReplicas = ptr.To(terminating)
	return rs
}

func TestB5RecreateWaitsForTerminatingPod(t *testing.T) {
	old := recreateOld(1)
	p := pod("web-old-a", old)
	p.DeletionTimestamp = ptr.To(metav1.NewTime(now.Add(-time.Second)))
	out := run(t, upstream.Input{
		Deployment:          recreate(baseDeployment(2)),
		ReplicaSets:         []*appsv1.ReplicaSet{old},
		Pods:                map[types.UID][]*corev1.Pod{old.UID: {p}},
		Now:                 now,
		TerminatingReplicas: true,
	})

	wantCalls(t, out, "update deployments/status web")
	if got := rsNames(out); len(got) != 1 {
		t.Errorf("ReplicaSets = %v, want no new one", got)
	}
	wantCounts(t, out.Deployment, counts{og: 1, term: ptr.To[int32](1)})
	wantConditions(t, out.Deployment, availableFalse)
	wantEvents(t, out)
}

func TestB5RecreateCreatesWhenNoPods(t *testing.T) {
	old := recreateOld(0)
	out := run(t, upstream.Input{
		Deployment:          recreate(baseDeployment(2)),
		ReplicaSets:         []*appsv1.ReplicaSet{old},
		Now:                 now,
		TerminatingReplicas: true,
	})

	wantCalls(t, out,
		"create replicasets "+goldenName,
		"update deployments/status web",
		"update deployments/status web (stale)",
	)
	rs := findRS(t, out, goldenName)
	if got := *rs.Spec.Replicas; got != 2 {
		t.Errorf("new RS replicas = %d, want 2 (full size)", got)
	}
	wantMap(t, "new RS annotations", rs.Annotations, map[string]string{annDesired: "2", annMax: "2", annRevision: "2"})
	wantEvents(t, out, normal(reasonScaling, "Scaled up replica set web-6bcddfc897 from 0 to 2"))
}

func TestB6HashCollision(t *testing.T) {
	squatter := ownedRS(goldenName, "squatter-uid", template("nginx:0"), goldenHash, 1, "1", now.Add(-time.Hour))
	squatter.OwnerReferences = nil
	squatter.Labels = map[string]string{"app": "other"} // not selected, so not adopted
	out := run(t, upstream.Input{
		Deployment:          baseDeployment(3),
		ReplicaSets:         []*appsv1.ReplicaSet{squatter},
		Now:                 now,
		TerminatingReplicas: true,
	})

	wantCalls(t, out,
		"create replicasets "+goldenName,
		"update deployments/status web",
	)
	if !strings.HasSuffix(out.Actions[0], "already exists") {
		t.Errorf("create: %q, want it refused as already existing", out.Actions[0])
	}
	if out.Err == nil || out.Err.Error() != `replicasets.apps "web-6bcddfc897" already exists` {
		t.Errorf("Err = %v, want the AlreadyExists error", out.Err)
	}
	if cc := out.Deployment.Status.CollisionCount; cc == nil || *cc != 1 {
		t.Errorf("collisionCount = %v, want 1", cc)
	}
	if got := rsNames(out); len(got) != 1 || findRS(t, out, goldenName).UID != "squatter-uid" {
		t.Errorf("ReplicaSets = %v, want only the untouched squatter", got)
	}
	wantEvents(t, out)
}

func TestB6Rollback(t *testing.T) {
	d := baseDeployment(3)
	d.Annotations = map[string]string{
		annRevision:                         "2",
		"kubernetes.io/change-cause":        "v2",
		"deprecated.deployment.rollback.to": "0",
	}
	cur := withSizeAnnotations(ownedRS(goldenName, "cur-uid", template("nginx:1"), goldenHash, 3, "2", now.Add(-time.Minute)), "3", "4")
	cur.Annotations["kubernetes.io/change-cause"] = "v2"
	old := withSizeAnnotations(oldRS(0), "3", "4")
	old.Annotations["kubernetes.io/change-cause"] = "v1"
	out := run(t, upstream.Input{
		Deployment:          d,
		ReplicaSets:         []*appsv1.ReplicaSet{cur, old},
		Now:                 now,
		TerminatingReplicas: true,
	})

	wantCalls(t, out,
		"update deployments/status web",
		"update deployments web (stale)",
	)
	got := out.Deployment
	wantMap(t, "annotations", got.Annotations, map[string]string{annRevision: "2", "kubernetes.io/change-cause": "v1"})
	if img := got.Spec.Template.Spec.Containers[0].Image; img != "nginx:0" {
		t.Errorf("template image = %q, want web-old's nginx:0", img)
	}
	wantMap(t, "template labels", got.Spec.Template.Labels, map[string]string{"app": "web"})
	// The rollback update was stale, yet the status write before it stays.
	wantConditions(t, got, progressingFoundNew)
	wantEvents(t, out, normal("DeploymentRollback", `Rolled back deployment "web" to revision 1`))
}

func TestB6AnnotationCopiedTwice(t *testing.T) {
	d := baseDeployment(3)
	d.Annotations = map[string]string{annRevision: "1", "team": "blue"}
	cur := withSizeAnnotations(ownedRS("web-cur", "cur-uid", template("nginx:1"), goldenHash, 3, "1", now.Add(-time.Minute)), "3", "4")
	cur.Status.TerminatingReplicas = nil
	out := run(t, upstream.Input{
		Deployment:          d,
		ReplicaSets:         []*appsv1.ReplicaSet{cur},
		Now:                 now,
		TerminatingReplicas: true,
	})

	wantCalls(t, out,
		"update replicasets web-cur",
		"update replicasets web-cur (stale)",
		"update deployments/status web",
	)
	if got := findRS(t, out, "web-cur").Annotations["team"]; got != "blue" {
		t.Errorf("team annotation = %q, want blue", got)
	}
	if term := out.Deployment.Status.TerminatingReplicas; term != nil {
		t.Errorf("terminatingReplicas = %d, want nil", *term)
	}
}

func TestB7StaleDesiredAnnotationBlocksRollout(t *testing.T) {
	old := withSizeAnnotations(oldRS(3), "2", "3")
	out := run(t, upstream.Input{
		Deployment:          baseDeployment(3),
		ReplicaSets:         []*appsv1.ReplicaSet{old},
		Now:                 now,
		TerminatingReplicas: true,
	})

	wantCalls(t, out, "update deployments/status web")
	if got := rsNames(out); len(got) != 1 {
		t.Errorf("ReplicaSets = %v, want no new one", got)
	}
	if got := *findRS(t, out, "web-old").Spec.Replicas; got != 3 {
		t.Errorf("old RS replicas = %d, want 3", got)
	}
	wantCounts(t, out.Deployment, counts{og: 1, r: 3, ready: 3, avail: 3, term: ptr.To[int32](0)})
	wantConditions(t, out.Deployment, availableTrue)
	wantEvents(t, out)
}
