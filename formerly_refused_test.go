package deploysync_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/deployutil"
	"github.com/deploysync/deploysync/internal/testing/accepted"
	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// upstreamOutcomes holds, for each state of internal/testing/accepted, the outcome
// of upstream's syncDeployment (k8s.io/kubernetes v1.37.2, run through
// conformance/upstream with the feature gate on), summarised by
// contractSummary. They were printed by running upstream on the states;
// conformance/suite's TestContract runs upstream again beside Sync and
// requires no difference at all.
var upstreamOutcomes = map[string][]string{
	"paused, new desired-replicas 2147483648": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=5/3/5/5/0 terminating=0 collisionCount=nil",
		"rs web-new replicas=2 revision=\"2\" desired=\"3\" max=\"4\"",
		"rs web-old replicas=2 revision=\"1\" desired=\"3\" max=\"4\"",
		"event ScalingReplicaSet Scaled down replica set web-new from 3 to 2",
	},
	"rollout, old desired-replicas 2147483648": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=5/0/5/5/2 terminating=0 collisionCount=nil",
		"rs web-old replicas=4 revision=\"1\" desired=\"5\" max=\"7\"",
		"rs web-6bcddfc897 replicas=2 revision=\"2\" desired=\"5\" max=\"7\"",
		"event ScalingReplicaSet Scaled up replica set web-6bcddfc897 from 0 to 2",
		"event ScalingReplicaSet Scaled down replica set web-old from 5 to 4",
	},
	"paused, new desired-replicas 4294967296": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=5/3/5/5/0 terminating=0 collisionCount=nil",
		"rs web-new replicas=2 revision=\"2\" desired=\"3\" max=\"4\"",
		"rs web-old replicas=2 revision=\"1\" desired=\"3\" max=\"4\"",
		"event ScalingReplicaSet Scaled down replica set web-new from 3 to 2",
	},
	"rollout, old desired-replicas 4294967296": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=5/0/5/5/2 terminating=0 collisionCount=nil",
		"rs web-old replicas=4 revision=\"1\" desired=\"5\" max=\"7\"",
		"rs web-6bcddfc897 replicas=2 revision=\"2\" desired=\"5\" max=\"7\"",
		"event ScalingReplicaSet Scaled up replica set web-6bcddfc897 from 0 to 2",
		"event ScalingReplicaSet Scaled down replica set web-old from 5 to 4",
	},
	"paused, new desired-replicas -1": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=5/3/5/5/0 terminating=0 collisionCount=nil",
		"rs web-new replicas=2 revision=\"2\" desired=\"3\" max=\"4\"",
		"rs web-old replicas=2 revision=\"1\" desired=\"3\" max=\"4\"",
		"event ScalingReplicaSet Scaled down replica set web-new from 3 to 2",
	},
	"rollout, old desired-replicas -1": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=5/0/5/5/2 terminating=0 collisionCount=nil",
		"rs web-old replicas=4 revision=\"1\" desired=\"5\" max=\"7\"",
		"rs web-6bcddfc897 replicas=2 revision=\"2\" desired=\"5\" max=\"7\"",
		"event ScalingReplicaSet Scaled up replica set web-6bcddfc897 from 0 to 2",
		"event ScalingReplicaSet Scaled down replica set web-old from 5 to 4",
	},
	"paused, new desired-replicas 4294967299": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=5/3/5/5/0 terminating=0 collisionCount=nil",
		"rs web-new replicas=3 revision=\"2\" desired=\"4294967299\" max=\"4\"",
		"rs web-old replicas=0 revision=\"1\" desired=\"3\" max=\"4\"",
		"event ScalingReplicaSet Scaled down replica set web-old from 2 to 0",
	},
	"rollout, old desired-replicas 4294967299": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=5/0/5/5/2 terminating=0 collisionCount=nil",
		"rs web-old replicas=4 revision=\"1\" desired=\"5\" max=\"7\"",
		"rs web-6bcddfc897 replicas=2 revision=\"2\" desired=\"5\" max=\"7\"",
		"event ScalingReplicaSet Scaled up replica set web-6bcddfc897 from 0 to 2",
		"event ScalingReplicaSet Scaled down replica set web-old from 5 to 4",
	},
	"paused, new desired-replicas +5": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=5/3/5/5/0 terminating=0 collisionCount=nil",
		"rs web-new replicas=2 revision=\"2\" desired=\"3\" max=\"4\"",
		"rs web-old replicas=2 revision=\"1\" desired=\"3\" max=\"4\"",
		"event ScalingReplicaSet Scaled down replica set web-new from 3 to 2",
	},
	"rollout, old desired-replicas +5": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=5/0/5/5/2 terminating=0 collisionCount=nil",
		"rs web-old replicas=4 revision=\"1\" desired=\"5\" max=\"7\"",
		"rs web-6bcddfc897 replicas=2 revision=\"2\" desired=\"5\" max=\"7\"",
		"event ScalingReplicaSet Scaled up replica set web-6bcddfc897 from 0 to 2",
		"event ScalingReplicaSet Scaled down replica set web-old from 5 to 4",
	},
	"paused, new desired-replicas 007": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=5/3/5/5/0 terminating=0 collisionCount=nil",
		"rs web-new replicas=2 revision=\"2\" desired=\"3\" max=\"4\"",
		"rs web-old replicas=2 revision=\"1\" desired=\"3\" max=\"4\"",
		"event ScalingReplicaSet Scaled down replica set web-new from 3 to 2",
	},
	"rollout, old desired-replicas 007": {
		"failed=false",
		"deployment revision=\"\" replicas/updated/ready/available/unavailable=5/0/5/5/0 terminating=0 collisionCount=nil",
		"rs web-old replicas=5 revision=\"1\" desired=\"007\" max=\"6\"",
	},
	"paused, new desired-replicas  5": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=5/3/5/5/0 terminating=0 collisionCount=nil",
		"rs web-new replicas=2 revision=\"2\" desired=\"3\" max=\"4\"",
		"rs web-old replicas=2 revision=\"1\" desired=\"3\" max=\"4\"",
		"event ScalingReplicaSet Scaled down replica set web-new from 3 to 2",
	},
	"rollout, old desired-replicas  5": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=5/0/5/5/2 terminating=0 collisionCount=nil",
		"rs web-old replicas=4 revision=\"1\" desired=\"5\" max=\"7\"",
		"rs web-6bcddfc897 replicas=2 revision=\"2\" desired=\"5\" max=\"7\"",
		"event ScalingReplicaSet Scaled up replica set web-6bcddfc897 from 0 to 2",
		"event ScalingReplicaSet Scaled down replica set web-old from 5 to 4",
	},
	"paused, new desired-replicas -2147483649": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=5/3/5/5/0 terminating=0 collisionCount=nil",
		"rs web-new replicas=2 revision=\"2\" desired=\"3\" max=\"4\"",
		"rs web-old replicas=2 revision=\"1\" desired=\"3\" max=\"4\"",
		"event ScalingReplicaSet Scaled down replica set web-new from 3 to 2",
	},
	"rollout, old desired-replicas -2147483649": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=5/0/5/5/2 terminating=0 collisionCount=nil",
		"rs web-old replicas=4 revision=\"1\" desired=\"5\" max=\"7\"",
		"rs web-6bcddfc897 replicas=2 revision=\"2\" desired=\"5\" max=\"7\"",
		"event ScalingReplicaSet Scaled up replica set web-6bcddfc897 from 0 to 2",
		"event ScalingReplicaSet Scaled down replica set web-old from 5 to 4",
	},
	"paused, saturated through truncation": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=5/3/5/5/0 terminating=0 collisionCount=nil",
		"rs web-new replicas=3 revision=\"2\" desired=\"4294967299\" max=\"4\"",
		"rs web-old replicas=0 revision=\"1\" desired=\"3\" max=\"4\"",
		"event ScalingReplicaSet Scaled down replica set web-old from 2 to 0",
	},
	"revision 2⁶³−1, new template": {
		"failed=false",
		"deployment revision=\"-9223372036854775808\" replicas/updated/ready/available/unavailable=3/0/3/3/1 terminating=0 collisionCount=nil",
		"rs web-old replicas=3 revision=\"9223372036854775807\" desired=\"3\" max=\"3\"",
		"rs web-84858898d4 replicas=1 revision=\"\" desired=\"3\" max=\"4\"",
		"event ScalingReplicaSet Scaled up replica set web-84858898d4 from 0 to 1",
	},
	"revision 2⁶³−1 on an old ReplicaSet, new one exists": {
		"failed=false",
		"deployment revision=\"5\" replicas/updated/ready/available/unavailable=3/3/3/3/0 terminating=0 collisionCount=nil",
		"rs web-new replicas=3 revision=\"5\" desired=\"3\" max=\"3\"",
		"rs web-old replicas=0 revision=\"9223372036854775807\" desired=\"\" max=\"\"",
	},
	"collisionCount 2³¹−1 and a collision": {
		"failed=true",
		"deployment revision=\"\" replicas/updated/ready/available/unavailable=0/0/0/0/0 terminating=nil collisionCount=-2147483648",
		"rs web-old replicas=3 revision=\"1\" desired=\"3\" max=\"3\"",
		"rs web-77d7cfd784 replicas=0 revision=\"\" desired=\"\" max=\"\"",
	},
	"replicas 2³¹−1 with maxSurge 1": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=2147483647/0/2147483647/2147483647/0 terminating=0 collisionCount=nil",
		"rs web-old replicas=2147483647 revision=\"1\" desired=\"2147483647\" max=\"2147483647\"",
		"rs web-84858898d4 replicas=0 revision=\"2\" desired=\"2147483647\" max=\"-2147483648\"",
	},
	"replicas 2³¹−1 with maxSurge 100%": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=20/10/20/20/0 terminating=0 collisionCount=nil",
		"rs web-new replicas=0 revision=\"2\" desired=\"2147483647\" max=\"-2\"",
		"rs web-old replicas=0 revision=\"1\" desired=\"2147483647\" max=\"-2\"",
		"event ScalingReplicaSet Scaled down replica set web-old from 10 to 0",
		"event ScalingReplicaSet Scaled down replica set web-new from 10 to 0",
	},
	"maxSurge 4294967296% of 100": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=100/0/100/100/0 terminating=0 collisionCount=nil",
		"rs web-old replicas=100 revision=\"1\" desired=\"100\" max=\"100\"",
		"rs web-84858898d4 replicas=0 revision=\"2\" desired=\"100\" max=\"100\"",
	},
	"maxSurge beyond int": {
		"failed=true",
		"deployment revision=\"\" replicas/updated/ready/available/unavailable=0/0/0/0/0 terminating=nil collisionCount=nil",
		"rs web-old replicas=10 revision=\"1\" desired=\"10\" max=\"10\"",
	},
	"spec, status, ready and available sums wrap": {
		"failed=false",
		"deployment revision=\"\" replicas/updated/ready/available/unavailable=-1294967296/0/-1294967296/-1294967296/0 terminating=0 collisionCount=nil",
		"rs web-a replicas=-1 revision=\"1\" desired=\"10\" max=\"13\"",
		"rs web-b replicas=14 revision=\"2\" desired=\"10\" max=\"13\"",
		"event ScalingReplicaSet Scaled down replica set web-b from 1500000000 to 14",
		"event ScalingReplicaSet Scaled down replica set web-a from 1500000000 to -1",
	},
	"old ReplicaSets' sum wraps in the rolling step": {
		"failed=false",
		"deployment revision=\"3\" replicas/updated/ready/available/unavailable=-294967286/10/-294967286/-294967286/0 terminating=0 collisionCount=nil",
		"rs web-new replicas=10 revision=\"3\" desired=\"10\" max=\"10\"",
		"rs web-a replicas=0 revision=\"1\" desired=\"10\" max=\"13\"",
		"rs web-b replicas=0 revision=\"2\" desired=\"10\" max=\"13\"",
		"event ScalingReplicaSet Scaled down replica set web-b from 2000000000 to 0",
		"event ScalingReplicaSet Scaled down replica set web-a from 2000000000 to 0",
	},
	"terminating sum wraps": {
		"failed=false",
		"deployment revision=\"3\" replicas/updated/ready/available/unavailable=10/10/10/10/0 terminating=-2147483644 collisionCount=nil",
		"rs web-new replicas=10 revision=\"3\" desired=\"10\" max=\"10\"",
		"rs web-a replicas=0 revision=\"1\" desired=\"0\" max=\"0\"",
	},
	"proportional product wraps, scaling up": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=50000/25000/50000/50000/0 terminating=0 collisionCount=nil",
		"rs web-new replicas=135899 revision=\"2\" desired=\"100000\" max=\"100000\"",
		"rs web-old replicas=-35899 revision=\"1\" desired=\"100000\" max=\"100000\"",
		"event ScalingReplicaSet Scaled up replica set web-new from 25000 to 135899",
		"event ScalingReplicaSet Scaled down replica set web-old from 25000 to -35899",
	},
	"proportional product wraps, scaling event": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=100000/50000/100000/100000/0 terminating=0 collisionCount=nil",
		"rs web-new replicas=50000 revision=\"2\" desired=\"50000\" max=\"50000\"",
		"rs web-old replicas=0 revision=\"1\" desired=\"50000\" max=\"50000\"",
		"event ScalingReplicaSet Scaled down replica set web-old from 50000 to 0",
	},
	"pods keyed by an unknown UID": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=0/0/0/0/3 terminating=0 collisionCount=nil",
		"rs web-old replicas=0 revision=\"1\" desired=\"3\" max=\"3\"",
		"rs web-84858898d4 replicas=3 revision=\"2\" desired=\"3\" max=\"3\"",
		"event ScalingReplicaSet Scaled up replica set web-84858898d4 from 0 to 3",
	},
	"pods with foreign controllers": {
		"failed=false",
		"deployment revision=\"2\" replicas/updated/ready/available/unavailable=0/0/0/0/3 terminating=0 collisionCount=nil",
		"rs web-old replicas=0 revision=\"1\" desired=\"3\" max=\"3\"",
		"rs web-84858898d4 replicas=3 revision=\"2\" desired=\"3\" max=\"3\"",
		"event ScalingReplicaSet Scaled up replica set web-84858898d4 from 0 to 3",
	},
	"a pod listed under the wrong key": {
		"failed=false",
		"deployment revision=\"\" replicas/updated/ready/available/unavailable=0/0/0/0/0 terminating=0 collisionCount=nil",
		"rs web-old replicas=0 revision=\"1\" desired=\"3\" max=\"3\"",
	},
}

