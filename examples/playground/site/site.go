// Package site writes the playground's static site: the page (plain
// HTML, CSS and JavaScript, embedded here), the Go toolchain's wasm_exec.js
// and the playground compiled to WebAssembly. The files work from any static
// host; nothing is computed by a server.
package site

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

//go:embed static
var static embed.FS

// WasmPackage is the import path of the program compiled to WebAssembly.
const WasmPackage = "github.com/deploysync/deploysync/examples/playground/wasm"

// WasmFile is the name of the WebAssembly file in the site.
const WasmFile = "deploysync.wasm"

// Write writes the site into dir (created if missing): the embedded page,
// wasm_exec.js from the Go installation that runs `go`, and WasmFile built
// with it (GOOS=js GOARCH=wasm). It runs the go command in the current
// directory, which must be inside the playground's module.
func Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	err := fs.WalkDir(static, "static", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := static.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, strings.TrimPrefix(path, "static/")), b, 0o644)
	})
	if err != nil {
		return err
	}
	goroot, err := goOutput("", "env", "GOROOT")
	if err != nil {
		return err
	}
	var js []byte
	for _, p := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		if js, err = os.ReadFile(filepath.Join(goroot, p)); err == nil {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("wasm_exec.js not found under GOROOT %s: %w", goroot, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "wasm_exec.js"), js, 0o644); err != nil {
		return err
	}
	out, err := filepath.Abs(filepath.Join(dir, WasmFile))
	if err != nil {
		return err
	}
	if _, err := goOutput("js", "build", "-ldflags=-s -w", "-o", out, WasmPackage); err != nil {
		return fmt.Errorf("%w\n(run from the playground's module: go run -C examples/playground . from the repository's root)", err)
	}
	return nil
}

// goOutput runs the go command (for GOOS=js GOARCH=wasm when target is
// "js") and returns its trimmed output.
func goOutput(target string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Env = os.Environ()
	if target == "js" {
		cmd.Env = append(cmd.Env, "GOOS=js", "GOARCH=wasm")
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(b)), nil
}
