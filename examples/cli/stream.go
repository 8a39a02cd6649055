package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// This file reads a stream of manifests as `kubectl apply -f` reads it:
// k8s.io/cli-runtime's resource builder in local mode with unstructured
// objects, lists flattened, errors collected and reading continued where
// the builder continues. It calls the same decoders the builder calls
// (apimachinery's YAML-or-JSON stream decoding, the unstructured JSON
// scheme, the metadata check) in the same order, so that it accepts and
// refuses the same bytes and yields the same objects; what it adds is where
// each object and each error is in the file. stream_test.go holds it to the
// builder itself on the corpus of testdata/streams and FuzzReadManifest on
// random bytes.

// streamObject is an object of a stream and where it starts.
type streamObject struct {
	obj *unstructured.Unstructured
	// line is the line of the file where the object's document starts
	// (1-based); item is its index in a List (-1: not in a List).
	line, item int
}

// where says where the object is, for messages: "line 12" or "line 3,
// items[1]".
func (o streamObject) where() string {
	if o.item < 0 {
		return "line " + strconv.Itoa(o.line)
	}
	return fmt.Sprintf("line %d, items[%d]", o.line, o.item)
}

// jsonPeek is how far the builder's decoder looks for a JSON stream
// (resource.StreamVisitor's buffer).
const jsonPeek = 4096

// readStream reads every object of b as the builder does. It returns the
// objects it yields, and the errors the builder reports, each starting with
// the line of the file where it occurred. A syntax error ends the stream, as
// it ends the builder's; an object that does not decode (no kind, metadata
// of the wrong type) is an error and reading goes on.
func readStream(b []byte) ([]streamObject, []error) {
	r := &streamReader{b: b, lines: lineStarts(b)}
	var out []streamObject
	var errs []error
	for {
		raw, line, err := r.next()
		if errors.Is(err, io.EOF) {
			return out, errs
		}
		if err != nil {
			return out, append(errs, err)
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			continue
		}
		objs, err := decodeObject(raw, line)
		if err != nil {
			errs = append(errs, err)
		}
		out = append(out, objs...)
	}
}

// decodeObject decodes one document as the builder's unstructured mapper
// does, flattening lists (nested ones too) into their items. An item
// without apiVersion or kind is an error, and the other items are kept.
func decodeObject(raw []byte, line int) ([]streamObject, error) {
	obj, _, err := unstructured.UnstructuredJSONScheme.Decode(raw, nil, nil)
	if err == nil {
		// The builder makes sure the metadata decodes before it returns an
		// unstructured object (a label of the wrong type is an error).
		var m struct {
			metav1.TypeMeta   `json:""`
			metav1.ObjectMeta `json:"metadata,omitempty"`
		}
		err = utiljson.Unmarshal(raw, &m)
	}
	if err != nil {
		return nil, fmt.Errorf("line %d: %w", line, err)
	}
	if !meta.IsListType(obj) {
		return []streamObject{{obj: unstructuredOf(obj), line: line, item: -1}}, nil
	}
	var items []runtime.Object
	for todo := []runtime.Object{obj}; len(todo) > 0; todo = todo[1:] {
		if !meta.IsListType(todo[0]) {
			items = append(items, todo[0])
			continue
		}
		list, err := meta.ExtractList(todo[0])
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if errs := runtime.DecodeList(list, unstructured.UnstructuredJSONScheme); len(errs) > 0 {
			return nil, fmt.Errorf("line %d: %w", line, errors.Join(errs...))
		}
		todo = append(todo, list...)
	}
	typer := unstructuredscheme.NewUnstructuredObjectTyper()
	var out []streamObject
	var errs []error
	for i, it := range items {
		if _, _, err := typer.ObjectKinds(it); err != nil {
			errs = append(errs, fmt.Errorf("line %d, items[%d]: %w", line, i, err))
			continue
		}
		out = append(out, streamObject{obj: unstructuredOf(it), line: line, item: i})
	}
	return out, errors.Join(errs...)
}

// unstructuredOf returns the object as the builder hands it on: an object
// without a namespace has no metadata.namespace field at all (its namespace
// filter sets "" on objects that are not namespaced, which deletes the
// field).
func unstructuredOf(obj runtime.Object) *unstructured.Unstructured {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		// UnstructuredJSONScheme yields *Unstructured for every object
		// that is not a list; lists were flattened.
		c, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		u = &unstructured.Unstructured{Object: c}
	}
	if u.GetNamespace() == "" {
		u.SetNamespace("")
	}
	return u
}

