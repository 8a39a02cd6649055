// Command playground builds the deploysync playground — the library and its
// simulator compiled to WebAssembly, behind a plain HTML page — and serves
// it on 127.0.0.1 (a free port unless -addr says otherwise), printing the
// address; with -out DIR it only writes the static site into DIR, for any
// static host, every file beside its brotli (FILE.br) and gzip (FILE.gz)
// for hosts that serve precompressed files. It serves every file
// precompressed, brotli where the browser takes it, else gzip. Run it from
// the repository's root as
//
//	go run -C examples/playground .
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/deploysync/deploysync/examples/playground/site"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to serve on")
	out := flag.String("out", "", "write the static site into this directory and exit")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: playground [-addr HOST:PORT] [-out DIR]")
		os.Exit(2)
	}
	if err := run(*addr, *out); err != nil {
		fmt.Fprintln(os.Stderr, "playground:", err)
		os.Exit(1)
	}
}

func run(addr, out string) error {
	dir := out
	if dir == "" {
		tmp, err := os.MkdirTemp("", "deploysync-playground-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	fmt.Fprintln(os.Stderr, "building the playground (GOOS=js GOARCH=wasm) ...")
	if err := site.Write(dir); err != nil {
		return err
	}
	if out != "" {
		abs, _ := filepath.Abs(out)
		fmt.Println("wrote the static site to", abs)
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf("playground at http://%s/ (Ctrl-C stops it)\n", ln.Addr())
	srv := &http.Server{Handler: site.Handler(dir)}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-stop
		srv.Close() // Serve returns, and the deferred RemoveAll runs
	}()
	err = srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
