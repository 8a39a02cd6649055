// Command api writes the exported API of every public package of the
// library module as one text file per package: the package clause and
// every exported constant, variable, function, type and method, as
// declarations without doc comments or bodies, one line each where the
// declaration allows it. scripts/api.sh runs it; the listings it writes
// beside this file are committed, so every change of the API shows up as a
// reviewed diff and ./scripts/test.sh fails when they are stale.
//
// Usage:
//
//	go run ./internal/testing/api -o DIR
//
// It reads the module in the current directory and skips nested modules,
// internal packages, testdata and main packages. A listing is named after
// the package's directory, "/" written as "-"; the root package's after the
// last element of the module path (deploysync.txt).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

func main() {
	out := flag.String("o", "", "directory to write the listings to")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./internal/testing/api -o DIR")
		os.Exit(2)
	}
	if err := run(".", *out); err != nil {
		fmt.Fprintln(os.Stderr, "api:", err)
		os.Exit(1)
	}
}

func run(root, out string) error {
	modPath, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	dirs, err := packageDirs(root)
	if err != nil {
		return err
	}
	for _, rel := range dirs {
		text, ok, err := listing(root, rel, modPath)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		name := path.Base(modPath) + ".txt"
		if rel != "." {
			name = strings.ReplaceAll(rel, "/", "-") + ".txt"
		}
		if err := os.WriteFile(filepath.Join(out, name), text, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func modulePath(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(p), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", gomod)
}

// packageDirs lists the module's directories (slash-separated, relative
// to root, in lexical order) that may hold a public package.
func packageDirs(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel != "." {
			base := path.Base(rel)
			if base == "internal" || base == "testdata" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module
			}
		}
		dirs = append(dirs, rel)
		return nil
	})
	return dirs, err
}

// listing renders the exported API of the package in root/rel; ok is false
// when the directory holds no Go package or a main package.
func listing(root, rel, modPath string) (text []byte, ok bool, err error) {
	dir := filepath.Join(root, filepath.FromSlash(rel))
	bp, err := build.Default.ImportDir(dir, 0)
	if _, none := err.(*build.NoGoError); none {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if bp.Name == "main" {
		return nil, false, nil
	}
	importPath := modPath
	if rel != "." {
		importPath += "/" + rel
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, false, err
		}
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, importPath)
	if err != nil {
		return nil, false, err
	}

	var b bytes.Buffer
	fmt.Fprintf(&b, "package %s // import %q\n", pkg.Name, importPath)
	section := func(title string) { fmt.Fprintf(&b, "\n%s\n\n", title) }
	var printErr error // the first declaration the printer could not print
	emit := func(d ast.Decl) {
		if printErr == nil {
			printErr = decl(&b, d)
		}
	}
	values := func(vs []*doc.Value) {
		// go/doc keeps the source order of the files; by name, moving a
		// declaration to another file does not change the listing.
		vs = slices.Clone(vs)
		slices.SortFunc(vs, func(a, b *doc.Value) int { return strings.Compare(a.Names[0], b.Names[0]) })
		for _, v := range vs {
			emit(v.Decl)
		}
	}
	funcs := func(fs []*doc.Func) {
		for _, f := range fs {
			emit(f.Decl)
		}
	}
	if len(pkg.Consts) > 0 {
		section("CONSTANTS")
		values(pkg.Consts)
	}
	if len(pkg.Vars) > 0 {
		section("VARIABLES")
		values(pkg.Vars)
	}
	if len(pkg.Funcs) > 0 {
		section("FUNCTIONS")
		funcs(pkg.Funcs)
	}
	if len(pkg.Types) > 0 {
		section("TYPES")
		for i, t := range pkg.Types {
			if i > 0 {
				b.WriteByte('\n')
			}
			emit(t.Decl)
			values(t.Consts)
			values(t.Vars)
			funcs(t.Funcs)
			funcs(t.Methods)
		}
	}
	if printErr != nil {
		return nil, false, fmt.Errorf("%s: printing a declaration: %w", rel, printErr)
	}
	return b.Bytes(), true, nil
}

// decl prints one declaration without its comments, its body or the
// layout of its source: every position is cleared, so the printer decides
// the line breaks and a doc edit cannot change the listing.
func decl(b *bytes.Buffer, d ast.Decl) error {
	if fd, ok := d.(*ast.FuncDecl); ok {
		c := *fd
		c.Doc, c.Body = nil, nil
		d = &c
	}
	ast.Inspect(d, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		alias := false
		if ts, ok := n.(*ast.TypeSpec); ok {
			alias = ts.Assign.IsValid()
		}
		clearPositions(n)
		if alias {
			n.(*ast.TypeSpec).Assign = 1 // the printer writes "=" only for a valid position
		}
		return true
	})
	cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}
	if err := cfg.Fprint(b, token.NewFileSet(), d); err != nil {
		return err
	}
	b.WriteByte('\n')
	return nil
}

var posType = reflect.TypeFor[token.Pos]()

// clearPositions sets every token.Pos field of the node to token.NoPos and
// drops its comments.
func clearPositions(n ast.Node) {
	v := reflect.ValueOf(n)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return
	}
	v = v.Elem()
	if v.Kind() != reflect.Struct {
		return
	}
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch {
		case f.Type() == posType && f.CanSet():
			f.SetInt(0)
		case f.Type() == reflect.TypeFor[*ast.CommentGroup]() && f.CanSet():
			f.Set(reflect.Zero(f.Type()))
		}
	}
}
