package deploysync_test

import (
	"os"
	"strings"
	"testing"

	"github.com/deploysync/deploysync"
)

// TestFixesDocumented fails for a Fix that the README's and
// docs/fidelity.md's fix tables do not list (docs/development.md, "A
// Fix"): a user picks a Fix from those tables.
func TestFixesDocumented(t *testing.T) {
	for _, doc := range []string{"README.md", "docs/fidelity.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range deploysync.Fixes() {
			if !strings.Contains(string(b), "\n| `Fix"+string(f)+"` |") {
				t.Errorf("%s has no row for Fix%s in its fix table", doc, f)
			}
		}
	}
}
