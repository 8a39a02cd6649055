// Command record writes one minor's corpus (package minors): it draws the
// states with the library's generators (the scenario suite, internal/testing/randstate
// with fixed seeds, rollouts in the simulate world, templates), asks an
// oracle built against that minor's k8s.io/kubernetes what upstream does on
// each, and writes the answers under -out. hack/record-minors.sh runs it.
//
// The output depends only on the seeds, the generators and the oracle: the
// same inputs give the same bytes.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/conformance/minors"
	"github.com/deploysync/deploysync/conformance/minors/corpus"
	"github.com/deploysync/deploysync/internal/testing/scenarios"
)

func main() {
	minor := flag.String("minor", "", "the minor recorded (1.33 … 1.37)")
	oraclePath := flag.String("oracle", "", "the oracle binary built against that minor")
	out := flag.String("out", "", "the corpus directory to write")
	states := flag.Int("states", 5000, "random states")
	trajectories := flag.Int("trajectories", 200, "trajectories")
	fuzzed := flag.Int("fuzzed-templates", 1700, "fuzzed templates (the hand-shaped ones come on top)")
	kubectlStates := flag.Int("kubectl-states", 300, "random states kubectl is asked about (the scenarios come on top)")
	only := flag.String("only", "", "record only this file (a quick look; the manifest is not written)")
	flag.Parse()
	if _, ok := minors.Versions[*minor]; !ok || *oraclePath == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: record -minor 1.3x -oracle path -out dir")
		os.Exit(2)
	}
	if err := record(*minor, *oraclePath, *out, *only, *states, *trajectories, *fuzzed, *kubectlStates); err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		os.Exit(1)
	}
}

func record(minor, oraclePath, out, only string, nStates, nTrajectories, nFuzzed, nKubectl int) error {
	o, err := startOracle(oraclePath)
	if err != nil {
		return err
	}
	defer o.close()
	info, err := o.ask(minors.Request{Op: "info"})
	if err != nil {
		return err
	}
	if info.Version != minors.Versions[minor] {
		return fmt.Errorf("the oracle is built with k8s.io/kubernetes %s, not %s", info.Version, minors.Versions[minor])
	}
	m := minors.Manifest{Minor: minor, Upstream: info.Version, GateDefault: info.GateDefault, Files: map[string]int{}}

	step := func(file string, f func() ([]minors.Record, []string, error)) error {
		if only != "" && only != file {
			return nil
		}
		start := time.Now()
		recs, notes, err := f()
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if err := minors.WriteRecords(filepath.Join(out, file), recs); err != nil {
			return err
		}
		m.Files[file] = len(recs)
		m.Notes = append(m.Notes, notes...)
		fmt.Fprintf(os.Stderr, "record %s: %s: %d records in %s\n", minor, file, len(recs), time.Since(start).Round(time.Second))
		return nil
	}
	if err := step(minors.ScenariosFile, func() ([]minors.Record, []string, error) { return recordScenarios(o, info.GateDefault) }); err != nil {
		return err
	}
	if err := step(minors.RandomFile, func() ([]minors.Record, []string, error) { return recordRandom(o, nStates) }); err != nil {
		return err
	}
	if err := step(minors.TrajectoriesFile, func() ([]minors.Record, []string, error) { return recordTrajectories(o, nTrajectories) }); err != nil {
		return err
	}
	if err := step(minors.TemplatesFile, func() ([]minors.Record, []string, error) { return recordTemplates(o, info.GateDefault, nFuzzed) }); err != nil {
		return err
	}
	if err := step(minors.KubectlFile, func() ([]minors.Record, []string, error) { return recordKubectl(o, nKubectl) }); err != nil {
		return err
	}
	if only != "" {
		return nil
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, minors.ManifestFile), append(b, '\n'), 0o644)
}

// oracle is the running oracle the recorder asks.
type oracle struct{ *minors.Oracle }

func startOracle(path string) (*oracle, error) {
	o, err := minors.StartOracle(path)
	if err != nil {
		return nil, err
	}
	return &oracle{o}, nil
}

