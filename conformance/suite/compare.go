// Package suite compares deploysync with upstream's controller: for a state,
// it runs upstream's syncDeployment (package upstream) and deploysync's Sync
// followed by Apply, and reports every difference in the resulting objects,
// events, error and requeue.
package suite

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/conformance/upstream"
)

// Result is the outcome of one sync, in the form both sides are compared in.
type Result struct {
	Deployment         *appsv1.Deployment
	ReplicaSets        []*appsv1.ReplicaSet
	Events             []upstream.Event
	Failed             bool // the sync returned an error
	RequeueRateLimited bool
	RequeueAfter       time.Duration
}

// Ours runs Sync and Apply on a state and returns the result and the plan.
func Ours(s deploysync.State, terminatingReplicas bool) (Result, deploysync.Plan, error) {
	return OursWith(s, terminatingReplicas)
}

// OursWith is [Ours] with more Sync options (fixes, for example).
func OursWith(s deploysync.State, terminatingReplicas bool, opts ...deploysync.Option) (Result, deploysync.Plan, error) {
	plan, err := deploysync.Sync(s, append([]deploysync.Option{deploysync.WithTerminatingReplicas(terminatingReplicas)}, opts...)...)
	if err != nil {
		return Result{}, plan, fmt.Errorf("deploysync refused the state: %w", err)
	}
	after, err := deploysync.Apply(s, plan)
	if err != nil {
		return Result{}, plan, fmt.Errorf("applying the plan: %w", err)
	}
	r := Result{
		Deployment:         after.Deployment,
		ReplicaSets:        after.ReplicaSets,
		Failed:             plan.Err != nil,
		RequeueRateLimited: plan.Requeue,
		RequeueAfter:       plan.RequeueAfter,
	}
	for _, a := range plan.Actions {
		if e, ok := a.(*action.Event); ok {
			r.Events = append(r.Events, upstream.Event{Type: e.Type, Reason: e.Reason, Message: e.Message})
		}
	}
	r, err = normalize(r)
	return r, plan, err
}

// Theirs runs upstream's sync on a state.
func Theirs(s deploysync.State, terminatingReplicas bool) (Result, upstream.Outcome, error) {
	return runTheirs(s, terminatingReplicas, false)
}

func runTheirs(s deploysync.State, terminatingReplicas, laggingCache bool) (Result, upstream.Outcome, error) {
	out, err := upstream.Run(upstream.Input{Deployment: s.Deployment, ReplicaSets: s.ReplicaSets, Pods: s.Pods, Now: s.Now,
		TerminatingReplicas: terminatingReplicas, LaggingCache: laggingCache})
	if err != nil {
		return Result{}, out, fmt.Errorf("upstream runner: %w", err)
	}
	r, err := normalize(Result{
		Deployment:         out.Deployment,
		ReplicaSets:        out.ReplicaSets,
		Events:             out.Events,
		Failed:             out.Err != nil,
		RequeueRateLimited: out.RequeueRateLimited,
		RequeueAfter:       out.RequeueAfter,
	})
	return r, out, err
}

// normalize passes the objects through JSON, as an apiserver stores them
// (upstream's outcome already went through it).
func normalize(r Result) (Result, error) {
	var err error
	if r.Deployment, err = roundTrip(r.Deployment); err != nil {
		return r, err
	}
	for i, rs := range r.ReplicaSets {
		if r.ReplicaSets[i], err = roundTrip(rs); err != nil {
			return r, err
		}
	}
	return r, nil
}

