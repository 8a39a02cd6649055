package testutil

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update is the -update flag of every test binary that imports this
// package: `go test ./... -update` at the module's root rewrites every
// golden file of the module. Packages with no golden accept it and do
// nothing, so the command does not stop at them.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/ instead of comparing with them")

// Updating reports whether the test binary runs with -update, for tests
// that write more than one file per golden (Golden writes one).
func Updating() bool { return *update }

// Golden compares got with the file at path. With -update it writes got
// there instead (creating the directory) and passes. A missing file fails
// the test with the command that creates it; a different one fails it with
// a line diff (-want +got), not the whole text.
func Golden(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := LineDiff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got; run go test -update and review the change):\n%s", path, diff)
	}
}

// LineDiff is a unified-style diff of two texts line by line: "-" lines
// are only in want, "+" lines only in got, with up to three lines of
// context around each change and an "@@ -line +line @@" header where the
// lines are far apart. It is "" when the texts are equal.
func LineDiff(want, got string) string {
	if want == got {
		return ""
	}
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	// lcs[i][j] is the length of the longest common subsequence of a[i:]
	// and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		op          byte // ' ', '-' or '+'
		text        string
		wantN, gotN int
	}
	var lines []line
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			lines = append(lines, line{' ', a[i], i + 1, j + 1})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			lines = append(lines, line{'-', a[i], i + 1, j + 1})
			i++
		default:
			lines = append(lines, line{'+', b[j], i + 1, j + 1})
			j++
		}
	}
	const context = 3
	show := make([]bool, len(lines))
	for k, l := range lines {
		if l.op != ' ' {
			for c := max(0, k-context); c <= min(len(lines)-1, k+context); c++ {
				show[c] = true
			}
		}
	}
	var out strings.Builder
	for k, l := range lines {
		if !show[k] {
			continue
		}
		if k == 0 || !show[k-1] {
			fmt.Fprintf(&out, "@@ -%d +%d @@\n", l.wantN, l.gotN)
		}
		fmt.Fprintf(&out, "%c %s\n", l.op, l.text)
	}
	return out.String()
}
