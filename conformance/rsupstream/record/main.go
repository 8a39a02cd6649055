// Command record writes one minor's recording of upstream's ReplicaSet
// controller: it reads the inputs TestWriteRecordInputs wrote (one
// rsupstream.Record a line, without outcome), decodes each into the types
// of the k8s.io/api it is built with (fields that minor does not know are
// dropped, as its apiserver drops them), runs rsupstream.Run, one
// syncReplicaSet of the k8s.io/kubernetes it is built with, and writes
// the record with the input as decoded and upstream's outcome.
// hack/record-replicaset.sh builds it against each minor's
// k8s.io/kubernetes (with that minor's build tag for the controller's
// field names) and runs it.
//
// A record marked GateDefault runs with the
// DeploymentReplicaSetTerminatingReplicas gate at the value the binary
// starts with (the minor's default, read before any run sets it), and
// that value is written into its input.
//
// The output depends only on the inputs and the upstream code: the same
// inputs give the same bytes.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"

	"github.com/deploysync/deploysync/conformance/rsupstream"
)

func main() {
	in := flag.String("in", "", "the inputs (rsupstream.Record JSON lines, gzip)")
	out := flag.String("out", "", "the recording (JSON lines, gzip)")
	flag.Parse()
	if *in == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: record -in inputs.jsonl.gz -out minor.replicaset.jsonl.gz")
		os.Exit(2)
	}
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)
	if err := run(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		os.Exit(1)
	}
}

func run(inPath, outPath string) error {
	def := utilfeature.DefaultFeatureGate.Enabled(features.DeploymentReplicaSetTerminatingReplicas)
	w, err := rsupstream.CreateRecords(outPath)
	if err != nil {
		return err
	}
	n, defaults := 0, 0
	err = rsupstream.ReadRecords(inPath, func(r rsupstream.Record) error {
		if r.GateDefault {
			r.Input.TerminatingReplicas = def
			defaults++
		}
		out, err := rsupstream.Run(r.Input)
		if err != nil {
			return fmt.Errorf("%s %d: %w", r.Name, r.Seed, err)
		}
		r.Outcome = &out
		n++
		return w.Write(r)
	})
	if err != nil {
		w.Close()
		return err
	}
	fmt.Fprintf(os.Stderr, "record: %d records (%d with the gate at its default, %v)\n", n, defaults, def)
	return w.Close()
}
