package action

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// ruleDocs reads the Rule constants of rules.go: each constant's value and
// the value names its documentation lists after "Values:".
func ruleDocs(t *testing.T) map[Rule][]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "rules.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	values := regexp.MustCompile(`Values: ([^.(]*)`)
	out := map[Rule][]string{}
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			lit, ok := v.Values[0].(*ast.BasicLit)
			if !ok {
				continue
			}
			name, _ := strconv.Unquote(lit.Value)
			if v.Names[0].Name != "Rule"+name {
				t.Errorf("%s = %q: the value must be the name without Rule", v.Names[0].Name, name)
			}
			var names []string
			if m := values.FindStringSubmatch(strings.Join(strings.Fields(v.Doc.Text()), " ")); m != nil {
				for _, n := range strings.Split(m[1], ",") {
					names = append(names, strings.TrimSpace(n))
				}
			}
			out[Rule(name)] = names
		}
	}
	// 58 rules of the Deployment controller, 17 of the ReplicaSet controller
	if len(out) < 75 {
		t.Fatalf("found %d rules in rules.go; the parse missed them", len(out))
	}
	return out
}

// TestRuleTable checks the table of sentences against the Rule constants
// and their documentation, both controllers' (the ReplicaSet rules, from
// RuleCreatePods on, too): every rule has a row (RuleStatus and
// RuleSyncNewReplicaSet render field by field), every row belongs to a
// rule, and a row's value names are those the rule's documentation lists,
// in its order.
func TestRuleTable(t *testing.T) {
	docs := ruleDocs(t)
	for rule, names := range docs {
		s, ok := sentences[rule]
		switch {
		case rule == RuleStatus || rule == RuleSyncNewReplicaSet:
			if ok {
				t.Errorf("%s renders field by field; it needs no row", rule)
			}
		case !ok:
			t.Errorf("Rule%s has no row in the table of sentences: it would render as its bare name", rule)
		case !slices.Equal(strings.Fields(s.values), names):
			t.Errorf("Rule%s: the table names the values %q, the documentation %q", rule, strings.Fields(s.values), names)
		}
	}
	for rule := range sentences {
		if _, ok := docs[rule]; !ok {
			t.Errorf("the table has a row for %q, which is no Rule constant", rule)
		}
	}
}

// TestSentences checks each row of the table on its own: its names are
// distinct words, its sentence takes each value by exactly one kind of
// verb (%s or %q for a text, %d for a number) and uses every value, and a
// reason built from the row renders the sentence, passes Check, and
// fails it once a value is dropped, renamed or of the other kind.
func TestSentences(t *testing.T) {
	for rule, s := range sentences {
		names := strings.Fields(s.values)
		if strings.Join(names, " ") != s.values {
			t.Errorf("%s: names %q must be words separated by one space", rule, s.values)
		}
		for i, n := range names {
			if slices.Contains(names[:i], n) {
				t.Errorf("%s: value %s is named twice", rule, n)
			}
		}
		verbs := map[int]byte{}
		eachVerb(s.format, func(arg int, verb byte) {
			if arg < 0 || arg >= len(names) || !strings.ContainsRune("sqd", rune(verb)) {
				t.Errorf("%s: verb %%%c of argument %d in %q does not fit its %d values", rule, verb, arg+1, s.format, len(names))
				return
			}
			if prev, ok := verbs[arg]; ok && (prev == 'd') != (verb == 'd') {
				t.Errorf("%s: value %s is taken both as a number and as a text", rule, names[arg])
			}
			verbs[arg] = verb
		})
		if len(verbs) != len(names) {
			t.Errorf("%s: the sentence takes %d of its %d values", rule, len(verbs), len(names))
			continue
		}
		vs := make([]Value, len(names))
		args := make([]any, len(names))
		for i, n := range names {
			if verbs[i] == 'd' {
				vs[i], args[i] = Num(n, i+7), int64(i+7)
			} else {
				vs[i], args[i] = Str(n, "t"+n), "t"+n
			}
		}
		r := Because(rule, vs...)
		if err := r.Check(); err != nil {
			t.Errorf("%s: Check() = %v on the row's own values", rule, err)
		}
		if got, want := r.String(), fmt.Sprintf(s.format, args...); got != want || strings.Contains(got, "%!") {
			t.Errorf("%s: String() = %q, want %q", rule, got, want)
		}
		if len(vs) == 0 {
			if Because(rule, Num("n", 1)).Check() == nil {
				t.Errorf("%s takes no value; Check accepted one", rule)
			}
			continue
		}
		bad := map[string][]Value{
			"dropped": vs[:len(vs)-1],
			"extra":   append(slices.Clone(vs), Num("n", 1)),
			"renamed": append(slices.Clone(vs[:len(vs)-1]), Value{Name: vs[len(vs)-1].Name + "X", Int: 1}),
			"kind":    append(slices.Clone(vs[:len(vs)-1]), Value{Name: vs[len(vs)-1].Name, IsText: !vs[len(vs)-1].IsText}),
		}
		for what, vs := range bad {
			r := Because(rule, vs...)
			err := r.Check()
			if err == nil {
				t.Errorf("%s: Check() accepted a value %s", rule, what)
				continue
			}
			if !strings.Contains(err.Error(), string(rule)) {
				t.Errorf("%s: Check() = %q does not name the rule", rule, err)
			}
			if got := r.String(); !strings.HasSuffix(got, "["+errors.Unwrap(err).Error()+"]") {
				t.Errorf("%s: a reason with a value %s renders %q, not with Check's error", rule, what, got)
			}
		}
	}
}