// streamReader splits a stream into documents as apimachinery's
// YAMLOrJSONDecoder does: a stream whose first 4096 bytes start with "{"
// after white space is read as concatenated JSON values; if the first or
// second value fails to decode, the rest (from after the first value) is
// read as YAML documents separated by "---" lines. It knows where each
// document starts.
type streamReader struct {
	b     []byte
	lines []int // byte offset of the start of each line
	// mode: 0 not started, 1 JSON, 2 YAML, 3 done (no more documents).
	mode     int
	json     *json.Decoder
	jsonBase int // offset of the JSON decoder's input in b
	count    int // values decoded
	pos      int // YAML: offset of the next line to read
}

const (
	modeStart = iota
	modeJSON
	modeYAML
	modeDone
)

// next returns the next document as JSON, and the line where it starts.
func (r *streamReader) next() ([]byte, int, error) {
	if r.mode == modeStart {
		r.mode = modeYAML
		if utilyaml.IsJSONBuffer(r.b[:min(len(r.b), jsonPeek)]) {
			r.mode, r.json = modeJSON, json.NewDecoder(bytes.NewReader(r.b))
		}
	}
	var jsonErr error
	if r.mode == modeJSON {
		start := r.jsonBase + int(r.json.InputOffset())
		var ext runtime.RawExtension
		err := r.json.Decode(&ext)
		switch {
		case err == nil:
			r.count++
			return ext.Raw, r.lineOf(skipSpace(r.b, start)), nil
		case errors.Is(err, io.EOF):
			return nil, 0, io.EOF
		}
		jsonErr = r.jsonError(err, start)
		if r.count > 1 {
			r.mode = modeDone
			return nil, 0, jsonErr
		}
		// Back to the end of the last value decoded, then past white space
		// up to and including the first newline, and on as YAML.
		r.mode = modeDone
		if p, ok := pastWhiteSpace(r.b, start); ok {
			r.mode, r.pos = modeYAML, p
		}
	}
	if r.mode == modeYAML {
		doc, first, line, err := r.yamlDocument()
		if err == nil {
			var ext runtime.RawExtension
			uerr := yaml.Unmarshal(doc, &ext)
			if uerr == nil {
				r.count++
				return ext.Raw, line, nil
			}
			err = yamlError(uerr, first)
		}
		r.mode = modeDone
		switch {
		case errors.Is(err, io.EOF):
			// The decoder drops the JSON error when the rest is empty.
			return nil, 0, io.EOF
		case jsonErr != nil:
			// When YAML fails too, the JSON error is the stream's.
			return nil, 0, jsonErr
		}
		return nil, 0, err
	}
	if jsonErr != nil {
		return nil, 0, jsonErr
	}
	return nil, 0, io.EOF
}

// yamlDocument returns the next YAML document of the stream as
// apimachinery's YAMLReader cuts it: lines up to a line that starts with
// "---" (followed by nothing but white space or a comment; anything else is
// an error), each line ended by "\n" ("\r\n" becomes "\n"). A separator
// line that comes when the document is still empty is not dropped: it
// becomes the document's first line, and the YAML parser reads it ("---"
// and "--- # x" start a document; "---#x" is a plain scalar, so a document
// that begins with it is a string or a syntax error, as kubectl finds). It
// returns the line where the document's text starts (YAML errors count from
// there) and the line of its content, after such a separator.
func (r *streamReader) yamlDocument() (doc []byte, first, content int, err error) {
	for {
		if r.pos >= len(r.b) {
			if len(doc) != 0 {
				return doc, first, max(content, first), nil
			}
			return nil, 0, 0, io.EOF
		}
		lineNo := r.lineOf(r.pos)
		end := bytes.IndexByte(r.b[r.pos:], '\n')
		var line []byte
		if end < 0 {
			line, r.pos = r.b[r.pos:], len(r.b)
		} else {
			line, r.pos = r.b[r.pos:r.pos+end], r.pos+end+1
			line = bytes.TrimSuffix(line, []byte("\r"))
		}
		if bytes.HasPrefix(line, []byte("---")) {
			trimmed := bytes.TrimSpace(line[3:])
			if len(trimmed) > 0 && trimmed[0] != '#' {
				return nil, 0, 0, fmt.Errorf("line %d: invalid Yaml document separator: %s", lineNo, trimmed)
			}
		}
		if end < 0 && lostAtEOF(line) {
			// The reader loses this line; the stream ends before it.
			if len(doc) != 0 {
				return doc, first, max(content, first), nil
			}
			return nil, 0, 0, io.EOF
		}
		if bytes.HasPrefix(line, []byte("---")) {
			if len(doc) != 0 {
				return doc, first, max(content, first), nil
			}
			first = lineNo
			doc = append(append(doc, line...), '\n')
			continue
		}
		if len(doc) == 0 {
			first = lineNo
		}
		if content == 0 {
			content = lineNo
		}
		doc = append(append(doc, line...), '\n')
	}
}

