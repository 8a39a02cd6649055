package applier

import (
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deploysync/deploysync"
)

// TestFixesFlag parses --fix as the commands do, on a FlagSet of its own.
func TestFixesFlag(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    []deploysync.Fix
		errWant []string // substrings of the error, when refused
		reason  string
	}{
		{name: "none", want: nil,
			reason: "no flag: no fix, the controller decides as upstream"},
		{name: "one", args: []string{"--fix", "StaleDesiredReplicas"},
			want:   []deploysync.Fix{deploysync.FixStaleDesiredReplicas},
			reason: "a name as deploysync.Fixes spells it"},
		{name: "repeated", args: []string{"--fix", "UnhealthyFirst", "--fix=StaleDesiredReplicas"},
			want:   []deploysync.Fix{deploysync.FixUnhealthyFirst, deploysync.FixStaleDesiredReplicas},
			reason: "the flag is repeatable, in either of flag's spellings; the order given is kept"},
		{name: "comma-separated", args: []string{"--fix", "ProportionalOverflow, StaleDesiredReplicas,UnhealthyFirst"},
			want:   deploysync.Fixes(),
			reason: "one flag may name several, spaces around the commas allowed"},
		{name: "twice", args: []string{"--fix", "UnhealthyFirst", "--fix", "UnhealthyFirst,UnhealthyFirst"},
			want:   []deploysync.Fix{deploysync.FixUnhealthyFirst},
			reason: "a name given twice counts once"},
		{name: "unknown", args: []string{"--fix", "StaleDesiredReplicas,NoSuchFix"},
			errWant: []string{`"NoSuchFix"`, "ProportionalOverflow, StaleDesiredReplicas, UnhealthyFirst"},
			reason:  "an unknown name is refused with the known ones, so a typo does not run a controller without its fix"},
		{name: "Go name", args: []string{"--fix", "FixStaleDesiredReplicas"},
			errWant: []string{`"FixStaleDesiredReplicas"`, "known fixes"},
			reason:  "the Go identifier is not the Fix's name"},
		{name: "wrong case", args: []string{"--fix", "staledesiredreplicas"},
			errWant: []string{`"staledesiredreplicas"`},
			reason:  "names are exact, as deploysync.WithFixes takes them"},
		{name: "empty", args: []string{"--fix", ""},
			errWant: []string{`""`, "known fixes"},
			reason:  "an empty value names no fix and is a mistake"},
		{name: "trailing comma", args: []string{"--fix", "UnhealthyFirst,"},
			errWant: []string{`""`},
			reason:  "an empty name between commas is refused too"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Fatal("reason must be provided")
			}
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var got Fixes
			fs.Var(&got, "fix", "")
			err := fs.Parse(tt.args)
			if len(tt.errWant) > 0 {
				if err == nil {
					t.Fatalf("parsed %v, want an error (%s)", got, tt.reason)
				}
				for _, w := range tt.errWant {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q (%s)", err, w, tt.reason)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("%v (%s)", err, tt.reason)
			}
			if diff := cmp.Diff(tt.want, []deploysync.Fix(got)); diff != "" {
				t.Errorf("fixes (-want +got):\n%s(%s)", diff, tt.reason)
			}
			// Every parsed list is one deploysync.Sync accepts.
			if _, err := deploysync.Sync(deploysync.State{}, deploysync.WithFixes(got...)); err != nil && strings.Contains(err.Error(), "unknown fix") {
				t.Errorf("Sync refuses the parsed fixes: %v", err)
			}
		})
	}
}

// TestFixesString checks the flag's value as flag prints it.
func TestFixesString(t *testing.T) {
	var nilFixes *Fixes
	for _, tt := range []struct {
		f      *Fixes
		want   string
		reason string
	}{
		{f: nilFixes, want: "", reason: "flag calls String on a zero Value for the default"},
		{f: &Fixes{}, want: "", reason: "no fix"},
		{f: &Fixes{deploysync.FixUnhealthyFirst, deploysync.FixStaleDesiredReplicas}, want: "UnhealthyFirst,StaleDesiredReplicas",
			reason: "comma-separated in the order given, what Set reads back"},
	} {
		if got := tt.f.String(); got != tt.want {
			t.Errorf("String() = %q, want %q (%s)", got, tt.want, tt.reason)
		}
	}
}
