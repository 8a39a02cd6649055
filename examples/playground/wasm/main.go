//go:build js && wasm

// Command wasm is the playground's WebAssembly program: it gives the page
// three functions, deploysyncScenarios(), deploysyncMinors() (the
// Kubernetes minors and the default) and deploysyncRun(requestJSON), each
// returning JSON, then waits for calls. Everything the page shows about the
// controller comes from them (see package play).
package main

import (
	"encoding/json"
	"syscall/js"

	"github.com/deploysync/deploysync/examples/playground/play"
)

func main() {
	js.Global().Set("deploysyncScenarios", js.FuncOf(func(js.Value, []js.Value) any {
		return marshal(play.Scenarios())
	}))
	js.Global().Set("deploysyncMinors", js.FuncOf(func(js.Value, []js.Value) any {
		return marshal(struct {
			Minors  []string `json:"minors"`
			Default string   `json:"default"`
		}{play.Minors(), play.DefaultMinor()})
	}))
	js.Global().Set("deploysyncRun", js.FuncOf(func(_ js.Value, args []js.Value) any {
		var req play.Request
		if len(args) != 1 || args[0].Type() != js.TypeString {
			return marshal(play.Result{Problems: []play.Problem{{Message: "deploysyncRun wants one argument, the request as JSON"}}})
		}
		if err := json.Unmarshal([]byte(args[0].String()), &req); err != nil {
			return marshal(play.Result{Problems: []play.Problem{{Message: "request: " + err.Error()}}})
		}
		return marshal(play.Run(req))
	}))
	if ready := js.Global().Get("deploysyncReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

func marshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(play.Result{Problems: []play.Problem{{Message: err.Error()}}})
	}
	return string(b)
}
