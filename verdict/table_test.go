package verdict_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deploysync/deploysync/internal/testing/testutil"
	"github.com/deploysync/deploysync/internal/testing/verdictcases"
	"github.com/deploysync/deploysync/verdict"
)

// cell renders one verdict for the table of docs/verdicts.md.
func cell(v verdict.Verdict) string {
	w := "waiting"
	switch {
	case v.Done:
		w = "**done**"
	case v.Failed:
		w = "**failed**"
	}
	if v.Status != "" {
		w += " " + v.Status
	}
	msg := strings.TrimSuffix(v.Message, "\n")
	if msg == "" && len(v.Reasons) > 0 && v.Tool != verdict.StrictTool {
		msg = "(says nothing: " + v.Reasons[0] + ")"
	}
	if msg != "" {
		w += ": " + strings.ReplaceAll(msg, "|", `\|`)
	}
	if v.Tool == verdict.StrictTool && len(v.Reasons) > 1 {
		w += fmt.Sprintf(" (+%d more)", len(v.Reasons)-1)
	}
	return w
}

// table renders every case of verdictcases with every tool's verdict.
func table(t *testing.T) string {
	var b strings.Builder
	b.WriteString("| scenario | why it is a row | kubectl | kstatus | Helm 3 | Helm 4 | Argo CD | strict |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, c := range verdictcases.All() {
		f := testutil.Freeze(t, c.Deployment, c.ReplicaSets, c.Pods)
		vs := verdict.All(c.Deployment, c.ReplicaSets, c.Pods)
		f.Check(t)
		fmt.Fprintf(&b, "| %s | %s |", c.Name, c.Reason)
		for _, v := range vs {
			fmt.Fprintf(&b, " %s |", cell(v))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestDisagreements is the golden of the table in docs/verdicts.md: every
// tool on every named case (conformance/tools checks the same cases against
// the tools' own code), and docs/verdicts.md must hold it verbatim.
func TestDisagreements(t *testing.T) {
	got := table(t)
	golden := filepath.Join("testdata", "disagreements.md")
	testutil.Golden(t, golden, got)
	doc, err := os.ReadFile(filepath.Join("..", "docs", "verdicts.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), got) {
		t.Errorf("docs/verdicts.md does not hold %s verbatim; copy it into its table", golden)
	}
}
