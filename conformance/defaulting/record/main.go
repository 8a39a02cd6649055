// Command record writes one minor's defaulting corpus: it reads
// Deployments, one JSON object a line (as TestWriteMinorInputs writes
// them), decodes each into the apps/v1 types of the k8s.io/api it is built
// with (so the fields that minor does not know are dropped, as its
// apiserver drops them), runs it through package defaulting's create path
// (the k8s.io/kubernetes it is built with) and writes a line for each:
// the SHA-256 of the Deployment read back as JSON, in
// defaulting.Canonical's form (cut to 128 bits; the
// JSON itself would make the corpus too big to commit), whether the
// strategy's validation accepts it, the conversion's error, the
// pod-template-hash the controller computes over the object read back,
// and the SHA-256 of the input line (cut to 64 bits), so that a replay on
// other inputs is told apart from a difference.
// With -update each line is a stored Deployment and the manifest that
// updates it, and the line written has the digest of the Deployment the
// update path stores (or its error), and of the ReplicaSet it stores for
// the same update of a ReplicaSet made of each (defaulting.ReplicaSetOf)
// and of a core/v1 PodTemplate holding each's template.
// hack/record-defaulting.sh builds it against each minor's
// k8s.io/kubernetes and runs it.
//
// The output depends only on the input and the upstream code: the same
// input gives the same bytes.
package main

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/kubernetes/pkg/controller"

	"github.com/deploysync/deploysync/conformance/defaulting"
)

// Record is one line of the output; package defaulting's
// TestMinorDeployments reads it.
type Record struct {
	In    string `json:"in"`            // SHA-256 of the input line, its first 8 bytes in hex
	Out   string `json:"out,omitempty"` // SHA-256 of the Deployment read back as JSON, its first 16 bytes in hex; absent if conversion failed
	Valid bool   `json:"valid"`         // the strategy's Validate accepts it
	Err   string `json:"err,omitempty"` // the conversion's error
	Hash  string `json:"hash,omitempty"`

	// For the first withOthers inputs: a ReplicaSet with the Deployment's
	// metadata, replicas, minReadySeconds, selector and template, and the
	// template on its own as a core/v1 PodTemplate, each through its own
	// create path (SHA-256 of the JSON, 128 bits, or the error).
	ReplicaSet string `json:"rs,omitempty"`
	Template   string `json:"tmpl,omitempty"`
}

// withOthers is the number of inputs whose ReplicaSet and PodTemplate are
// recorded too.
const withOthers = 2000

func main() {
	in := flag.String("in", "", "the input Deployments (JSON lines, gzip)")
	out := flag.String("out", "", "the output file (JSON lines, gzip)")
	update := flag.Bool("update", false, "the inputs are updates, {\"old\": stored, \"update\": manifest} a line, through the update path")
	flag.Parse()
	if *in == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: record -in inputs.jsonl.gz -out minor.jsonl.gz")
		os.Exit(2)
	}
	if err := run(*in, *out, *update); err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		os.Exit(1)
	}
}

func run(inPath, outPath string, update bool) error {
	f, err := os.Open(inPath)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	o, err := os.Create(outPath)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(o, gzip.BestCompression) // no name, no mtime
	enc := json.NewEncoder(zw)
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	n := 0
	for ; sc.Scan(); n++ {
		if update {
			rec, err := updateRecord(sc.Bytes())
			if err != nil {
				return fmt.Errorf("input %d: %w", n, err)
			}
			if err := enc.Encode(rec); err != nil {
				return err
			}
			continue
		}
		var d appsv1.Deployment
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return fmt.Errorf("input %d: %w", n, err)
		}
		rec := Record{In: sum(sc.Bytes(), 8)}
		up, valid, err := defaulting.Deployment(&d)
		if err != nil {
			rec.Err = err.Error()
		} else {
			b, err := json.Marshal(up)
			if err != nil {
				return err
			}
			var back appsv1.Deployment
			if err := json.Unmarshal(b, &back); err != nil {
				return err
			}
			rec.Out, rec.Valid, rec.Hash = sum(defaulting.Canonical(b), 16), valid, controller.ComputeHash(&back.Spec.Template, nil)
		}
		if n < withOthers {
			rec.ReplicaSet, rec.Template = others(&d)
		}
		if err := enc.Encode(rec); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil && err != io.EOF {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "record: %d Deployments\n", n)
	return o.Close()
}

// Update is one input line of -update.
type Update struct {
	Old    *appsv1.Deployment `json:"old"`
	Update *appsv1.Deployment `json:"update"`
}

// updateRecord runs one -update line through package defaulting's update
// path: In and Out as for a Deployment, or Err.
func updateRecord(line []byte) (Record, error) {
	var u Update
	if err := json.Unmarshal(line, &u); err != nil {
		return Record{}, err
	}
	rec := Record{In: sum(line, 8)}
	up, err := defaulting.DeploymentUpdate(u.Old, u.Update)
	if err != nil {
		rec.Err = err.Error()
		return rec, nil
	}
	b, err := json.Marshal(up)
	if err != nil {
		return Record{}, err
	}
	rec.Out = sum(defaulting.Canonical(b), 16)
	rs, err := defaulting.ReplicaSetUpdate(defaulting.ReplicaSetOf(u.Old), defaulting.ReplicaSetOf(u.Update))
	if err != nil {
		rec.ReplicaSet = "error: " + err.Error()
		return rec, nil
	}
	if b, err = json.Marshal(rs); err != nil {
		return Record{}, err
	}
	rec.ReplicaSet = sum(defaulting.Canonical(b), 16)
	tmpl, err := defaulting.PodTemplateUpdate(&u.Old.Spec.Template, &u.Update.Spec.Template)
	if err != nil {
		rec.Template = "error: " + err.Error()
		return rec, nil
	}
	if b, err = json.Marshal(tmpl); err != nil {
		return Record{}, err
	}
	rec.Template = sum(defaulting.Canonical(b), 16)
	return rec, nil
}

// sum returns the first n bytes of b's SHA-256, in hex.
func sum(b []byte, n int) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:n])
}

// others returns the digests of the ReplicaSet and the PodTemplate made
// from d, or their errors.
func others(d *appsv1.Deployment) (rs, tmpl string) {
	in := &appsv1.ReplicaSet{ObjectMeta: d.ObjectMeta, Spec: appsv1.ReplicaSetSpec{
		Replicas: d.Spec.Replicas, MinReadySeconds: d.Spec.MinReadySeconds, Selector: d.Spec.Selector, Template: d.Spec.Template,
	}}
	digest := func(v any, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		b, err := json.Marshal(v)
		if err != nil {
			return "error: " + err.Error()
		}
		return sum(defaulting.Canonical(b), 16)
	}
	r, err := defaulting.ReplicaSet(in.DeepCopy())
	rs = digest(r, err)
	t, err := defaulting.PodTemplate(&d.Spec.Template)
	tmpl = digest(t, err)
	return rs, tmpl
}
