// Command gen regenerates the pod-template layouts of older Kubernetes
// minors (see package layoutgen). Run from the module root:
//
//	go run ./internal/hashlayout/gen -extract   # layouts/*.txt from the module cache, then the Go types
//	go run ./internal/hashlayout/gen            # the Go types from the committed layouts/*.txt
//
// -extract needs each minor's k8s.io/api and k8s.io/apimachinery in the
// module cache (go mod download k8s.io/api@v0.33.5 ...).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/deploysync/deploysync/internal/hashlayout/layoutgen"
)

func main() {
	root := flag.String("root", ".", "the module root")
	extract := flag.Bool("extract", false, "extract the layouts from the module cache first")
	flag.Parse()
	if err := run(*root, *extract); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(root string, extract bool) error {
	dir := filepath.Join(root, layoutgen.LayoutDir)
	if extract {
		out, err := exec.Command("go", "env", "GOMODCACHE").Output()
		if err != nil {
			return err
		}
		cache := strings.TrimSpace(string(out))
		for _, m := range layoutgen.Minors {
			l, err := layoutgen.Extract(cache, m)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, m.Name+".txt"), l.Format(), 0o644); err != nil {
				return err
			}
			fmt.Printf("%s: %d declarations\n", m.Name, len(l.Decls))
		}
	}
	layouts, err := layoutgen.ReadLayouts(dir)
	if err != nil {
		return err
	}
	files, err := layoutgen.Generate(layouts)
	if err != nil {
		return err
	}
	// Remove what an earlier run generated and this one does not.
	old, _ := filepath.Glob(filepath.Join(root, "internal/hashlayout/v1_*/*/zz_generated.types.go"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	for _, f := range files {
		p := filepath.Join(root, f.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", f.Path)
	}
	return nil
}
