package action

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"
)

// TestEveryRuleHasASentence reads the Rule constants of rules.go and
// checks that each renders by a sentence of its own or a renderer of its
// own: a rule added without one would render as its bare name.
func TestEveryRuleHasASentence(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "rules.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
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
			n++
			if v.Names[0].Name != "Rule"+name {
				t.Errorf("%s = %q: the value must be the name without Rule", v.Names[0].Name, name)
			}
			if _, ok := Rule(name).sentence(); !ok && Rule(name) != RuleStatus && Rule(name) != RuleSyncNewReplicaSet {
				t.Errorf("%s has no sentence", v.Names[0].Name)
			}
		}
	}
	if n < 50 {
		t.Errorf("found %d rules in rules.go; the parse missed them", n)
	}
}
