package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
)

// checkOutput refuses an -o other than text, json and yaml.
func checkOutput(output string) error {
	switch output {
	case "text", "json", "yaml":
		return nil
	}
	return fmt.Errorf("-o %q: want text, json or yaml", output)
}

// outputHelp is the help of every command's -o flag.
const outputHelp = "text, json or yaml"

// writeStructured writes v as indented JSON or as YAML (the same fields:
// the YAML is the JSON's, as kubectl -o yaml prints objects).
func writeStructured(w io.Writer, output string, v any) error {
	if output == "yaml" {
		b, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeStreamed writes one of a sequence of values (status --watch): JSON
// as one compact object per line (JSON Lines), YAML as documents each
// started by "---".
func writeStreamed(w io.Writer, output string, v any) error {
	if output == "yaml" {
		if _, err := io.WriteString(w, "---\n"); err != nil {
			return err
		}
		return writeStructured(w, output, v)
	}
	return json.NewEncoder(w).Encode(v)
}
