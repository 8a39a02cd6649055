// Package minors is the recorded layer of the per-minor proof: the
// question-and-answer protocol between the recorder (which draws states with
// the library's generators) and an oracle built against one minor's
// k8s.io/kubernetes, and the corpus of answers the recorder writes under
// testdata/minors/<minor>/.
//
// It imports nothing but the standard library, so that
// hack/record-minors.sh can copy it, with package upstream and the oracle,
// into a scratch module pinned to an older k8s.io/kubernetes.
//
// Every object crosses the protocol and lands in the corpus as JSON
// (json.RawMessage): the oracle decodes what it is sent into its own minor's
// types, exactly as that minor's apiserver would (fields it does not know are
// dropped), and answers with that decoding re-encoded. The corpus therefore
// holds each input as the minor saw it.
package minors

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// Versions maps each supported minor to the upstream release recorded for it.
var Versions = map[string]string{
	"1.33": "v1.33.5",
	"1.34": "v1.34.4",
	"1.35": "v1.35.4",
	"1.36": "v1.36.3",
	"1.37": "v1.37.2",
}

// Request is one question to the oracle.
type Request struct {
	// Op is "info", "sync", "hash" or "kubectl".
	Op string `json:"op"`
	// State is the state to sync (op "sync").
	State *State `json:"state,omitempty"`
	// Gate is the value of the DeploymentReplicaSetTerminatingReplicas
	// feature gate for the sync (op "sync").
	Gate bool `json:"gate,omitempty"`
	// Template and CollisionCount are the arguments of controller.ComputeHash
	// (op "hash").
	Template       json.RawMessage `json:"template,omitempty"`
	CollisionCount *int32          `json:"collisionCount,omitempty"`
	// Revisions are the revisions kubectl is asked about on State's
	// Deployment and ReplicaSets (op "kubectl").
	Revisions []int64 `json:"revisions,omitempty"`
}

// State is a sync's input: the Deployment, the ReplicaSets in list order,
// the pods by the UID of the ReplicaSet they are filed under, and the time.
type State struct {
	Deployment  json.RawMessage              `json:"deployment"`
	ReplicaSets []json.RawMessage            `json:"replicaSets,omitempty"`
	Pods        map[string][]json.RawMessage `json:"pods,omitempty"`
	Now         time.Time                    `json:"now"`
}

