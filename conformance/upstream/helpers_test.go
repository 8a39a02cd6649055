package upstream_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/deploysync/deploysync/conformance/upstream"
)

// run runs upstream and fails the test on a harness error.
func run(t *testing.T, in upstream.Input) upstream.Outcome {
	t.Helper()
	out, err := upstream.Run(in)
	if err != nil {
		t.Fatalf("Run: %v\nactions:\n%s", err, strings.Join(out.Actions, "\n"))
	}
	t.Logf("actions:\n%s", strings.Join(out.Actions, "\n"))
	return out
}

// calls returns the part of each action line before the colon: the verb,
// resource and name, and "(stale)" for a write a real apiserver would refuse.
func calls(out upstream.Outcome) []string {
	var cs []string
	for _, a := range out.Actions {
		c, _, _ := strings.Cut(a, ":")
		cs = append(cs, c)
	}
	return cs
}

func wantCalls(t *testing.T, out upstream.Outcome, want ...string) {
	t.Helper()
	if got := calls(out); !reflect.DeepEqual(got, want) {
		t.Errorf("calls:\n got %q\nwant %q", got, want)
	}
}

func wantEvents(t *testing.T, out upstream.Outcome, want ...upstream.Event) {
	t.Helper()
	if len(out.Events) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(out.Events, want) {
		t.Errorf("events:\n got %+v\nwant %+v", out.Events, want)
	}
}

func normal(reason, message string) upstream.Event {
	return upstream.Event{Type: corev1.EventTypeNormal, Reason: reason, Message: message}
}

// findRS returns the ReplicaSet called name in the outcome, failing if absent.
func findRS(t *testing.T, out upstream.Outcome, name string) *appsv1.ReplicaSet {
	t.Helper()
	for _, rs := range out.ReplicaSets {
		if rs.Name == name {
			return rs
		}
	}
	t.Fatalf("no ReplicaSet %s in the outcome", name)
	return nil
}

func rsNames(out upstream.Outcome) []string {
	var names []string
	for _, rs := range out.ReplicaSets {
		names = append(names, rs.Name)
	}
	return names
}

// cond is the part of a condition the traces state.
type cond struct {
	Type, Status, Reason, Message string
}

func wantConditions(t *testing.T, d *appsv1.Deployment, want ...cond) {
	t.Helper()
	var got []cond
	for _, c := range d.Status.Conditions {
		got = append(got, cond{string(c.Type), string(c.Status), c.Reason, c.Message})
	}
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("conditions:\n got %+v\nwant %+v", got, want)
	}
}

// counts is the numeric part of a Deployment status, as the traces give it.
type counts struct {
	og                            int64
	r, upd, ready, avail, unavail int32
	term                          *int32
}

func wantCounts(t *testing.T, d *appsv1.Deployment, want counts) {
	t.Helper()
	s := d.Status
	got := counts{s.ObservedGeneration, s.Replicas, s.UpdatedReplicas, s.ReadyReplicas, s.AvailableReplicas, s.UnavailableReplicas, s.TerminatingReplicas}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("status counts:\n got %s\nwant %s", fmtCounts(got), fmtCounts(want))
	}
}

func fmtCounts(c counts) string {
	term := "nil"
	if c.term != nil {
		term = fmt.Sprint(*c.term)
	}
	return fmt.Sprintf("og=%d r=%d upd=%d ready=%d avail=%d unavail=%d term=%s", c.og, c.r, c.upd, c.ready, c.avail, c.unavail, term)
}

func wantMap(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	}
}
