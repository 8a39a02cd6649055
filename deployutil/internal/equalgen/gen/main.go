// Command gen writes deployutil's zz_generated_equal.go from
// equalgen.Template (run by go generate in deployutil).
//
// Usage:
//
//	go run ./internal/equalgen/gen -o zz_generated_equal.go
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/deploysync/deploysync/deployutil/internal/equalgen"
)

func main() {
	out := flag.String("o", "zz_generated_equal.go", "file to write")
	flag.Parse()
	res, err := equalgen.Generate(equalgen.Template())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, res.Source, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
