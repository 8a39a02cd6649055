// Command record writes one minor's corpus (package minors): it draws the
// states with the library's generators (the scenario suite, internal/gen
// with fixed seeds, rollouts in the simulate world, templates), asks an
// oracle built against that minor's k8s.io/kubernetes what upstream does on
// each, and writes the answers under -out. hack/record-minors.sh runs it.
//
// The output depends only on the seeds, the generators and the oracle: the
// same inputs give the same bytes.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/action"
	"github.com/deploysync/deploysync/conformance/minors"
	"github.com/deploysync/deploysync/conformance/minors/corpus"
	"github.com/deploysync/deploysync/internal/scenarios"
)

func main() {
	minor := flag.String("minor", "", "the minor recorded (1.33 … 1.37)")
	oraclePath := flag.String("oracle", "", "the oracle binary built against that minor")
	out := flag.String("out", "", "the corpus directory to write")
	states := flag.Int("states", 5000, "random states")
	trajectories := flag.Int("trajectories", 200, "trajectories")
	fuzzed := flag.Int("fuzzed-templates", 1700, "fuzzed templates (the hand-shaped ones come on top)")
	flag.Parse()
	if _, ok := minors.Versions[*minor]; !ok || *oraclePath == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: record -minor 1.3x -oracle path -out dir")
		os.Exit(2)
	}
	if err := record(*minor, *oraclePath, *out, *states, *trajectories, *fuzzed); err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		os.Exit(1)
	}
}

func record(minor, oraclePath, out string, nStates, nTrajectories, nFuzzed int) error {
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
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, minors.ManifestFile), append(b, '\n'), 0o644)
}

// oracle is a running oracle process.
type oracle struct {
	cmd *exec.Cmd
	in  *bufio.Writer
	w   io.WriteCloser
	dec *json.Decoder
}

func startOracle(path string) (*oracle, error) {
	cmd := exec.Command(path)
	cmd.Stderr = os.Stderr
	w, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &oracle{cmd: cmd, in: bufio.NewWriterSize(w, 1<<20), w: w, dec: json.NewDecoder(bufio.NewReaderSize(r, 1<<20))}, nil
}

func (o *oracle) ask(req minors.Request) (minors.Response, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return minors.Response{}, err
	}
	if _, err := o.in.Write(append(b, '\n')); err != nil {
		return minors.Response{}, err
	}
	if err := o.in.Flush(); err != nil {
		return minors.Response{}, err
	}
	var resp minors.Response
	if err := o.dec.Decode(&resp); err != nil {
		return resp, fmt.Errorf("reading the oracle's answer: %w", err)
	}
	if resp.Error != "" {
		return resp, fmt.Errorf("the oracle: %s", resp.Error)
	}
	return resp, nil
}

func (o *oracle) close() {
	_ = o.w.Close()
	_ = o.cmd.Wait()
}

// syncRecord asks the oracle to sync s and makes the answer a record.
func (o *oracle) syncRecord(id string, s deploysync.State, gate bool) (minors.Record, error) {
	st, err := encodeState(s)
	if err != nil {
		return minors.Record{}, fmt.Errorf("%s: %w", id, err)
	}
	resp, err := o.ask(minors.Request{Op: "sync", State: st, Gate: gate})
	if err != nil {
		return minors.Record{}, fmt.Errorf("%s: %w", id, err)
	}
	return minors.Record{ID: id, Gate: gate, Input: resp.Input, Accepted: resp.Accepted, Refusal: resp.Refusal, RunnerError: resp.RunnerError, Outcome: resp.Outcome}, nil
}

func encodeState(s deploysync.State) (*minors.State, error) {
	st := &minors.State{Now: s.Now}
	var err error
	if st.Deployment, err = json.Marshal(s.Deployment); err != nil {
		return nil, err
	}
	for _, rs := range s.ReplicaSets {
		b, err := json.Marshal(rs)
		if err != nil {
			return nil, err
		}
		st.ReplicaSets = append(st.ReplicaSets, b)
	}
	if len(s.Pods) > 0 {
		st.Pods = map[string][]json.RawMessage{}
		for uid, list := range s.Pods {
			for _, p := range list {
				b, err := json.Marshal(p)
				if err != nil {
					return nil, err
				}
				st.Pods[string(uid)] = append(st.Pods[string(uid)], b)
			}
		}
	}
	return st, nil
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
