package minors

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// Oracle is a running oracle process (command minors/oracle built against
// one minor), asked one question at a time. It is not safe for concurrent
// use.
type Oracle struct {
	cmd *exec.Cmd
	in  *bufio.Writer
	w   io.WriteCloser
	dec *json.Decoder
}

// StartOracle starts the oracle binary at path; its stderr goes to ours.
func StartOracle(path string) (*Oracle, error) {
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
	return &Oracle{cmd: cmd, in: bufio.NewWriterSize(w, 1<<20), w: w, dec: json.NewDecoder(bufio.NewReaderSize(r, 1<<20))}, nil
}

// Ask sends one request and reads the answer; an answer carrying Error is
// returned with that error.
func (o *Oracle) Ask(req Request) (Response, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return Response{}, err
	}
	if _, err := o.in.Write(append(b, '\n')); err != nil {
		return Response{}, err
	}
	if err := o.in.Flush(); err != nil {
		return Response{}, err
	}
	var resp Response
	if err := o.dec.Decode(&resp); err != nil {
		return resp, fmt.Errorf("reading the oracle's answer: %w", err)
	}
	if resp.Error != "" {
		return resp, fmt.Errorf("the oracle: %s", resp.Error)
	}
	return resp, nil
}

// Sync asks the oracle to sync st with the gate value and makes the answer a
// record named id.
func (o *Oracle) Sync(id string, st *State, gate bool) (Record, error) {
	resp, err := o.Ask(Request{Op: "sync", State: st, Gate: gate})
	if err != nil {
		return Record{}, fmt.Errorf("%s: %w", id, err)
	}
	return Record{ID: id, Gate: gate, Input: resp.Input, Accepted: resp.Accepted, Refusal: resp.Refusal, RunnerError: resp.RunnerError, Outcome: resp.Outcome}, nil
}

// Close ends the oracle: it closes its stdin and waits for it to exit.
func (o *Oracle) Close() error {
	_ = o.w.Close()
	return o.cmd.Wait()
}
