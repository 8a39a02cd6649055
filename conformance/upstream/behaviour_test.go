package upstream_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/conformance/upstream"
)

func TestB3ProportionalScaling(t *testing.T) {
	d := baseDeployment(8)
	d.Annotations = map[string]string{annRevision: "2"}
	newRS := withSizeAnnotations(ownedRS("web-new", "new-uid", template("nginx:1"), goldenHash, 2, "2", now.Add(-time.Minute)), "4", "5")
	old := withSizeAnnotations(oldRS(3), "4", "5")
	for _, rs := range []*appsv1.ReplicaSet{newRS, old} {
		rs.Status.AvailableReplicas, rs.Status.ReadyReplicas = 0, 0
	}
	out := run(t, upstream.Input{
		Deployment:          d,
		ReplicaSets:         []*appsv1.ReplicaSet{newRS, old},
		Now:                 now,
		TerminatingReplicas: true,
	})

	wantCalls(t, out,
		"update deployments/status web",
		"update replicasets web-old",
		"update replicasets web-new",
		"update deployments/status web (stale)",
	)
	for name, want := range map[string]int32{"web-old": 6, "web-new": 4} {
		rs := findRS(t, out, name)
		if *rs.Spec.Replicas != want {
			t.Errorf("%s replicas = %d, want %d", name, *rs.Spec.Replicas, want)
		}
		if rs.Annotations[annDesired] != "8" || rs.Annotations[annMax] != "10" {
			t.Errorf("%s annotations = %v, want desired=8 max=10", name, rs.Annotations)
		}
	}
	if got := out.Deployment.Status.UnavailableReplicas; got != 5 {
		t.Errorf("unavailableReplicas = %d, want 5 (from the pre-scale specs)", got)
	}
	wantEvents(t, out,
		normal(reasonScaling, "Scaled up replica set web-old from 3 to 6"),
		normal(reasonScaling, "Scaled up replica set web-new from 2 to 4"),
	)
}

// An orphan that the Deployment adopts and, in the same sync, scales: the
// scale is written from the cache, without the owner reference and with the
// resourceVersion from before the adoption patch. A last-write-wins replay
// would lose the adoption; the intent keeps both.
func TestStaleScaleKeepsAdoption(t *testing.T) {
	orphan := withSizeAnnotations(ownedRS(goldenName, "orphan-uid", template("nginx:1"), goldenHash, 2, "1", now.Add(-time.Minute)), "2", "3")
	orphan.OwnerReferences = nil
	out := run(t, upstream.Input{
		Deployment:          baseDeployment(3),
		ReplicaSets:         []*appsv1.ReplicaSet{orphan},
		Now:                 now,
		TerminatingReplicas: true,
	})

	// The adoption's liveness check, the adoption, the Deployment's revision
	// and FoundNewReplicaSet (it had neither), the scale, the status.
	wantCalls(t, out,
		"get deployments web",
		"patch replicasets "+goldenName,
		"update deployments/status web",
		"update replicasets "+goldenName+" (stale)",
		"update deployments/status web (stale)",
	)
	rs := findRS(t, out, goldenName)
	if ref := metav1.GetControllerOf(rs); ref == nil || ref.UID != "d-uid" {
		t.Errorf("controller ref = %+v, want the adoption to survive the stale scale", ref)
	}
	if got := *rs.Spec.Replicas; got != 3 {
		t.Errorf("replicas = %d, want 3", got)
	}
	if rs.Annotations[annDesired] != "3" {
		t.Errorf("desired-replicas = %q, want 3", rs.Annotations[annDesired])
	}
	wantEvents(t, out, normal(reasonScaling, "Scaled up replica set web-6bcddfc897 from 2 to 3"))
}

// Adopt patches go out in input order, whatever the informer's map order.
func TestClaimOrderIsInputOrder(t *testing.T) {
	var orphans []*appsv1.ReplicaSet
	for _, name := range []string{"web-e", "web-b", "web-d", "web-a", "web-c"} {
		rs := withSizeAnnotations(oldRS(0), "3", "4")
		rs.Name, rs.UID = name, types.UID("uid-"+name)
		rs.OwnerReferences = nil
		orphans = append(orphans, rs)
	}
	for i := 0; i < 10; i++ {
		out := run(t, upstream.Input{Deployment: baseDeployment(3), ReplicaSets: orphans, Now: now, TerminatingReplicas: true})
		var patched []string
		for _, c := range calls(out) {
			if name, ok := strings.CutPrefix(c, "patch replicasets "); ok {
				patched = append(patched, name)
			}
		}
		if want := []string{"web-e", "web-b", "web-d", "web-a", "web-c"}; !reflect.DeepEqual(patched, want) {
			t.Fatalf("run %d: patch order %v, want %v", i, patched, want)
		}
	}
}

