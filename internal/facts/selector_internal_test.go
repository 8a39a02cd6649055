package facts

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// upstreamChecks are apimachinery's answers for the three hand-written
// checks: accepted when the function returns no message.
var upstreamChecks = []struct {
	name     string
	ours     func(string) bool
	upstream func(string) []string
}{
	{"IsDNS1123Subdomain", isDNS1123Subdomain, validation.IsDNS1123Subdomain},
	{"IsQualifiedName", isQualifiedName, validation.IsQualifiedName},
	{"IsValidLabelValue", isLabelValue, validation.IsValidLabelValue},
}

// checkAgainstUpstream fails t when one of the hand-written checks answers
// s otherwise than apimachinery's function.
func checkAgainstUpstream(t *testing.T, s string) {
	t.Helper()
	for _, c := range upstreamChecks {
		want := len(c.upstream(s)) == 0
		if got := c.ours(s); got != want {
			t.Errorf("%s(%q) = %v, apimachinery says %v (%v)", c.name, s, got, want, c.upstream(s))
		}
	}
}

// TestStringChecks states, for strings at the edges of each rule, what
// apimachinery answers (a row's want is asserted against apimachinery
// too, so a row that misreads the rule fails), and that the hand-written
// checks answer the same.
func TestStringChecks(t *testing.T) {
	sub253 := strings.Repeat("a", 61) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 63) // 253
	tests := []struct {
		s                          string
		subdomain, qualified, vals bool
		reason                     string
	}{
		{"", false, false, true, "empty: no subdomain, no key name; the empty label value is allowed"},
		{"a", true, true, true, "one letter is everything"},
		{"0", true, true, true, "a digit may start and end"},
		{"A", false, true, true, "uppercase: not in a DNS subdomain, fine in a key name and a value"},
		{"web-1", true, true, true, "'-' inside"},
		{"-a", false, false, false, "'-' may not start"},
		{"a-", false, false, false, "'-' may not end"},
		{"a--b", true, true, true, "'-' may repeat inside"},
		{"a.b", true, true, true, "dots separate DNS labels; '.' is allowed inside a key name and a value"},
		{".a", false, false, false, "'.' may not start"},
		{"a.", false, false, false, "'.' may not end"},
		{"a..b", false, true, true, "an empty DNS label; a key name and a value only need alphanumeric ends"},
		{"a.-b", false, true, true, "a DNS label may not start with '-'"},
		{"a-.b", false, true, true, "a DNS label may not end with '-'"},
		{"a_b", false, true, true, "'_' is not in a DNS subdomain, fine inside a key name and a value"},
		{"_a", false, false, false, "'_' may not start"},
		{"a b", false, false, false, "no spaces"},
		{"a\n", false, false, false, "a trailing newline is not accepted ($ is the end of the text)"},
		{"é", false, false, false, "letters are ASCII only"},
		{"a\xffb", false, false, false, "invalid UTF-8 is not a letter"},
		{"a/b", false, true, false, "a prefixed key; '/' is in no DNS subdomain and no value"},
		{"example.com/MyName", false, true, false, "the documented prefixed key"},
		{"Example.com/a", false, false, false, "the prefix is a lowercase DNS subdomain"},
		{"/a", false, false, false, "an empty prefix"},
		{"a/", false, false, false, "an empty name part"},
		{"a/b/c", false, false, false, "at most one '/'"},
		{"a//b", false, false, false, "two '/': three parts"},
		{"a_b/c", false, false, false, "the prefix follows DNS rules: no '_'"},
		{strings.Repeat("a", 63), true, true, true, "63 characters: the longest key name and value"},
		{strings.Repeat("a", 64), true, false, false, "64 characters: too long for a key name or a value, fine for a subdomain (no per-label limit)"},
		{sub253, true, false, false, "253 characters: the longest subdomain"},
		{sub253 + "e", false, false, false, "254 characters: too long for a subdomain"},
		{sub253 + "/" + strings.Repeat("x", 63), false, true, false, "the longest prefix and the longest name"},
		{sub253 + "e/x", false, false, false, "a prefix of 254 characters"},
		{"a/" + strings.Repeat("x", 64), false, false, false, "a name part of 64 characters"},
	}
	for _, tt := range tests {
		want := []bool{tt.subdomain, tt.qualified, tt.vals}
		for i, c := range upstreamChecks {
			if up := len(c.upstream(tt.s)) == 0; up != want[i] {
				t.Errorf("row %q: apimachinery's %s says %v, the row %v (%s)", tt.s, c.name, up, want[i], tt.reason)
			}
			if got := c.ours(tt.s); got != want[i] {
				t.Errorf("%s(%q) = %v, want %v (%s)", c.name, tt.s, got, want[i], tt.reason)
			}
		}
	}
}

// FuzzStringChecks compares the hand-written checks with apimachinery's
// regexps and length limits on arbitrary strings.
func FuzzStringChecks(f *testing.F) {
	for _, s := range []string{"", "a", "A", "a-b", "a.b", "a..b", "a_b", "a/b", "/a", "a/", "a/b/c", "x.io/Name", "Ab.c/d",
		strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a.", 126) + "a", strings.Repeat("a.", 126) + "ab",
		strings.Repeat("a", 253) + "/" + strings.Repeat("b", 63), "a\n", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkAgainstUpstream(t, s)
		// The same string behind a prefix and as a prefix, to reach the
		// two parts of a key.
		checkAgainstUpstream(t, "example.com/"+s)
		checkAgainstUpstream(t, s+"/name")
	})
}
