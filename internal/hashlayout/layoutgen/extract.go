// Package layoutgen generates the pod-template layouts of older Kubernetes
// minors that deployutil.ComputeHashFor dumps: it extracts, from each
// minor's k8s.io/api and k8s.io/apimachinery source, the declarations of
// the types a PodTemplateSpec reaches (Extract, written to
// internal/hashlayout/layouts/<minor>.txt), and turns those into Go types
// (Generate) for every type whose declaration differs from the newest
// minor's. Both steps are mechanical: no layout is written by hand.
package layoutgen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Minor says which module versions make up one Kubernetes minor's API types.
type Minor struct {
	Name         string // "1.33"
	API          string // k8s.io/api version, "v0.33.5"
	APIMachinery string // k8s.io/apimachinery version
}

// Minors are the minors whose layouts are extracted, oldest first; the last
// is the library's own k8s.io/api, whose types the others are compared with.
var Minors = []Minor{
	{"1.33", "v0.33.5", "v0.33.5"},
	{"1.34", "v0.34.4", "v0.34.4"},
	{"1.35", "v0.35.4", "v0.35.4"},
	{"1.36", "v0.36.3", "v0.36.3"},
	{"1.37", "v0.37.2", "v0.37.2"},
}

// Root is the type the layouts start from.
const Root = "k8s.io/api/core/v1.PodTemplateSpec"

// walked are the packages whose declarations are followed; types of any
// other package (time.Time, inf.Dec) are leaves.
var walked = map[string]string{ // import path → module
	"k8s.io/api/core/v1":                   "k8s.io/api",
	"k8s.io/apimachinery/pkg/apis/meta/v1": "k8s.io/apimachinery",
	"k8s.io/apimachinery/pkg/api/resource": "k8s.io/apimachinery",
	"k8s.io/apimachinery/pkg/util/intstr":  "k8s.io/apimachinery",
	"k8s.io/apimachinery/pkg/types":        "k8s.io/apimachinery",
}

// Decl is one type declaration of a layout.
type Decl struct {
	Name string // "k8s.io/api/core/v1.Container"
	// Underlying is the type expression for a non-struct type ("string",
	// "map[k8s.io/api/core/v1.ResourceName]k8s.io/apimachinery/pkg/api/resource.Quantity"),
	// "=" and the expression for an alias, or "struct".
	Underlying string
	Fields     []Field // for a struct, in declaration order
}

// Field is one field of a struct declaration.
type Field struct {
	Name     string // for an embedded field, the type's name
	Type     string // the canonical type expression
	Embedded bool
}

// Layout is every declaration a PodTemplateSpec reaches in one minor.
type Layout struct {
	Minor Minor
	Decls map[string]*Decl
}

type pkgSource struct {
	path  string
	specs map[string]*ast.TypeSpec
	files map[string]map[string]string // type name → the imports of its file (name → path)
}

// Extract reads the minor's sources under modCache and returns its layout.
func Extract(modCache string, m Minor) (*Layout, error) {
	pkgs := map[string]*pkgSource{}
	for p, mod := range walked {
		v := m.API
		if mod == "k8s.io/apimachinery" {
			v = m.APIMachinery
		}
		dir := filepath.Join(modCache, mod+"@"+v, strings.TrimPrefix(p, mod+"/"))
		ps, err := parsePackage(dir, p)
		if err != nil {
			return nil, err
		}
		pkgs[p] = ps
	}
	l := &Layout{Minor: m, Decls: map[string]*Decl{}}
	queue := []string{Root}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if _, done := l.Decls[name]; done {
			continue
		}
		pkgPath, typeName := splitName(name)
		ps := pkgs[pkgPath]
		spec := ps.specs[typeName]
		if spec == nil {
			return nil, fmt.Errorf("%s: type %s not found", m.Name, name)
		}
		r := resolver{pkg: pkgPath, imports: ps.files[typeName]}
		d := &Decl{Name: name}
		if st, ok := spec.Type.(*ast.StructType); ok && !spec.Assign.IsValid() {
			d.Underlying = "struct"
			for _, f := range st.Fields.List {
				t, err := r.expr(f.Type)
				if err != nil {
					return nil, fmt.Errorf("%s: %s: %w", m.Name, name, err)
				}
				if len(f.Names) == 0 {
					d.Fields = append(d.Fields, Field{Name: embeddedName(f.Type), Type: t, Embedded: true})
				}
				for _, n := range f.Names {
					d.Fields = append(d.Fields, Field{Name: n.Name, Type: t})
				}
			}
		} else {
			t, err := r.expr(spec.Type)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", m.Name, name, err)
			}
			if spec.Assign.IsValid() {
				t = "=" + t
			}
			d.Underlying = t
		}
		l.Decls[name] = d
		queue = append(queue, r.refs...)
	}
	return l, nil
}

func parsePackage(dir, importPath string) (*pkgSource, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	ps := &pkgSource{path: importPath, specs: map[string]*ast.TypeSpec{}, files: map[string]map[string]string{}}
	fset := token.NewFileSet()
	ctx := build.Default
	ctx.CgoEnabled = false
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		if ok, err := ctx.MatchFile(dir, n); err != nil || !ok {
			continue // another build's file (fieldsv1_string.go and the like)
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		imports := map[string]string{}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			name := path.Base(p)
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = p
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				ps.specs[ts.Name.Name] = ts
				ps.files[ts.Name.Name] = imports
			}
		}
	}
	return ps, nil
}