// TestFormerlyRefused checks that every state Sync used to refuse with an
// InputError although an apiserver accepts it (see internal/testing/accepted: one
// row per state, the row's reason is the state's) now gets a plan, and that
// the plan applied gives upstream's outcome, wrap-arounds included.
func TestFormerlyRefused(t *testing.T) {
	cases := accepted.States()
	if len(cases) != len(upstreamOutcomes) {
		t.Errorf("%d contract states, %d upstream outcomes", len(cases), len(upstreamOutcomes))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if c.Reason == "" {
				t.Fatal("reason must be provided")
			}
			want, ok := upstreamOutcomes[c.Name]
			if !ok {
				t.Fatalf("no upstream outcome recorded for %q", c.Name)
			}
			s := c.State
			frozen := testutil.Freeze(t, s.Deployment, s.ReplicaSets, s.Pods)
			plan, err := deploysync.Sync(s)
			frozen.Check(t)
			if err != nil {
				t.Fatalf("Sync refused it: %v (%s)", err, c.Reason)
			}
			after, err := deploysync.Apply(s, plan)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if diff := cmp.Diff(want, contractSummary(after, plan)); diff != "" {
				t.Errorf("outcome differs from upstream's (-upstream +ours), %s:\n%s\nplan:\n%s", c.Reason, diff, plan)
			}
		})
	}
}

