// Package site writes the playground's static site: the page (plain
// HTML, CSS and JavaScript, embedded here), the Go toolchain's wasm_exec.js
// and the playground compiled to WebAssembly, each beside its brotli
// (FILE.br) and gzip (FILE.gz). The files work from any static host;
// nothing is computed by a server. [Handler] serves them as a static host
// with precompressed files does.
package site

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/andybalholm/brotli"

	"github.com/deploysync/deploysync/examples/playground/play"
)

//go:embed static
var static embed.FS

// WasmPackage is the import path of the program compiled to WebAssembly.
const WasmPackage = "github.com/deploysync/deploysync/examples/playground/wasm"

// WasmFile is the name of the WebAssembly file in the site.
const WasmFile = "deploysync.wasm"

// Write writes the site into dir (created if missing): the embedded page,
// wasm_exec.js from the Go installation that runs `go`, WasmFile built
// with it (GOOS=js GOARCH=wasm, stripped: -ldflags=-s -w) and the
// precomputed runs (RunsDir), then beside
// every file its brotli (FILE.br, quality 6: quality 9 saves another 2%
// of the WebAssembly in four times the time) and its gzip at the best
// compression (FILE.gz), for a host that serves precompressed files
// (nginx's gzip_static and brotli_static, [Handler]). It runs the go
// command in the current directory, which must be inside the
// playground's module.
func Write(dir string) error {
	if err := write(dir); err != nil {
		return err
	}
	if err := writeRuns(dir); err != nil {
		return err
	}
	return compressAll(dir)
}

// RunsDir is the folder of the precomputed runs in the site:
// catalog.json (the scenarios and the Kubernetes minors) and ID.json for
// each scenario (its id and play.Run), with default.json for the first.
const RunsDir = "runs"

// writeRuns writes RunsDir, computed here by the code the WebAssembly is
// built from. The page draws its first plan from it while the WebAssembly
// loads (fetching only the catalog and the scenario its link names), then
// runs the same request in the WebAssembly and refuses to go on if the
// two differ.
func writeRuns(dir string) error {
	type minors struct {
		Minors  []string `json:"minors"`
		Default string   `json:"default"`
	}
	catalog := struct {
		Scenarios []play.Scenario `json:"scenarios"`
		Minors    minors          `json:"minors"`
	}{play.Scenarios(), minors{play.Minors(), play.DefaultMinor()}}
	runs := filepath.Join(dir, RunsDir)
	if err := os.MkdirAll(runs, 0o755); err != nil {
		return err
	}
	write := func(name string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(runs, name), b, 0o644)
	}
	if err := write("catalog.json", catalog); err != nil {
		return err
	}
	type run struct {
		ID     string      `json:"id"`
		Result play.Result `json:"result"`
	}
	for i, sc := range catalog.Scenarios {
		res := run{sc.ID, play.Run(sc.Request)}
		if err := write(sc.ID+".json", res); err != nil {
			return err
		}
		if i == 0 {
			if err := write("default.json", res); err != nil {
				return err
			}
		}
	}
	return nil
}

func write(dir string) error {
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

// encodings are the precompressed forms Write writes and Handler serves,
// the preferred first: the Content-Encoding, the file's suffix and the
// compressor.
var encodings = []struct {
	name, suffix string
	writer       func(io.Writer) io.WriteCloser
}{
	{"br", ".br", func(w io.Writer) io.WriteCloser {
		return brotli.NewWriterOptions(w, brotli.WriterOptions{Quality: 6, LGWin: 24})
	}},
	{"gzip", ".gz", func(w io.Writer) io.WriteCloser {
		zw, _ := gzip.NewWriterLevel(w, gzip.BestCompression)
		return zw
	}},
}

// compressAll writes FILE.br and FILE.gz beside every file under dir.
func compressAll(dir string) error {
	return filepath.WalkDir(dir, func(src string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || compressed(e.Name()) {
			return err
		}
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		for _, enc := range encodings {
			var buf bytes.Buffer
			zw := enc.writer(&buf)
			if _, err := zw.Write(b); err != nil {
				return err
			}
			if err := zw.Close(); err != nil {
				return err
			}
			if err := os.WriteFile(src+enc.suffix, buf.Bytes(), 0o644); err != nil {
				return err
			}
		}
		return nil
	})
}

func compressed(name string) bool {
	for _, enc := range encodings {
		if strings.HasSuffix(name, enc.suffix) {
			return true
		}
	}
	return false
}

// Handler serves the site Write wrote into dir. A request for FILE gets
// FILE.br when the client accepts br and it exists, else FILE.gz when the
// client accepts gzip and it exists, with that Content-Encoding and FILE's
// Content-Type (application/wasm for the WebAssembly, which streaming
// compilation needs); otherwise FILE. "/" is index.html.
func Handler(dir string) http.Handler {
	files := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := path.Clean("/" + r.URL.Path)
		if strings.HasSuffix(name, "/") {
			name += "index.html"
		}
		w.Header().Add("Vary", "Accept-Encoding")
		for _, enc := range encodings {
			if compressed(name) || !accepts(r, enc.name) {
				continue
			}
			f, err := os.Open(filepath.Join(dir, filepath.FromSlash(name)+enc.suffix))
			if err != nil {
				continue
			}
			defer f.Close()
			fi, err := f.Stat()
			if err != nil || fi.IsDir() {
				continue
			}
			ctype := mime.TypeByExtension(path.Ext(name))
			if path.Ext(name) == ".wasm" {
				ctype = "application/wasm"
			}
			if ctype == "" {
				ctype = "application/octet-stream"
			}
			w.Header().Set("Content-Type", ctype)
			w.Header().Set("Content-Encoding", enc.name)
			http.ServeContent(w, r, name, fi.ModTime(), f)
			return
		}
		files.ServeHTTP(w, r)
	})
}

// accepts reports whether the request's Accept-Encoding names the
// encoding (without q=0).
func accepts(r *http.Request, encoding string) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), encoding) && strings.ReplaceAll(strings.TrimSpace(params), " ", "") != "q=0" {
			return true
		}
	}
	return false
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
