package suite

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestRecordDeterministic checks that hack/record-minors.sh regenerates a
// corpus byte for byte: with DEPLOYSYNC_RECORD_TWICE=<minor> it records that
// minor twice, into two fresh directories, and compares every file of both
// with each other and with the committed corpus. It builds the minor's
// k8s.io/kubernetes (minutes when cold), so it only runs when asked.
func TestRecordDeterministic(t *testing.T) {
	minor := os.Getenv("DEPLOYSYNC_RECORD_TWICE")
	if minor == "" {
		t.Skip("set DEPLOYSYNC_RECORD_TWICE=<minor> to record a minor twice and compare")
	}
	scratch := os.Getenv("DEPLOYSYNC_MINORS_SCRATCH")
	if scratch == "" {
		scratch = t.TempDir()
	}
	var dirs []string
	for range 2 {
		out := t.TempDir()
		cmd := exec.Command("bash", "../hack/record-minors.sh", minor)
		cmd.Env = append(os.Environ(), "DEPLOYSYNC_MINORS_OUT="+out, "DEPLOYSYNC_MINORS_SCRATCH="+scratch)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("record-minors.sh %s: %v\n%s", minor, err, b)
		}
		dirs = append(dirs, filepath.Join(out, minor))
	}
	dirs = append(dirs, filepath.Join(minorsDir(), minor))
	files, err := os.ReadDir(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("%s: no files recorded", dirs[0])
	}
	for _, f := range files {
		first, err := os.ReadFile(filepath.Join(dirs[0], f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range dirs[1:] {
			other, err := os.ReadFile(filepath.Join(d, f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(first, other) {
				t.Errorf("%s: %s (%d bytes) and %s (%d bytes) differ", f.Name(), dirs[0], len(first), d, len(other))
			}
		}
		t.Logf("%s: %d bytes, identical in %d recordings", f.Name(), len(first), len(dirs))
	}
	for _, d := range dirs[1:] {
		others, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		if len(others) != len(files) {
			t.Errorf("%s holds %d files, %s %d", d, len(others), dirs[0], len(files))
		}
	}
}
