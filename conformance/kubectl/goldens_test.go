package kubectl

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubectl/pkg/describe"

	dskubectl "github.com/deploysync/deploysync/kubectl"
)

var update = flag.Bool("update", false, "rewrite the random templates (describe-seed-*.json) the library's describe goldens are made from")

// goldenDir holds the library's describe goldens: pod templates as JSON and
// what kubectl's describe printer prints for them, which the kubectl
// package's unit test TestDescribeTemplateGolden compares DescribeTemplate
// with and, with -update, writes.
const goldenDir = "../../kubectl/testdata"

// TestDescribeGoldens keeps those goldens honest: every describe-*.golden
// must be kubectl's own output for its describe-*.json. With -update it
// writes the inputs, a set of rich random templates, and stops; the
// library's `go test ./kubectl -update` then writes their goldens, and this
// test run again checks them against kubectl.
func TestDescribeGoldens(t *testing.T) {
	if *update {
		written := 0
		for seed := 1; written < 24; seed++ {
			tpl := richTemplate(rand.New(rand.NewPCG(uint64(seed), 11)))
			var und *dskubectl.UndescribedError
			if _, err := dskubectl.DescribeTemplate(&tpl); errors.As(err, &und) {
				continue
			}
			raw, err := json.MarshalIndent(&tpl, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(goldenDir, fmt.Sprintf("describe-seed-%d", seed))
			if err := os.WriteFile(name+".json", append(raw, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			written++
		}
		t.Logf("%d templates written to %s: run go test ./kubectl -update in the library, then this test again", written, goldenDir)
		return
	}
	files, err := filepath.Glob(filepath.Join(goldenDir, "describe-*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no describe goldens in %s (%v)", goldenDir, err)
	}
	for _, file := range files {
		golden, err := os.ReadFile(strings.TrimSuffix(file, ".json") + ".golden")
		if err != nil {
			t.Fatal(err)
		}
		if want := kubectlDescribe(t, file); string(golden) != want {
			t.Errorf("%s is not kubectl's output for %s (the library's go test ./kubectl -update writes it from DescribeTemplate; the printer differs from kubectl)", filepath.Base(file), filepath.Base(file))
		}
	}
	t.Logf("%d describe goldens checked against kubectl", len(files))
}

// kubectlDescribe is what kubectl prints for the template in a JSON file.
func kubectlDescribe(t *testing.T, file string) string {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var tpl corev1.PodTemplateSpec
	if err := json.Unmarshal(raw, &tpl); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	describe.DescribePodTemplate(&tpl, describe.NewPrefixWriter(&buf))
	return buf.String()
}
