// Command kubectl-deploysync is a kubectl plugin (run it as
// `kubectl deploysync`) that shows what kube-controller-manager's Deployment
// controller would do with a file of manifests: plan, simulate, history and
// status. See package github.com/deploysync/deploysync/examples/cli.
package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/deploysync/deploysync/examples/cli"
)

func main() {
	cmd := cli.NewCommand(os.Stdout, os.Stderr, time.Now)
	if err := cmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		code := 1
		var e *cli.ExitError
		if errors.As(err, &e) {
			code = e.Code
		}
		os.Exit(code)
	}
}
