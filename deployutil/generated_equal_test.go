package deployutil

import (
	"bytes"
	"os"
	"testing"

	"github.com/deploysync/deploysync/deployutil/internal/equalgen"
)

// TestGeneratedEqualIsCurrent fails when zz_generated_equal.go is not what
// the generator writes from the k8s.io/api the module builds with today: a
// bump that adds a field to a type a pod template reaches must regenerate
// it, or the new field would be ignored when templates are compared.
func TestGeneratedEqualIsCurrent(t *testing.T) {
	res, err := equalgen.Generate(equalgen.Template())
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("zz_generated_equal.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, res.Source) {
		t.Fatal("zz_generated_equal.go is stale: run go generate ./deployutil")
	}
}
