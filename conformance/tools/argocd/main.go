// Command argocd prints Argo CD's health of Deployments, as
// github.com/argoproj/gitops-engine/pkg/health decides it, for the
// differential test of the verdict package (conformance/tools).
//
// It reads one Deployment per line of standard input, as JSON (apps/v1),
// and writes one line per Deployment to standard output: a JSON object
// {"status": ..., "message": ..., "error": ...} holding what
// health.GetResourceHealth returns with no health override, as Argo CD
// calls it for a Deployment without a resource customization.
//
// It lives in a module of its own because gitops-engine builds against an
// older k8s.io line than the rest of the repository.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/argoproj/gitops-engine/pkg/health"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

type answer struct {
	Status  string `json:"status"`
	Message string `json:"message"`
	Error   string `json:"error,omitempty"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "argocd:", err)
		os.Exit(1)
	}
}

func run() error {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for in.Scan() {
		var obj unstructured.Unstructured
		if err := obj.UnmarshalJSON(in.Bytes()); err != nil {
			return fmt.Errorf("line %q: %w", in.Text(), err)
		}
		var a answer
		h, err := health.GetResourceHealth(&obj, nil)
		if err != nil {
			a.Error = err.Error()
		}
		if h != nil {
			a.Status, a.Message = string(h.Status), h.Message
		}
		if err := enc.Encode(a); err != nil {
			return err
		}
	}
	if err := in.Err(); err != nil {
		return err
	}
	return out.Flush()
}
