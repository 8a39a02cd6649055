package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCorpusUpToDate regenerates every generated stream and compares it
// with the committed one, so the corpus stays what the tools print on our
// inputs: a change of a chart, a kustomization, a state file or a tool's
// version must be followed by `go run .`.
func TestCorpusUpToDate(t *testing.T) {
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("%d generated streams, want at least 20", len(files))
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", "..", "testdata", "streams", name))
		if err != nil {
			t.Errorf("%s: %v (run go run . to write it)", name, err)
			continue
		}
		if string(got) != want {
			t.Errorf("%s differs from what the tools print now: run go run . and review the diff", name)
		}
	}
}
