package site

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/andybalholm/brotli"

	"github.com/deploysync/deploysync/examples/playground/play"
)

// TestHandlerServesGzip: a client that accepts br gets FILE.br, one that
// accepts gzip FILE.gz, with that Content-Encoding and FILE's type; one
// that accepts neither gets FILE.
func TestHandlerServesGzip(t *testing.T) {
	dir := t.TempDir()
	wasm := bytes.Repeat([]byte("\x00asm wasm bytes "), 1000)
	if err := os.WriteFile(filepath.Join(dir, WasmFile), wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html><title>x</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := compressAll(dir); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(Handler(dir))
	defer srv.Close()
	for _, tt := range []struct {
		path, accept, wantEnc, wantType string
		want                            []byte
		reason                          string
	}{
		{"/" + WasmFile, "gzip, deflate, br", "br", "application/wasm", wasm, "a browser's Accept-Encoding over HTTPS: brotli first"},
		{"/" + WasmFile, "gzip, deflate", "gzip", "application/wasm", wasm, "a browser's Accept-Encoding over HTTP: gzip"},
		{"/" + WasmFile, "identity", "", "application/wasm", wasm, "no gzip accepted: the file itself"},
		{"/" + WasmFile, "gzip;q=0", "", "application/wasm", wasm, "gzip refused with q=0"},
		{"/", "gzip", "gzip", "text/html; charset=utf-8", []byte("<!doctype html><title>x</title>"), "the index, compressed too"},
	} {
		req, _ := http.NewRequest("GET", srv.URL+tt.path, nil)
		req.Header.Set("Accept-Encoding", tt.accept)
		resp, err := http.DefaultTransport.RoundTrip(req) // no transparent decompression
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if tt.reason == "" {
			t.Fatal("reason must be provided")
		}
		if got := resp.Header.Get("Content-Encoding"); got != tt.wantEnc {
			t.Errorf("%s (%s): Content-Encoding %q, want %q (%s)", tt.path, tt.accept, got, tt.wantEnc, tt.reason)
		}
		if got := resp.Header.Get("Content-Type"); got != tt.wantType {
			t.Errorf("%s (%s): Content-Type %q, want %q (%s)", tt.path, tt.accept, got, tt.wantType, tt.reason)
		}
		if tt.wantEnc == "br" {
			if body, err = io.ReadAll(brotli.NewReader(bytes.NewReader(body))); err != nil {
				t.Fatalf("%s: not brotli: %v", tt.path, err)
			}
		}
		if tt.wantEnc == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatalf("%s: not gzip: %v", tt.path, err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(body, tt.want) {
			t.Errorf("%s (%s): body of %d bytes, want the %d of the file (%s)", tt.path, tt.accept, len(body), len(tt.want), tt.reason)
		}
	}
}

// TestWriteRuns: the precomputed runs are play.Run's, one file a
// scenario, the first also as default.json, beside the catalog.
func TestWriteRuns(t *testing.T) {
	dir := t.TempDir()
	if err := writeRuns(dir); err != nil {
		t.Fatal(err)
	}
	var catalog struct {
		Scenarios []play.Scenario `json:"scenarios"`
		Minors    struct {
			Minors  []string `json:"minors"`
			Default string   `json:"default"`
		} `json:"minors"`
	}
	read := func(name string, v any) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, RunsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	read("catalog.json", &catalog)
	if len(catalog.Scenarios) != len(play.Scenarios()) || catalog.Minors.Default != play.DefaultMinor() {
		t.Fatalf("catalog: %d scenarios, default minor %q", len(catalog.Scenarios), catalog.Minors.Default)
	}
	for i, sc := range catalog.Scenarios {
		var run struct {
			ID     string      `json:"id"`
			Result play.Result `json:"result"`
		}
		read(sc.ID+".json", &run)
		if want := play.Run(sc.Request); run.ID != sc.ID || run.Result.Join() != want.Join() {
			t.Errorf("%s.json: id %q and a run other than play.Run's", sc.ID, run.ID)
		}
		if i == 0 {
			var def struct {
				ID string `json:"id"`
			}
			read("default.json", &def)
			if def.ID != sc.ID {
				t.Errorf("default.json is %q, want the first scenario %q", def.ID, sc.ID)
			}
		}
	}
}
