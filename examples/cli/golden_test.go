package cli

import (
	"path/filepath"
	"testing"

	"github.com/deploysync/deploysync/internal/testing/testutil"
)

// golden compares got with testdata/golden/<name>, or with -update
// rewrites it (the package's own tests; cli_test.go has the same for the
// external ones).
func golden(t *testing.T, name, got string) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", "golden", name), got)
}