// Event is an event the sync recorded on the Deployment.
type Event struct {
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Outcome is what upstream's syncDeployment intended (see package upstream):
// the objects after its writes, its events in order, its error and requeue.
type Outcome struct {
	Deployment         json.RawMessage   `json:"deployment"`
	ReplicaSets        []json.RawMessage `json:"replicaSets,omitempty"`
	Events             []Event           `json:"events,omitempty"`
	Err                string            `json:"err,omitempty"`
	Failed             bool              `json:"failed,omitempty"`
	RequeueRateLimited bool              `json:"requeueRateLimited,omitempty"`
	RequeueAfter       time.Duration     `json:"requeueAfter,omitempty"`
}

// Response is the oracle's answer to one Request.
type Response struct {
	// Error reports a request the oracle could not read; the recorder stops.
	Error string `json:"error,omitempty"`

	// Version is the k8s.io/kubernetes release the oracle was built with and
	// GateDefault the default of DeploymentReplicaSetTerminatingReplicas in
	// it (op "info").
	Version     string `json:"version,omitempty"`
	GateDefault bool   `json:"gateDefault,omitempty"`

	// Input is the state as the minor decoded it (op "sync").
	Input *State `json:"input,omitempty"`
	// Accepted and Refusal are the minor's own validation of the state
	// (upstream.Accepts): whether its apiserver holds such objects, and the
	// first error if not.
	Accepted bool   `json:"accepted,omitempty"`
	Refusal  string `json:"refusal,omitempty"`
	// RunnerError is a failure of the runner (upstream panicked on a state no
	// apiserver holds, for example); Outcome is nil then.
	RunnerError string   `json:"runnerError,omitempty"`
	Outcome     *Outcome `json:"outcome,omitempty"`

	// Template is the template as the minor decoded it and Hash its
	// controller.ComputeHash (op "hash").
	Template json.RawMessage `json:"template,omitempty"`
	Hash     string          `json:"hash,omitempty"`

	// Kubectl is the minor's kubectl's answers (op "kubectl"; Input is
	// the state as the minor decoded it).
	Kubectl *Kubectl `json:"kubectl,omitempty"`
}

// Kubectl is what the kubectl of a minor answers on one Deployment and its
// ReplicaSets: the describe printer on the Deployment's template, and per
// revision asked, the rollout status viewer, `kubectl rollout history
// [--revision N]` and `kubectl rollout undo [--to-revision N]` (the
// commands themselves, on a fake apiserver).
type Kubectl struct {
	// Describe is describe.DescribePodTemplate of the Deployment's
	// template; DescribePanic is set instead if the printer panicked.
	Describe      string            `json:"describe,omitempty"`
	DescribePanic string            `json:"describePanic,omitempty"`
	Revisions     []KubectlRevision `json:"revisions"`
}

// KubectlRevision is kubectl's answers for one revision.
type KubectlRevision struct {
	Revision int64 `json:"revision"`

	// The status viewer (polymorphichelpers.DeploymentStatusViewer) on
	// the Deployment: its message, verdict and error.
	Status    string `json:"status"`
	Done      bool   `json:"done,omitempty"`
	StatusErr string `json:"statusErr,omitempty"`

	// `kubectl rollout history deployment/NAME --revision N`: standard
	// output and the error the command returned. HistoryPanic is set if
	// kubectl panicked (some templates crash its describe printer).
	History      string `json:"history,omitempty"`
	HistoryErr   string `json:"historyErr,omitempty"`
	HistoryPanic string `json:"historyPanic,omitempty"`

	// `kubectl rollout undo deployment/NAME --to-revision N`: standard
	// output, standard error, the command's error, the patch it sent to the
	// Deployment (if any) with its type, and the Deployment after the patch
	// if it applied.
	UndoOut       string          `json:"undoOut,omitempty"`
	UndoErrOut    string          `json:"undoErrOut,omitempty"`
	UndoErr       string          `json:"undoErr,omitempty"`
	UndoPanic     string          `json:"undoPanic,omitempty"`
	UndoPatch     string          `json:"undoPatch,omitempty"`
	UndoPatchType string          `json:"undoPatchType,omitempty"`
	UndoAfter     json.RawMessage `json:"undoAfter,omitempty"`
}

// Record is one line of a corpus file.
type Record struct {
	// ID names the record uniquely within its file ("seed 17",
	// "trajectory 4 sync 12", a scenario's name).
	ID string `json:"id"`
	// Gate is the value of DeploymentReplicaSetTerminatingReplicas.
	Gate bool `json:"gate"`
	// Input, Accepted, Refusal, RunnerError and Outcome are the oracle's
	// answer to the sync of the state (see Response).
	Input       *State   `json:"input"`
	Accepted    bool     `json:"accepted"`
	Refusal     string   `json:"refusal,omitempty"`
	RunnerError string   `json:"runnerError,omitempty"`
	Outcome     *Outcome `json:"outcome,omitempty"`

	// Template records only (templates.jsonl.gz): the input Deployment's
	// template hashed with its status.collisionCount by the minor's
	// controller.ComputeHash, and, when the minor's decoding changed the
	// template as generated, the template as generated (it must hash the
	// same: an older apiserver drops the fields it does not know).
	Hash     string          `json:"hash,omitempty"`
	Original json.RawMessage `json:"original,omitempty"`

	// Kubectl records only (kubectl.jsonl.gz): kubectl's answers on the
	// input's Deployment and ReplicaSets.
	Kubectl *Kubectl `json:"kubectl,omitempty"`
}

// Manifest describes one minor's corpus (manifest.json).
type Manifest struct {
	Minor       string         `json:"minor"`
	Upstream    string         `json:"upstream"`
	GateDefault bool           `json:"gateDefault"`
	Files       map[string]int `json:"files"` // records per file
	Notes       []string       `json:"notes,omitempty"`
}

// The corpus files of a minor.
const (
	ScenariosFile    = "scenarios.jsonl.gz"
	RandomFile       = "random.jsonl.gz"
	TrajectoriesFile = "trajectories.jsonl.gz"
	TemplatesFile    = "templates.jsonl.gz"
	KubectlFile      = "kubectl.jsonl.gz"
	ManifestFile     = "manifest.json"
)

// WriteRecords writes records to path as gzip'd JSON lines, byte for byte the
// same for the same records: the gzip header carries no name and no time.
func WriteRecords(path string, records []Record) error {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	zw.Header = gzip.Header{OS: 255}
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	for i := range records {
		if err := enc.Encode(&records[i]); err != nil {
			return fmt.Errorf("%s: record %q: %w", path, records[i].ID, err)
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// ReadRecords reads a file WriteRecords wrote.
func ReadRecords(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []Record
	dec := json.NewDecoder(bufio.NewReaderSize(zr, 1<<20))
	for {
		var r Record
		err := dec.Decode(&r)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: record %d: %w", path, len(out)+1, err)
		}
		out = append(out, r)
	}
}