// inProgress is a Deployment whose sync changes nothing: its new ReplicaSet
// has 1 of 3 replicas available and the status already says so, with a
// Progressing condition last updated at lastUpdate.
func inProgress(lastUpdate time.Time) upstream.Input {
	d := baseDeployment(3)
	d.Annotations = map[string]string{annRevision: "1"}
	rs := withSizeAnnotations(ownedRS(goldenName, "new-uid", template("nginx:1"), goldenHash, 3, "1", now.Add(-time.Hour)), "3", "4")
	rs.Status.AvailableReplicas, rs.Status.ReadyReplicas = 1, 1
	d.Status = appsv1.DeploymentStatus{
		ObservedGeneration: 1, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 1, AvailableReplicas: 1,
		UnavailableReplicas: 2, TerminatingReplicas: ptr.To[int32](0),
		Conditions: []appsv1.DeploymentCondition{
			{
				Type: appsv1.DeploymentAvailable, Status: "False", Reason: "MinimumReplicasUnavailable",
				Message:        "Deployment does not have minimum availability.",
				LastUpdateTime: metav1.NewTime(now.Add(-time.Hour)), LastTransitionTime: metav1.NewTime(now.Add(-time.Hour)),
			},
			{
				Type: appsv1.DeploymentProgressing, Status: "True", Reason: "ReplicaSetUpdated",
				Message:        `ReplicaSet "web-6bcddfc897" is progressing.`,
				LastUpdateTime: metav1.NewTime(lastUpdate), LastTransitionTime: metav1.NewTime(now.Add(-time.Hour)),
			},
		},
	}
	return upstream.Input{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{rs}, Now: now, TerminatingReplicas: true}
}

func TestRequeueAfterDeadline(t *testing.T) {
	// 100s since the last progress; the deadline is 600s away from it.
	out := run(t, inProgress(now.Add(-100*time.Second)))

	if want := 501 * time.Second; out.RequeueAfter != want {
		t.Errorf("RequeueAfter = %v, want %v (remaining 500s + 1s)", out.RequeueAfter, want)
	}
	if out.RequeueRateLimited {
		t.Error("RequeueRateLimited = true, want false")
	}
	for _, c := range calls(out) {
		if !strings.HasPrefix(c, "queue ") {
			t.Errorf("unexpected call %q: the status is unchanged, nothing should be written", c)
		}
	}
}

func TestRequeueRateLimitedWithinASecond(t *testing.T) {
	// The deadline is half a second away.
	out := run(t, inProgress(now.Add(-600*time.Second+500*time.Millisecond)))

	if !out.RequeueRateLimited {
		t.Error("RequeueRateLimited = false, want true")
	}
	if out.RequeueAfter != 0 {
		t.Errorf("RequeueAfter = %v, want 0", out.RequeueAfter)
	}
}

func TestTimestampsArePinnedToNow(t *testing.T) {
	pinned := time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC)
	out := run(t, upstream.Input{Deployment: baseDeployment(3), Now: pinned, TerminatingReplicas: true})

	if len(out.Deployment.Status.Conditions) == 0 {
		t.Fatal("no conditions written")
	}
	for _, c := range out.Deployment.Status.Conditions {
		if !c.LastUpdateTime.Time.Equal(pinned) || !c.LastTransitionTime.Time.Equal(pinned) {
			t.Errorf("%s condition times = %v / %v, want %v", c.Type, c.LastUpdateTime, c.LastTransitionTime, pinned)
		}
		if c.LastUpdateTime.Location() != time.UTC {
			t.Errorf("%s condition time zone = %v, want UTC", c.Type, c.LastUpdateTime.Location())
		}
	}
}

func TestTimestampsHaveSecondPrecision(t *testing.T) {
	pinned := time.Date(2031, 1, 2, 3, 4, 5, 600_000_000, time.UTC)
	out := run(t, upstream.Input{Deployment: baseDeployment(3), Now: pinned, TerminatingReplicas: true})

	want := pinned.Truncate(time.Second)
	for _, c := range out.Deployment.Status.Conditions {
		if !c.LastUpdateTime.Time.Equal(want) {
			t.Errorf("%s LastUpdateTime = %v, want %v: objects pass through JSON as through an apiserver", c.Type, c.LastUpdateTime, want)
		}
	}
}

func TestTerminatingReplicasGate(t *testing.T) {
	in := func(gate bool) upstream.Input {
		old := recreateOld(1)
		return upstream.Input{
			Deployment:          recreate(baseDeployment(2)),
			ReplicaSets:         []*appsv1.ReplicaSet{old},
			Now:                 now,
			TerminatingReplicas: gate,
		}
	}
	// Toggle in both directions to show each run sets the gate.
	for _, gate := range []bool{false, true, false, true} {
		out := run(t, in(gate))
		got := out.Deployment.Status.TerminatingReplicas
		switch {
		case gate && (got == nil || *got != 1):
			t.Errorf("gate on: terminatingReplicas = %v, want 1", got)
		case !gate && got != nil:
			t.Errorf("gate off: terminatingReplicas = %d, want nil", *got)
		}
	}
}

func TestInputIsNotModified(t *testing.T) {
	in := traceB2Input()
	d, rs := in.Deployment.DeepCopy(), in.ReplicaSets[0].DeepCopy()
	run(t, in)
	if !reflect.DeepEqual(in.Deployment, d) || !reflect.DeepEqual(in.ReplicaSets[0], rs) {
		t.Error("Run modified its input")
	}
}

func TestHarnessErrors(t *testing.T) {
	if _, err := upstream.Run(upstream.Input{Now: now}); err == nil {
		t.Error("no error for a missing Deployment")
	}
	if _, err := upstream.Run(upstream.Input{Deployment: baseDeployment(1)}); err == nil {
		t.Error("no error for a missing Now")
	}
}

func TestUpstreamPanicIsAHarnessError(t *testing.T) {
	d := baseDeployment(3)
	d.Spec.Replicas = nil // upstream relies on apiserver defaulting
	_, err := upstream.Run(upstream.Input{Deployment: d, Now: now, TerminatingReplicas: true})
	if err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("err = %v, want the panic reported", err)
	}
}
