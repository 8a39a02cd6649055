package defaulting

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/apps"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
)

// The accepted set: Deployments that v1.37.2's full validation accepts,
// drawn from the whole schema all the same. Each is a Deployment of the
// generator repaired by upstream's own validation errors, so that the valid
// objects are not a hand-picked subset: for each error's field path the
// offending field of the input (as written, before defaulting) is dropped
// (an optional field, a map entry, a list element), or set from a small
// pool where a value is required; a path that errs again is escalated (the
// pool, then the nearest list element, then the enclosing object), and a
// Deployment still refused after maxRepairRounds rounds is given up.

// maxRepairRounds is the number of validate-and-repair rounds before a
// Deployment is given up.
const maxRepairRounds = 12

// debugRepair, when set (by hand, while changing the repair), is told
// why a Deployment is given up.
var debugRepair func(string, ...any)

// acceptedSeed is the seed of the accepted set's generator (the random
// set's is 26).
const acceptedSeed = 2026

// validationErrors runs in through v1.37.2's create path, as Deployment
// does, and returns what the strategy's Validate says of it; nil if it
// accepts. A conversion failure is an error.
func validationErrors(in *appsv1.Deployment) (field.ErrorList, error) {
	obj := in.DeepCopy()
	legacyscheme.Scheme.Default(obj)
	var internal apps.Deployment
	if err := legacyscheme.Scheme.Convert(obj, &internal, nil); err != nil {
		return nil, err
	}
	ctx := context.Background()
	deployment.Strategy.PrepareForCreate(ctx, &internal)
	return deployment.Strategy.Validate(ctx, &internal), nil
}

// acceptedStats counts the repair of the candidates drawn.
type acceptedStats struct {
	drawn, accepted, givenUp, rounds, edits int
}

// acceptedDeployments draws candidates from a generator of acceptedSeed
// and returns the first n that the repair makes valid, in order, with the
// index of the candidate each came from.
func acceptedDeployments(n int) ([]*appsv1.Deployment, []int, acceptedStats) {
	g := newGenerator(acceptedSeed)
	var out []*appsv1.Deployment
	var from []int
	var st acceptedStats
	for i := 0; len(out) < n; i++ {
		d, _ := g.deployment(i)
		st.drawn++
		r, rounds, edits, ok := repair(d)
		st.rounds += rounds
		st.edits += edits
		if !ok {
			st.givenUp++
			continue
		}
		st.accepted++
		out = append(out, r)
		from = append(from, i)
	}
	return out, from, st
}

// repair returns d repaired until v1.37.2's validation accepts it, the
// rounds and edits it took, and whether it got there.
func repair(d *appsv1.Deployment) (out *appsv1.Deployment, rounds, edits int, ok bool) {
	tree, err := toTree(d)
	if err != nil {
		return nil, 0, 0, false
	}
	attempts := map[string]int{}
	for rounds = 0; rounds <= maxRepairRounds; rounds++ {
		cur, err := fromTree(tree)
		if err != nil {
			if debugRepair != nil {
				debugRepair("fromTree: %v", err)
			}
			return nil, rounds, edits, false
		}
		errs, err := validationErrors(cur)
		if err != nil {
			if debugRepair != nil {
				debugRepair("convert: %v", err)
			}
			return nil, rounds, edits, false
		}
		if len(errs) == 0 {
			return cur, rounds, edits, true
		}
		if debugRepair != nil && rounds >= maxRepairRounds-1 {
			for _, e := range errs {
				debugRepair("%d %s", rounds, e.Error())
			}
		}
		if rounds == maxRepairRounds {
			break
		}
		// The errors of one path are repaired together, at the level the
		// path has reached, so that the result does not depend on the
		// order of the errors (validation walks maps).
		byPath := map[string][]*field.Error{}
		for _, e := range errs {
			byPath[e.Field] = append(byPath[e.Field], e)
		}
		paths := make([]string, 0, len(byPath))
		for p := range byPath {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		changed := false
		for _, p := range paths {
			level := attempts[p]
			attempts[p]++
			if fix(tree, p, byPath[p], level) {
				changed = true
				edits++
			}
		}
		compact(tree)
		if !changed {
			if debugRepair != nil {
				for _, e := range errs {
					debugRepair("unchanged: %s", e.Error())
				}
			}
			break
		}
	}
	return nil, rounds, edits, false
}

// deleted marks a list element to remove; compact removes them.
type deleted struct{}

func toTree(d *appsv1.Deployment) (map[string]any, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	err = dec.Decode(&m)
	return m, err
}

func fromTree(m map[string]any) (*appsv1.Deployment, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var d appsv1.Deployment
	err = json.Unmarshal(b, &d)
	return &d, err
}

// compact removes the elements marked deleted from every list of v.
func compact(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = compact(e)
		}
	case []any:
		out := x[:0]
		for _, e := range x {
			if _, ok := e.(deleted); ok {
				continue
			}
			out = append(out, compact(e))
		}
		return out
	}
	return v
}