func (o *oracle) ask(req minors.Request) (minors.Response, error) { return o.Ask(req) }

func (o *oracle) close() { _ = o.Close() }

// syncRecord asks the oracle to sync s and makes the answer a record.
func (o *oracle) syncRecord(id string, s deploysync.State, gate bool) (minors.Record, error) {
	st, err := corpus.Encode(s)
	if err != nil {
		return minors.Record{}, fmt.Errorf("%s: %w", id, err)
	}
	return o.Sync(id, st, gate)
}

// recordScenarios records every named scenario with its own gate value and,
// where the minor's default differs, with the default too.
func recordScenarios(o *oracle, gateDefault bool) ([]minors.Record, []string, error) {
	var recs []minors.Record
	seen := map[string]bool{}
	for _, sc := range scenarios.All() {
		gates := []bool{!sc.NoTerminatingReplicas}
		if gateDefault != gates[0] {
			gates = append(gates, gateDefault)
		}
		for i, gate := range gates {
			id := sc.Name
			if i > 0 {
				id = fmt.Sprintf("%s [gate %t]", sc.Name, gate)
			}
			if seen[id] {
				return nil, nil, fmt.Errorf("two scenarios named %q", id)
			}
			seen[id] = true
			r, err := o.syncRecord(id, sc.State, gate)
			if err != nil {
				return nil, nil, err
			}
			recs = append(recs, r)
		}
	}
	return recs, nil, nil
}

// planOf expresses upstream's outcome on s as a plan whose Apply gives the
// outcome's objects, so the simulate world goes on with upstream's decision.
func planOf(s deploysync.State, out *minors.Outcome) (deploysync.Plan, error) {
	d, rss, err := corpus.Objects(out)
	if err != nil {
		return deploysync.Plan{}, err
	}
	var p deploysync.Plan
	after := map[string]*appsv1.ReplicaSet{}
	for _, rs := range rss {
		after[rs.Name] = rs
	}
	before := map[string]*appsv1.ReplicaSet{}
	for _, rs := range s.ReplicaSets {
		before[rs.Name] = rs
		a, ok := after[rs.Name]
		switch {
		case !ok:
			p.Actions = append(p.Actions, &action.DeleteReplicaSet{Namespace: rs.Namespace, Name: rs.Name, UID: rs.UID, Why: note("upstream deleted it")})
		case !equality.Semantic.DeepEqual(a.ObjectMeta, rs.ObjectMeta) || !equality.Semantic.DeepEqual(a.Spec, rs.Spec):
			p.Actions = append(p.Actions, &action.UpdateReplicaSet{ReplicaSet: a, Why: note("upstream updated it")})
		}
	}
	for _, rs := range rss {
		if before[rs.Name] == nil {
			p.Actions = append(p.Actions, &action.CreateReplicaSet{ReplicaSet: rs, Why: note("upstream created it")})
		}
	}
	old := s.Deployment
	if !equality.Semantic.DeepEqual(d.ObjectMeta, old.ObjectMeta) || !equality.Semantic.DeepEqual(d.Spec, old.Spec) {
		p.Actions = append(p.Actions, &action.UpdateDeployment{Deployment: d, Why: note("upstream updated it")})
	}
	if !equality.Semantic.DeepEqual(d.Status, old.Status) || !equality.Semantic.DeepEqual(d.Annotations, old.Annotations) {
		p.Actions = append(p.Actions, &action.UpdateDeploymentStatus{Deployment: d, Why: note("upstream updated its status")})
	}
	for _, e := range out.Events {
		p.Actions = append(p.Actions, &action.Event{Type: e.Type, Reason: e.Reason, Message: e.Message, Why: note("upstream recorded it")})
	}
	p.Requeue, p.RequeueAfter = out.RequeueRateLimited, out.RequeueAfter
	if out.Failed {
		p.Err = errors.New(out.Err)
	}
	return p, nil
}

// note is the reason of a recorded action: upstream decided it, so the
// recording can only say what upstream did.
func note(text string) action.Reasons {
	return action.Reasons{action.Because(action.RuleNote, action.Str("text", text))}
}
