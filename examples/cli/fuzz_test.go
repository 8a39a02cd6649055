package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
)

// FuzzReadManifest feeds arbitrary bytes to the manifest loader (seeded with
// the test manifests and the stream corpus): the stream reader must yield
// the objects kubectl's resource builder yields and err where it errs; the
// loader must answer with an error or a manifest, never panic; and a
// manifest it accepts must give Sync a state that Sync answers with a plan
// or a typed input error.
func FuzzReadManifest(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	streams, _ := filepath.Glob("testdata/streams/*")
	files = append(files, streams...)
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("apiVersion: v1\nkind: List\nitems: []\n"))
	f.Add([]byte("---\n# only a comment\n---\n"))
	now := metav1.NewTime(time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC))
	f.Fuzz(func(t *testing.T, data []byte) {
		if d := compareWithKubectl(data); d != "" {
			t.Fatalf("the stream reader and kubectl's builder differ on %q:\n%s", data, d)
		}
		m, err := ReadManifest(bytes.NewReader(data), "fuzz.yaml", ReadOptions{})
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if _, err := deploysync.Sync(m.State(now)); err != nil && !errors.Is(err, deployutil.ErrInvalidInput) {
			t.Fatalf("Sync error is not an input error: %v", err)
		}
	})
}

// hostileInput is a manifest built to make a YAML reader expand or recurse
// without bound.
type hostileInput struct {
	name, reason, input string
	// wantErr is what the error must say after the file's name.
	wantErr string
}

// hostileInputs are the inputs a reader could take super-linear time or
// memory on. The YAML library refuses each: it caps alias expansion
// ("excessive aliasing") and nesting (depth 10000). They are not seeds of
// FuzzReadManifest: each try of a mutation of them costs tens of
// milliseconds instrumented, which would slow the fuzz run for nothing.
func hostileInputs() []hostileInput {
	laughs := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
	for i := 1; i <= 8; i++ {
		p := fmt.Sprintf("*l%d", i-1)
		laughs += fmt.Sprintf("    l%d: &l%d [%s]\n", i, i, strings.Repeat(p+", ", 8)+p)
	}
	return []hostileInput{
		{name: "billion laughs", reason: "nine levels of nine aliases each expand to 9^9 strings", input: laughs,
			wantErr: "line 1: error converting YAML to JSON: yaml: document contains excessive aliasing"},
		{name: "deep nesting", reason: "10,001 nested flow sequences, one more than the YAML library allows", input: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations: " +
			strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "\n",
			wantErr: "line 5: error converting YAML to JSON: yaml: exceeded max depth of 10000"},
	}
}

// TestReadManifestHostile checks that inputs built to expand or recurse
// without bound are refused with an error naming the file and document,
// rather than read for minutes.
func TestReadManifestHostile(t *testing.T) {
	for _, tc := range hostileInputs() {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := ReadManifest(strings.NewReader(tc.input), "hostile.yaml", ReadOptions{})
			if err == nil || err.Error() != "hostile.yaml: "+tc.wantErr {
				t.Fatalf("%s: want error %q, got %v", tc.reason, "hostile.yaml: "+tc.wantErr, err)
			}
			t.Logf("%s: refused in %v", tc.reason, time.Since(start).Round(time.Millisecond))
		})
	}
}