// segment is one step of a field path: a child name, or a bracket (a list
// index or a map key).
type segment struct {
	name    string
	bracket bool
}

// parsePath splits a field.Path string ("spec.template.spec.containers[0].name",
// "metadata.labels[a.b/c]") into its segments.
func parsePath(p string) []segment {
	var out []segment
	for len(p) > 0 {
		switch p[0] {
		case '.':
			p = p[1:]
		case '[':
			// The key ends at the "]" followed by ".", "[" or the end.
			end := -1
			for j := 1; j < len(p); j++ {
				if p[j] == ']' && (j+1 == len(p) || p[j+1] == '.' || p[j+1] == '[') {
					end = j
					break
				}
			}
			if end < 0 {
				return append(out, segment{name: p[1:], bracket: true})
			}
			out = append(out, segment{name: p[1:end], bracket: true})
			p = p[end+1:]
		default:
			j := strings.IndexAny(p, ".[")
			if j < 0 {
				j = len(p)
			}
			out = append(out, segment{name: p[:j]})
			p = p[j:]
		}
	}
	return out
}

// v1Path maps the segments of a path of the internal types onto the
// apps/v1 JSON where the two differ: the template's labels and annotations
// are under its metadata, the pod's host namespaces are named in lower
// camel case, and the pod overhead is a resource list itself.
func v1Path(segs []segment) []segment {
	out := make([]segment, 0, len(segs)+1)
	for i, s := range segs {
		if !s.bracket && i > 0 && !segs[i-1].bracket {
			prev := segs[i-1].name
			switch {
			case prev == "template" && (s.name == "labels" || s.name == "annotations"):
				out = append(out, segment{name: "metadata"})
			case prev == "overhead" && s.name == "limits":
				continue
			}
		}
		if !s.bracket && len(s.name) > 1 && s.name[0] >= 'A' && s.name[0] <= 'Z' && s.name[1] >= 'A' && s.name[1] <= 'Z' {
			s.name = strings.ToLower(s.name[:1]) + s.name[1:]
		} else if !s.bracket && len(s.name) > 0 && s.name[0] >= 'A' && s.name[0] <= 'Z' {
			s.name = strings.ToLower(s.name[:1]) + s.name[1:]
		}
		out = append(out, s)
	}
	return out
}

// step is a node reached while walking a path, with how it was reached.
type step struct {
	parent any // map[string]any or []any
	key    string
	index  int
	node   any
	path   string // the field path of the node
}

// walk follows the segments from root as far as they exist in the tree.
func walk(root map[string]any, segs []segment) (chain []step, complete bool) {
	var cur any = root
	path := ""
	for _, s := range segs {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[s.name]
			if !ok {
				return chain, false
			}
			if s.bracket {
				path += "[" + s.name + "]"
			} else if path == "" {
				path = s.name
			} else {
				path += "." + s.name
			}
			chain = append(chain, step{parent: c, key: s.name, node: v, path: path})
			cur = v
		case []any:
			i, err := strconv.Atoi(s.name)
			if !s.bracket || err != nil || i < 0 || i >= len(c) {
				return chain, false
			}
			if _, gone := c[i].(deleted); gone {
				return chain, false
			}
			path += "[" + s.name + "]"
			chain = append(chain, step{parent: c, index: i, node: c[i], path: path})
			cur = c[i]
		default:
			return chain, false
		}
	}
	return chain, true
}

// protected are the nodes a repair never removes: without them the
// Deployment is no Deployment of this generator (its name, its selector
// and the template's label it selects, the template's containers).
var protected = map[string]bool{
	"metadata": true, "metadata.name": true, "spec": true, "spec.selector": true,
	"spec.template": true, "spec.template.metadata": true, "spec.template.metadata.labels": true,
	"spec.template.metadata.labels[app]": true, "spec.template.spec": true,
	"spec.template.spec.containers": true,
}

// remove deletes the node of st from its parent, unless protected.
func remove(st step) bool {
	if protected[st.path] {
		return false
	}
	switch p := st.parent.(type) {
	case map[string]any:
		delete(p, st.key)
	case []any:
		p[st.index] = deleted{}
	}
	return true
}

// set replaces the node of st by v.
func set(st step, v any) {
	switch p := st.parent.(type) {
	case map[string]any:
		p[st.key] = v
	case []any:
		p[st.index] = v
	}
}