func splitName(name string) (pkg, typ string) {
	i := strings.LastIndex(name, ".")
	return name[:i], name[i+1:]
}

func embeddedName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return embeddedName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

var predeclared = map[string]bool{
	"bool": true, "string": true, "byte": true, "rune": true, "error": true, "any": true,
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true,
	"float32": true, "float64": true, "complex64": true, "complex128": true,
}

type resolver struct {
	pkg     string
	imports map[string]string
	refs    []string
}

func (r *resolver) expr(e ast.Expr) (string, error) {
	switch t := e.(type) {
	case *ast.Ident:
		if predeclared[t.Name] {
			return t.Name, nil
		}
		n := r.pkg + "." + t.Name
		r.refs = append(r.refs, n)
		return n, nil
	case *ast.SelectorExpr:
		x, ok := t.X.(*ast.Ident)
		if !ok {
			return "", fmt.Errorf("unexpected selector %T", t.X)
		}
		p, ok := r.imports[x.Name]
		if !ok {
			return "", fmt.Errorf("unknown import %s", x.Name)
		}
		n := p + "." + t.Sel.Name
		if _, ok := walked[p]; ok {
			r.refs = append(r.refs, n)
		}
		return n, nil
	case *ast.StarExpr:
		s, err := r.expr(t.X)
		return "*" + s, err
	case *ast.ArrayType:
		s, err := r.expr(t.Elt)
		if t.Len == nil {
			return "[]" + s, err
		}
		lit, ok := t.Len.(*ast.BasicLit)
		if !ok {
			return "", fmt.Errorf("array length %T", t.Len)
		}
		return "[" + lit.Value + "]" + s, err
	case *ast.MapType:
		k, err := r.expr(t.Key)
		if err != nil {
			return "", err
		}
		v, err := r.expr(t.Value)
		return "map[" + k + "]" + v, err
	case *ast.IndexExpr:
		x, err := r.expr(t.X)
		if err != nil {
			return "", err
		}
		i, err := r.expr(t.Index)
		return x + "[" + i + "]", err
	}
	return "", fmt.Errorf("unsupported type expression %T", e)
}

// Format renders a layout as the text committed under layouts/: a header,
// then the declarations sorted by name, each struct's fields indented below
// it in declaration order.
func (l *Layout) Format() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Kubernetes %s: k8s.io/api %s, k8s.io/apimachinery %s\n", l.Minor.Name, l.Minor.API, l.Minor.APIMachinery)
	fmt.Fprintf(&b, "# The declarations a %s reaches, extracted by internal/hashlayout/gen. Do not edit.\n", Root)
	names := make([]string, 0, len(l.Decls))
	for n := range l.Decls {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		d := l.Decls[n]
		fmt.Fprintf(&b, "type %s %s\n", d.Name, d.Underlying)
		for _, f := range d.Fields {
			if f.Embedded {
				fmt.Fprintf(&b, "\tembed %s %s\n", f.Name, f.Type)
			} else {
				fmt.Fprintf(&b, "\tfield %s %s\n", f.Name, f.Type)
			}
		}
	}
	return b.Bytes()
}

// ParseLayout reads what Format wrote.
func ParseLayout(data []byte) (*Layout, error) {
	l := &Layout{Decls: map[string]*Decl{}}
	var cur *Decl
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "# Kubernetes "):
			if _, err := fmt.Sscanf(line, "# Kubernetes %s k8s.io/api %s k8s.io/apimachinery %s", &l.Minor.Name, &l.Minor.API, &l.Minor.APIMachinery); err != nil {
				return nil, fmt.Errorf("line %d: %w", i+1, err)
			}
			l.Minor.Name = strings.TrimSuffix(l.Minor.Name, ":")
			l.Minor.API = strings.TrimSuffix(l.Minor.API, ",")
		case strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "type "):
			parts := strings.SplitN(line, " ", 3)
			if len(parts) != 3 {
				return nil, fmt.Errorf("line %d: %q", i+1, line)
			}
			cur = &Decl{Name: parts[1], Underlying: parts[2]}
			l.Decls[cur.Name] = cur
		case strings.HasPrefix(line, "\tfield "), strings.HasPrefix(line, "\tembed "):
			parts := strings.SplitN(strings.TrimPrefix(line, "\t"), " ", 3)
			if cur == nil || len(parts) != 3 {
				return nil, fmt.Errorf("line %d: %q", i+1, line)
			}
			cur.Fields = append(cur.Fields, Field{Name: parts[1], Type: parts[2], Embedded: parts[0] == "embed"})
		default:
			return nil, fmt.Errorf("line %d: %q", i+1, line)
		}
	}
	return l, nil
}

// LayoutDir is where the layouts are committed, relative to the module root.
const LayoutDir = "internal/hashlayout/layouts"

// ReadLayouts reads the committed layout of every minor of [Minors], in
// that order, and checks each names the module versions [Minors] gives.
func ReadLayouts(dir string) ([]*Layout, error) {
	var out []*Layout
	for _, m := range Minors {
		data, err := os.ReadFile(filepath.Join(dir, m.Name+".txt"))
		if err != nil {
			return nil, err
		}
		l, err := ParseLayout(data)
		if err != nil {
			return nil, fmt.Errorf("%s.txt: %w", m.Name, err)
		}
		if l.Minor != m {
			return nil, fmt.Errorf("%s.txt is of %+v, want %+v: extract again", m.Name, l.Minor, m)
		}
		out = append(out, l)
	}
	return out, nil
}