// TestProportionalOverflowFix checks the one contract state where the fix
// decides differently: with FixProportionalOverflow the product is computed
// in 64 bits, so both ReplicaSets double (25000 × 100000 / 50000).
func TestProportionalOverflowFix(t *testing.T) {
	var s deploysync.State
	for _, c := range accepted.States() {
		if c.Name == "proportional product wraps, scaling up" {
			s = c.State
		}
	}
	if s.Deployment == nil {
		t.Fatal("contract state missing")
	}
	plan, err := deploysync.Sync(s, deploysync.WithFixes(deploysync.FixProportionalOverflow))
	if err != nil {
		t.Fatal(err)
	}
	after, err := deploysync.Apply(s, plan)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int32{}
	for _, rs := range after.ReplicaSets {
		got[rs.Name] = *rs.Spec.Replicas
	}
	if want := map[string]int32{"web-new": 50000, "web-old": 50000}; !cmp.Equal(got, want) {
		t.Errorf("sizes with the fix %v, want %v:\n%s", got, want, plan)
	}
}

// contractSummary renders an applied plan the way upstream's outcomes above
// were rendered: whether the sync failed, the Deployment's revision and
// status counts, every ReplicaSet's size and replica annotations, and the
// events.
func contractSummary(s deploysync.State, p deploysync.Plan) []string {
	d := s.Deployment
	str := func(v *int32) string {
		if v == nil {
			return "nil"
		}
		return fmt.Sprint(*v)
	}
	out := []string{fmt.Sprintf("failed=%v", p.Err != nil), fmt.Sprintf("deployment revision=%q replicas/updated/ready/available/unavailable=%d/%d/%d/%d/%d terminating=%s collisionCount=%s",
		d.Annotations[deployutil.RevisionAnnotation], d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas,
		d.Status.UnavailableReplicas, str(d.Status.TerminatingReplicas), str(d.Status.CollisionCount))}
	for _, rs := range s.ReplicaSets {
		out = append(out, rsSummary(rs))
	}
	for _, a := range p.Actions {
		if e, ok := a.(*action.Event); ok {
			out = append(out, "event "+e.Reason+" "+e.Message)
		}
	}
	return out
}

func rsSummary(rs *appsv1.ReplicaSet) string {
	return fmt.Sprintf("rs %s replicas=%d revision=%q desired=%q max=%q", rs.Name, *rs.Spec.Replicas, rs.Annotations[deployutil.RevisionAnnotation],
		rs.Annotations[deployutil.DesiredReplicasAnnotation], rs.Annotations[deployutil.MaxReplicasAnnotation])
}
