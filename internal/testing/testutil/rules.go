package testutil

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
)

// RuleBlocks reads the Rule constants of package action's rules.go (path),
// one slice of values per const block in the file's order: the Deployment
// controller's rules, then the ReplicaSet controller's. Tests that must
// cover every rule of a block read them here, so a rule added to
// rules.go is one they cover without a list of their own to update.
func RuleBlocks(path string) ([][]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	var blocks [][]string
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		var block []string
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			id, ok := v.Type.(*ast.Ident)
			if !ok || id.Name != "Rule" || len(v.Values) != 1 {
				continue
			}
			lit, ok := v.Values[0].(*ast.BasicLit)
			if !ok {
				return nil, fmt.Errorf("%s: rule %s is no string literal", path, v.Names[0].Name)
			}
			name, err := strconv.Unquote(lit.Value)
			if err != nil {
				return nil, fmt.Errorf("%s: rule %s: %v", path, v.Names[0].Name, err)
			}
			block = append(block, name)
		}
		if len(block) > 0 {
			blocks = append(blocks, block)
		}
	}
	return blocks, nil
}
