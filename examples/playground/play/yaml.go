package play

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/deploysync/deploysync/deployutil"
)

// lineRE finds the line number in a YAML parser's message.
var lineRE = regexp.MustCompile(`line (\d+)`)

// unknownRE finds the field name in encoding/json's unknown-field message.
var unknownRE = regexp.MustCompile(`unknown field "([^"]*)"`)

// parseDeployment decodes one apps/v1 Deployment from YAML as an apiserver
// with strict field validation reads it: unknown and duplicate fields and
// wrong types are problems, each at its line.
func parseDeployment(src string) (*appsv1.Deployment, []Problem) {
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(src), &root); err != nil {
		return nil, []Problem{{In: "yaml", Line: syntaxLine(src, err), Message: err.Error()}}
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, []Problem{{In: "yaml", Line: 1, Message: "the YAML must be one Deployment (a mapping with apiVersion, kind, metadata and spec)"}}
	}
	doc := root.Content[0]
	var probs []Problem
	for _, f := range []struct{ field, want string }{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}} {
		key, val := find(doc, []string{f.field})
		switch {
		case key == nil:
			probs = append(probs, Problem{In: "yaml", Line: 1, Field: f.field, Message: fmt.Sprintf("%s: Required value: want %s", f.field, f.want)})
		case val.Value != f.want:
			probs = append(probs, Problem{In: "yaml", Line: key.Line, Field: f.field, Message: fmt.Sprintf("%s: Unsupported value: %q: supported values: %q", f.field, val.Value, f.want)})
		}
	}
	if len(probs) > 0 {
		return nil, probs
	}
	d := &appsv1.Deployment{}
	if err := sigsyaml.UnmarshalStrict([]byte(src), d); err != nil {
		p := Problem{In: "yaml", Line: lineOf(err.Error()), Message: err.Error()}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			p.Field = te.Field
			p.Message = fmt.Sprintf("%s: Invalid value: a %s where %s is expected", te.Field, te.Value, te.Type)
			p.Line = fieldLine(doc, te.Field)
		} else if m := unknownRE.FindStringSubmatch(err.Error()); m != nil {
			p.Field = m[1]
			p.Message = fmt.Sprintf("unknown field %q", m[1])
			p.Line = keyLine(doc, m[1])
		}
		return nil, []Problem{p}
	}
	// What the object is read as is not part of the controller's state.
	d.TypeMeta = appsv1.Deployment{}.TypeMeta
	if d.Namespace == "" {
		d.Namespace = "default"
	}
	if d.Name == "" {
		return nil, []Problem{{In: "yaml", Line: fieldLine(doc, "metadata.name"), Field: "metadata.name", Message: "metadata.name: Required value: name or generateName is required"}}
	}
	return d, nil
}

// locate turns a run's error into problems: each of the library's
// InputErrors at the line of its field, anything else without a line.
func locate(src string, err error) []Problem {
	var root yaml.Node
	_ = yaml.Unmarshal([]byte(src), &root)
	var doc *yaml.Node
	if len(root.Content) > 0 {
		doc = root.Content[0]
	}
	var probs []Problem
	var walk func(error)
	walk = func(e error) {
		if joined, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range joined.Unwrap() {
				walk(x)
			}
			return
		}
		var ie *deployutil.InputError
		if errors.As(e, &ie) {
			p := Problem{Field: ie.Field, Message: ie.Error()}
			if strings.HasPrefix(ie.Object, "Deployment ") && doc != nil {
				p.In, p.Line = "yaml", fieldLine(doc, ie.Field)
			}
			probs = append(probs, p)
			return
		}
		var se *ScriptError
		if errors.As(e, &se) {
			probs = append(probs, Problem{In: "script", Line: se.Line, Message: se.Error()})
			return
		}
		probs = append(probs, Problem{Message: e.Error()})
	}
	walk(err)
	return probs
}

// syntaxLine returns the line of a YAML syntax error: the one its message
// names, or, when it names none ("did not find expected node content"),
// the last line of the shortest run of leading lines that the parser
// refuses with the same message.
func syntaxLine(src string, err error) int {
	if n := lineOf(err.Error()); n > 0 {
		return n
	}
	lines := strings.Split(src, "\n")
	for n := 1; n <= len(lines); n++ {
		var node yaml.Node
		if e := yaml.Unmarshal([]byte(strings.Join(lines[:n], "\n")), &node); e != nil && e.Error() == err.Error() {
			return n
		}
	}
	return len(lines)
}

func lineOf(msg string) int {
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// splitPath splits "spec.template.spec.containers[0].image" into its keys
// and indexes; a bracketed non-number is a map key.
func splitPath(path string) []string {
	var out []string
	for path != "" {
		switch {
		case path[0] == '.':
			path = path[1:]
		case path[0] == '[':
			end := strings.IndexByte(path, ']')
			if end < 0 {
				return append(out, path[1:])
			}
			out = append(out, path[1:end])
			path = path[end+1:]
		default:
			end := strings.IndexAny(path, ".[")
			if end < 0 {
				end = len(path)
			}
			out = append(out, path[:end])
			path = path[end:]
		}
	}
	return out
}

// fieldLine returns the line of the field at path, or of its deepest
// ancestor present (a missing field is reported where it belongs).
func fieldLine(doc *yaml.Node, path string) int {
	keys := splitPath(path)
	for n := len(keys); n > 0; n-- {
		if node, _ := find(doc, keys[:n]); node != nil {
			return node.Line
		}
	}
	return 1
}

// find returns the node at keys — for a mapping entry its key node, whose
// line is the entry's — and its value; nils if absent.
func find(n *yaml.Node, keys []string) (at, value *yaml.Node) {
	for _, k := range keys {
		switch n.Kind {
		case yaml.MappingNode:
			next := -1
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == k {
					next = i
				}
			}
			if next < 0 {
				return nil, nil
			}
			at, n = n.Content[next], n.Content[next+1]
		case yaml.SequenceNode:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(n.Content) {
				return nil, nil
			}
			at, n = n.Content[i], n.Content[i]
		default:
			return nil, nil
		}
	}
	return at, n
}

// keyLine returns the line of the first mapping key named key, depth first.
func keyLine(n *yaml.Node, key string) int {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i].Line
			}
		}
	}
	for _, c := range n.Content {
		if l := keyLine(c, key); l > 0 {
			return l
		}
	}
	return 0
}