func roundTrip[T any](obj *T) (*T, error) {
	if obj == nil {
		return nil, nil
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	out := new(T)
	return out, json.Unmarshal(b, out)
}

// Diff returns a readable difference between the two results, or "". An
// empty list of ReplicaSets equals none (Apply keeps an emptied slice).
//
// Equal results are recognised first with apimachinery's semantic equality
// (which, like EquateEmpty, equates empty and nil), several times faster on
// full pod templates; cmp renders any difference.
func Diff(ours, theirs Result) string {
	if equality.Semantic.DeepEqual(theirs, ours) {
		return ""
	}
	return cmp.Diff(theirs, ours, cmpopts.EquateEmpty())
}

// Mismatch describes a difference for a failure message: the input as YAML,
// both plans' logs and the difference (- upstream, + deploysync).
type Mismatch struct {
	Name     string
	State    deploysync.State
	Gate     bool
	Diff     string
	Plan     deploysync.Plan
	Upstream upstream.Outcome
}

// Error is the report: the state, then each difference.
func (m Mismatch) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: deploysync differs from upstream (- upstream, + deploysync):\n%s\n", m.Name, m.Diff)
	fmt.Fprintf(&b, "deploysync's plan:\n%s\n", m.Plan)
	fmt.Fprintf(&b, "upstream's calls:\n  %s\n", strings.Join(m.Upstream.Actions, "\n  "))
	if m.Upstream.Err != nil {
		fmt.Fprintf(&b, "upstream's error: %v\n", m.Upstream.Err)
	}
	fmt.Fprintf(&b, "terminatingReplicas gate: %v\ninput:\n%s", m.Gate, StateYAML(m.State))
	return b.String()
}

// StateYAML renders a state as YAML documents.
func StateYAML(s deploysync.State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# now: %s\n", s.Now.Format(time.RFC3339Nano))
	objs := []any{s.Deployment}
	for _, rs := range s.ReplicaSets {
		objs = append(objs, rs)
	}
	for _, pods := range s.Pods {
		for _, p := range pods {
			objs = append(objs, p)
		}
	}
	for _, o := range objs {
		y, err := yaml.Marshal(o)
		if err != nil {
			y = []byte(err.Error())
		}
		b.WriteString("---\n")
		b.Write(y)
	}
	return b.String()
}

// Compare runs both sides on a state and returns a *Mismatch error if they
// differ; other errors are harness failures. It returns our result, which a
// trajectory continues from.
func Compare(name string, s deploysync.State, gate bool) (Result, error) {
	ours, _, _, err := CompareOutcomes(name, s, gate)
	return ours, err
}

// CompareOutcomes is Compare that also returns our plan and upstream's
// outcome, of which the coverage table is made.
func CompareOutcomes(name string, s deploysync.State, gate bool) (Result, deploysync.Plan, upstream.Outcome, error) {
	return compareOutcomes(name, s, gate, false)
}

// CompareLagging is CompareOutcomes with a lagging ReplicaSet cache on both
// sides: deploysync.WithLaggingCache beside upstream.Input.LaggingCache.
func CompareLagging(name string, s deploysync.State, gate bool) (Result, deploysync.Plan, upstream.Outcome, error) {
	return compareOutcomes(name+" (lagging cache)", s, gate, true)
}

func compareOutcomes(name string, s deploysync.State, gate, lagging bool) (Result, deploysync.Plan, upstream.Outcome, error) {
	var opts []deploysync.Option
	if lagging {
		opts = append(opts, deploysync.WithLaggingCache())
	}
	ours, plan, err := OursWith(s, gate, opts...)
	if err != nil {
		return Result{}, plan, upstream.Outcome{}, fmt.Errorf("%s: %w\ninput:\n%s", name, err, StateYAML(s))
	}
	theirs, out, err := runTheirs(s, gate, lagging)
	if err != nil {
		return Result{}, plan, out, fmt.Errorf("%s: %w\ninput:\n%s", name, err, StateYAML(s))
	}
	if d := Diff(ours, theirs); d != "" {
		return ours, plan, out, &Mismatch{Name: name, State: s, Gate: gate, Diff: d, Plan: plan, Upstream: out}
	}
	return ours, plan, out, nil
}

// IsMismatch reports whether err is a difference between the two sides.
func IsMismatch(err error) bool {
	var m *Mismatch
	return errors.As(err, &m)
}