// lineBuffer is the size of the buffer apimachinery's YAML reader reads
// lines through (bufio's default).
const lineBuffer = 4096

// lostAtEOF reports whether apimachinery's YAML reader drops the last line
// of a stream, one with no newline at its end. The reader takes a long
// line in chunks of a full buffer (one byte less when the chunk ends in
// "\r", which goes back to the next chunk); when the last chunk is full,
// the end of the stream comes with the empty read after it, and the
// document reader discards a line that comes with the end of the stream.
// So a last line of 4096 bytes, or 8192, is not read: kubectl finds an
// empty stream where the YAML parser would have refused the line.
func lostAtEOF(line []byte) bool {
	for off := 0; ; {
		switch rest := len(line) - off; {
		case rest == 0:
			return off > 0
		case rest < lineBuffer:
			return false
		}
		off += lineBuffer
		if line[off-1] == '\r' {
			off--
		}
	}
}

// jsonError is a JSON decoding error with the line and column of the file.
func (r *streamReader) jsonError(err error, start int) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		off := r.jsonBase + int(syn.Offset)
		line := r.lineOf(off)
		return fmt.Errorf("line %d, column %d: json: %w", line, off-r.lines[line-1]+1, err)
	}
	line := r.lineOf(skipSpace(r.b, start))
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("line %d: the stream ends inside the JSON value that starts here (truncated?): %w", line, err)
	}
	return fmt.Errorf("line %d: %w", line, err)
}

// yamlLine finds the line the YAML library names in its errors.
var yamlLine = regexp.MustCompile(`^(error converting YAML to JSON: yaml: )line (\d+): `)

// yamlError gives the YAML library's error the line of the file: it counts
// lines from the document's start. An error without a line gets the line
// where the document starts.
func yamlError(err error, first int) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatchIndex(msg); m != nil {
		n, _ := strconv.Atoi(msg[m[4]:m[5]])
		return fmt.Errorf("line %d: %s%s", first+n-1, msg[m[2]:m[3]], msg[m[1]:])
	}
	return fmt.Errorf("line %d: %s", first, msg)
}

// lineStarts returns the byte offset of the start of every line of b.
func lineStarts(b []byte) []int {
	out := []int{0}
	for i, c := range b {
		if c == '\n' && i+1 <= len(b) {
			out = append(out, i+1)
		}
	}
	return out
}

// lineOf returns the 1-based line of the byte at offset off.
func (r *streamReader) lineOf(off int) int {
	lo, hi := 0, len(r.lines)
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if r.lines[mid] <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + 1
}

// skipSpace returns the offset of the first byte at or after off that is
// not JSON white space.
func skipSpace(b []byte, off int) int {
	for off < len(b) && (b[off] == ' ' || b[off] == '\t' || b[off] == '\r' || b[off] == '\n') {
		off++
	}
	return off
}

// pastWhiteSpace returns where the YAML decoder takes over from the JSON
// one: past the white space at off, up to and including the first
// newline. It fails (as the decoder's fallback does) on an invalid UTF-8
// rune or when only white space remains.
func pastWhiteSpace(b []byte, off int) (int, bool) {
	for off < len(b) {
		c, size := utf8.DecodeRune(b[off:])
		if c == utf8.RuneError {
			return 0, false
		}
		if !unicode.IsSpace(c) {
			return off, true
		}
		off += size
		if c == '\n' {
			return off, true
		}
	}
	return 0, false
}
