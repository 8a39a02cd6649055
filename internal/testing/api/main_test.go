package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	// The module's -update flag: go test ./... -update passes it to every
	// test binary, and this package has no golden to rewrite.
	_ "github.com/deploysync/deploysync/internal/testing/testutil"
)

// TestRun writes small modules' listings and compares them with the
// declarations each row's source holds, as a reader of the source would
// list them.
func TestRun(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		files  map[string]string // path in the module → content
		want   map[string]string // listing file → content
	}{
		{
			name:   "declarations without prose",
			reason: "doc comments, line comments, bodies and unexported names are not API; a multi-line signature is listed on one line",
			files: map[string]string{
				"a.go": `// Package m is a test.
package m

// C is a constant.
const C = 1 // one

const hidden = 2

// T is a type.
type T struct {
	// A is a field.
	A int

	b int // unexported
}

// New makes a T.
func New(
	a int,
	b string,
) *T {
	return &T{A: a}
}

// M is a method.
func (t *T) M() error { return nil }

func (t *T) m() {}
`,
			},
			want: map[string]string{"m.txt": `package m // import "example.com/m"

CONSTANTS

const C = 1

TYPES

type T struct {
	A int
	// contains filtered or unexported fields
}
func New(a int, b string) *T
func (t *T) M() error
`},
		},
		{
			name:   "alias, generics, sorted values",
			reason: "an alias keeps its =; type parameters are listed; variables are sorted by name, not by file",
			files: map[string]string{
				"b.go": "package m\n\nimport \"errors\"\n\n// Z last.\nvar Z = errors.New(\"z\")\n",
				"a.go": "package m\n\nimport \"errors\"\n\n// A first.\nvar A = errors.New(\"a\")\n\n// E is an alias.\ntype E = error\n\n// Map maps.\nfunc Map[T, U any](xs []T, f func(T) U) []U { return nil }\n",
			},
			want: map[string]string{"m.txt": `package m // import "example.com/m"

VARIABLES

var A = errors.New("a")
var Z = errors.New("z")

FUNCTIONS

func Map[T, U any](xs []T, f func(T) U) []U

TYPES

type E = error
`},
		},
		{
			name:   "which packages",
			reason: "internal, testdata, main packages and nested modules have no public API here; a subdirectory's listing is named with -",
			files: map[string]string{
				"m.go":                 "package m\n",
				"sub/dir/p.go":         "package p\n\nfunc F() {}\n",
				"internal/x/x.go":      "package x\n\nfunc F() {}\n",
				"sub/testdata/t.go":    "package t\n\nfunc F() {}\n",
				"cmd/tool/main.go":     "package main\n\nfunc main() {}\n",
				"nested/go.mod":        "module example.com/nested\n",
				"nested/n.go":          "package nested\n\nfunc F() {}\n",
				"sub/dir/p_test.go":    "package p\n\nfunc Helper() {}\n",
				"sub/dir/p_example.go": "//go:build ignore\n\npackage p\n\nfunc Ignored() {}\n",
			},
			want: map[string]string{
				"m.txt":       "package m // import \"example.com/m\"\n",
				"sub-dir.txt": "package p // import \"example.com/m/sub/dir\"\n\nFUNCTIONS\n\nfunc F()\n",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, out := t.TempDir(), t.TempDir()
			files := map[string]string{"go.mod": "module example.com/m\n"}
			for p, c := range tt.files {
				files[p] = c
			}
			for p, c := range files {
				p = filepath.Join(root, filepath.FromSlash(p))
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
				require.NoError(t, os.WriteFile(p, []byte(c), 0o644))
			}
			require.NoError(t, run(root, out))
			got := map[string]string{}
			entries, err := os.ReadDir(out)
			require.NoError(t, err)
			for _, e := range entries {
				b, err := os.ReadFile(filepath.Join(out, e.Name()))
				require.NoError(t, err)
				got[e.Name()] = string(b)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s\nlistings (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}

// TestDocEditKeepsListing: editing or adding doc comments, including ones
// that add lines between struct fields, leaves the listing as it was.
func TestDocEditKeepsListing(t *testing.T) {
	before := "package m\n\ntype T struct {\n\tA int\n\tBB string\n}\n"
	after := "package m\n\n// T is documented now.\ntype T struct {\n\t// A has a doc\n\t// of two lines.\n\tA int\n\n\tBB string // and a line comment\n}\n"
	listing := func(src string) string {
		root, out := t.TempDir(), t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(root, "m.go"), []byte(src), 0o644))
		require.NoError(t, run(root, out))
		b, err := os.ReadFile(filepath.Join(out, "m.txt"))
		require.NoError(t, err)
		return string(b)
	}
	if diff := cmp.Diff(listing(before), listing(after)); diff != "" {
		t.Errorf("a doc edit changed the listing (-before +after):\n%s", diff)
	}
}
