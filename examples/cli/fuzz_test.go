package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/deploysync/deploysync"
	"github.com/deploysync/deploysync/deployutil"
)

// FuzzReadManifest feeds arbitrary bytes to the manifest loader (seeded with
// the test manifests): it must answer with an error or a manifest, never
// panic; and a manifest it accepts must give Sync a state that Sync answers
// with a plan or a typed input error.
func FuzzReadManifest(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("apiVersion: v1\nkind: List\nitems: []\n"))
	f.Add([]byte("---\n# only a comment\n---\n"))
	now := metav1.NewTime(time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadManifest(bytes.NewReader(data), "fuzz.yaml", "", "")
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
