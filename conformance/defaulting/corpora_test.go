package defaulting

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/deploysync/deploysync/defaults"
)

// corpusRecord is what this test reads of a record of the minors' corpora
// (testdata/minors/<minor>/*.jsonl.gz): its input objects.
type corpusRecord struct {
	ID    string `json:"id"`
	Input struct {
		Deployment  *appsv1.Deployment  `json:"deployment"`
		ReplicaSets []appsv1.ReplicaSet `json:"replicaSets"`
	} `json:"input"`
}

// TestCorporaObjects runs every Deployment, every ReplicaSet and every
// template of the 1.37 corpora (testdata/minors/1.37: the scenarios,
// random states, template records, trajectories and kubectl records, as
// stored by an apiserver or drawn by the library's generators) through
// v1.37.2's create path and the library's: the same JSON byte for byte,
// an error exactly where upstream's conversion fails.
func TestCorporaObjects(t *testing.T) {
	var deployments, replicaSets, templates, refused, diffs int
	eachCorpusRecord(t, "1.37", func(name string, r corpusRecord) {
		diff := func(kind string, format string, args ...any) {
			diffs++
			if diffs <= 5 {
				t.Errorf("%s %s %s: "+format, append([]any{name, r.ID, kind}, args...)...)
			}
		}
		if d := r.Input.Deployment; d != nil {
			deployments++
			ours, err := defaults.Deployment("1.37", d)
			up, valid, uerr := Deployment(d)
			switch {
			case err != nil:
				refused++
				if uerr == nil && valid {
					diff("Deployment", "we refuse (%v) what upstream accepts", err)
				}
			case uerr != nil:
				diff("Deployment", "upstream fails (%v), we default", uerr)
			default:
				if a, b := mustJSON(t, up), mustJSON(t, ours); !bytes.Equal(a, b) {
					diff("Deployment", "JSON differs\nupstream: %s\nours:     %s", a, b)
				}
			}
			templates++
			ot, err := defaults.PodTemplate("1.37", &d.Spec.Template)
			ut, uerr := PodTemplate(&d.Spec.Template)
			if err != nil || uerr != nil {
				diff("PodTemplate", "ours %v, upstream %v", err, uerr)
			} else if a, b := mustJSON(t, ut), mustJSON(t, ot); !bytes.Equal(a, b) {
				diff("PodTemplate", "JSON differs\nupstream: %s\nours:     %s", a, b)
			}
		}
		for i := range r.Input.ReplicaSets {
			rs := &r.Input.ReplicaSets[i]
			replicaSets++
			ours, err := defaults.ReplicaSet("1.37", rs)
			up, uerr := ReplicaSet(rs)
			switch {
			case err != nil && uerr != nil:
				refused++
			case err != nil || uerr != nil:
				if err != nil {
					refused++
				}
				diff("ReplicaSet", "ours %v, upstream %v", err, uerr)
			default:
				if a, b := mustJSON(t, up), mustJSON(t, ours); !bytes.Equal(a, b) {
					diff("ReplicaSet", "JSON differs\nupstream: %s\nours:     %s", a, b)
				}
			}
		}
	})
	t.Logf("the 1.37 corpora: %d Deployments, %d ReplicaSets, %d templates; %d refused; %d differences", deployments, replicaSets, templates, refused, diffs)
}

// eachCorpusRecord calls fn with every record of a minor's corpora
// (corporaFiles of testdata/minors/<minor>, in that order) and the name
// of its file.
func eachCorpusRecord(t *testing.T, minor string, fn func(name string, r corpusRecord)) {
	t.Helper()
	for _, name := range corporaFiles {
		f, err := os.Open(filepath.Join("..", "testdata", "minors", minor, name))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(zr)
		for {
			var r corpusRecord
			if err := dec.Decode(&r); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s/%s: %v", minor, name, err)
			}
			fn(name, r)
		}
		f.Close()
	}
}
