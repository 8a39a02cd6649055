package testutil_test

import (
	"testing"

	"github.com/deploysync/deploysync/internal/testing/testutil"
)

func TestLineDiff(t *testing.T) {
	tests := []struct {
		name      string
		want, got string
		diff      string
		reason    string
	}{
		{name: "equal", want: "a\nb\n", got: "a\nb\n", diff: "", reason: "equal texts have no diff"},
		{name: "changed line", want: "a\nb\nc", got: "a\nB\nc", diff: "@@ -1 +1 @@\n  a\n- b\n+ B\n  c\n",
			reason: "a changed line is the old one removed and the new one added, between its context"},
		{name: "added at end", want: "a\n", got: "a\nb\n", diff: "@@ -1 +1 @@\n  a\n+ b\n  \n",
			reason: "the line after the last newline is the empty string"},
		{name: "far apart", want: "1\n2\n3\n4\n5\n6\n7\n8\n9\n10", got: "x\n2\n3\n4\n5\n6\n7\n8\n9\ny",
			diff:   "@@ -1 +1 @@\n- 1\n+ x\n  2\n  3\n  4\n@@ -7 +7 @@\n  7\n  8\n  9\n- 10\n+ y\n",
			reason: "changes more than six lines apart get a hunk each, with three lines of context and their line numbers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			if got := testutil.LineDiff(tt.want, tt.got); got != tt.diff {
				t.Errorf("LineDiff =\n%q\nwant\n%q (%s)", got, tt.diff, tt.reason)
			}
		})
	}
}
