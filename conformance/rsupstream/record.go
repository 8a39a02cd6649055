package rsupstream

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Record is one line of a per-minor recording
// (testdata/replicaset/<minor>.replicaset.jsonl.gz, written by command
// record against that minor's k8s.io/kubernetes), and, without an Outcome,
// of the inputs it is recorded on (TestWriteRecordInputs).
type Record struct {
	// Name is a named scenario's, or "random" for Seed's random state.
	Name string `json:"name"`
	Seed int    `json:"seed,omitempty"`
	// GateDefault: the sync ran with the DeploymentReplicaSetTerminatingReplicas
	// gate at the minor's default, which the recorder writes into
	// Input.TerminatingReplicas; otherwise the gate was set to that value.
	GateDefault bool `json:"gateDefault,omitempty"`
	// Input is the state as the minor decoded it.
	Input   Input    `json:"input"`
	Outcome *Outcome `json:"outcome,omitempty"`
}

// ReadRecords calls fn on each record of a gzip'd JSON-lines file.
func ReadRecords(path string, fn func(Record) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 0, 1<<20), 256<<20)
	for n := 1; sc.Scan(); n++ {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("%s: line %d: %w", path, n, err)
		}
		if err := fn(r); err != nil {
			return fmt.Errorf("%s: line %d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil && err != io.EOF {
		return err
	}
	return nil
}

// RecordWriter writes records as gzip'd JSON lines, without a name or a
// modification time in the gzip header, so the same records give the same
// bytes.
type RecordWriter struct {
	f   *os.File
	zw  *gzip.Writer
	enc *json.Encoder
}

// CreateRecords creates path for writing records.
func CreateRecords(path string) (*RecordWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	return &RecordWriter{f: f, zw: zw, enc: json.NewEncoder(zw)}, nil
}

// Write writes one record.
func (w *RecordWriter) Write(r Record) error { return w.enc.Encode(r) }

// Close flushes and closes the file.
func (w *RecordWriter) Close() error {
	if err := w.zw.Close(); err != nil {
		w.f.Close()
		return err
	}
	return w.f.Close()
}