// pool returns a valid value for a required field named key at path, if
// the pool has one. Names and the like are derived from the path, so that
// siblings differ and the value does not depend on the order of repair.
func pool(key, path string) (any, bool) {
	h := fnv.New32a()
	h.Write([]byte(path))
	x := h.Sum32()
	tag := fmt.Sprintf("%07x", x&0xfffffff)
	switch key {
	case "name":
		return "n" + tag, true
	case "image":
		return "nginx:1.27", true
	case "containerPort":
		return json.Number(strconv.Itoa(int(1 + x%65535))), true
	case "port":
		return json.Number("8080"), true
	case "mountPath":
		return "/m/" + tag, true
	case "key":
		return "k" + tag, true
	case "path":
		return "p" + tag, true
	case "fieldPath":
		return "metadata.name", true
	case "topologyKey":
		return "kubernetes.io/hostname", true
	case "command":
		return []any{"true"}, true
	case "namespace":
		return "default", true
	case "containers":
		return []any{map[string]any{"name": "app", "image": "nginx:1.27"}}, true
	}
	return nil, false
}

// nearestElement returns the deepest list element of the chain (the node
// itself if it is one), or false.
func nearestElement(chain []step) (step, bool) {
	for i := len(chain) - 1; i >= 0; i-- {
		if _, ok := chain[i].parent.([]any); ok && !protected[chain[i].path] {
			return chain[i], true
		}
	}
	return step{}, false
}

// fix applies the level'th repair to the node of one field path, given
// its errors; it reports whether it changed the tree.
func fix(root map[string]any, path string, errs []*field.Error, level int) bool {
	segs := v1Path(parsePath(path))
	chain, complete := walk(root, segs)
	if len(chain) > 0 && !complete && len(chain) < len(segs) {
		// A default that must exceed minReadySeconds.
		if segs[len(chain)].name == "progressDeadlineSeconds" {
			if m, ok := chain[len(chain)-1].node.(map[string]any); ok {
				if _, in := m["minReadySeconds"]; in {
					delete(m, "minReadySeconds")
					return true
				}
			}
		}
		// A field the deprecated serviceAccount fills on conversion.
		if segs[len(chain)].name == "serviceAccountName" {
			if m, ok := chain[len(chain)-1].node.(map[string]any); ok {
				if _, in := m["serviceAccount"]; in {
					delete(m, "serviceAccount")
					return true
				}
			}
		}
	}
	if len(chain) == 0 {
		return false
	}
	leaf := chain[len(chain)-1]
	if !complete {
		// The path goes past what the input has (a required field left
		// out, or a default's path): set the missing field from the pool
		// where its parent is here, else treat the deepest node that is as
		// the one in error, a level on.
		if len(chain) == len(segs)-1 && !segs[len(segs)-1].bracket && level == 0 {
			if m, ok := leaf.node.(map[string]any); ok {
				if v, ok := pool(segs[len(segs)-1].name, path); ok {
					m[segs[len(segs)-1].name] = v
					return true
				}
			}
		}
		level++
	}
	last := segs[len(chain)-1].name
	switch level {
	case 0:
		if m, ok := leaf.node.(map[string]any); ok && complete {
			// An error on a map names its bad key as the value: drop the
			// entries named, or, if none is, the map.
			n := 0
			for _, e := range errs {
				if k, ok := e.BadValue.(string); ok {
					if _, in := m[k]; in && !protected[leaf.path+"["+k+"]"] {
						delete(m, k)
						n++
					}
					for mk, mv := range m { // a bad value: drop its entries
						if mv == k && !protected[leaf.path+"["+mk+"]"] {
							delete(m, mk)
							n++
						}
					}
				}
			}
			if n > 0 {
				return true
			}
		}
		required := false
		for _, e := range errs {
			required = required || e.Type == field.ErrorTypeRequired
		}
		if required {
			if v, ok := pool(last, leaf.path); ok && complete {
				set(leaf, v)
				return true
			}
		}
		if remove(leaf) {
			return true
		}
		fallthrough
	case 1:
		if v, ok := pool(last, leaf.path); ok && complete {
			if b, _ := json.Marshal(v); string(b) != mustMarshal(leaf.node) {
				set(leaf, v)
				return true
			}
		}
		fallthrough
	case 2:
		if el, ok := nearestElement(chain); ok && remove(el) {
			return true
		}
		fallthrough
	case 3:
		for i := len(chain) - 2; i >= 0; i-- {
			if remove(chain[i]) {
				return true
			}
		}
	}
	return false
}

func mustMarshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
