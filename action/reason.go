package action

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Reason is why an action follows from the state, as data: the [Rule] that
// decided it and the numbers (and names) the rule used. String renders it
// as a sentence; MarshalJSON gives tools the rule, the values and that
// sentence. A reason is built when the sync decides and rendered only when
// someone reads it.
type Reason struct {
	// Rule is the decision rule.
	Rule Rule
	// Values are the rule's named values, in the order its sentence uses
	// them.
	Values []Value
}

// Value is one named value of a [Reason]: a number, or a text (a
// ReplicaSet's name, a revision, a label selector) when IsText is set.
type Value struct {
	// Name says what the value is ("replicaSet", "from", "maxSurge").
	Name string
	// Int is the number of a number value.
	Int int64
	// Text is the text of a text value.
	Text string
	// IsText tells a text value from a number.
	IsText bool
}

// Num returns the number value n called name.
func Num[T ~int | ~int32 | ~int64](name string, n T) Value {
	return Value{Name: name, Int: int64(n)}
}

// Str returns the text value s called name.
func Str(name, s string) Value { return Value{Name: name, Text: s, IsText: true} }

// Because returns the reason of rule with these values, in the order of
// the rule's sentence (see the rules' documentation; [Reason.Check] tells
// whether they are the rule's).
func Because(rule Rule, values ...Value) Reason { return Reason{Rule: rule, Values: values} }

// Value returns the value called name and whether the reason has one.
func (r Reason) Value(name string) (Value, bool) {
	for _, v := range r.Values {
		if v.Name == name {
			return v, true
		}
	}
	return Value{}, false
}

// Equal reports whether two reasons have the same rule and values.
func (r Reason) Equal(o Reason) bool {
	return r.Rule == o.Rule && slices.Equal(r.Values, o.Values)
}

// String renders the reason as the sentence of its rule. A rule this
// package does not define renders as its name followed by its values
// ("name=value"). A reason of a known rule whose values are not the
// rule's renders the same way, followed in brackets by what [Reason.Check]
// finds wrong: never as a sentence with the wrong numbers in it.
func (r Reason) String() string {
	if err := r.check(); err == errUnknownRule {
		return r.generic()
	} else if err != nil {
		return r.generic() + " [" + err.Error() + "]"
	}
	switch r.Rule {
	case RuleStatus:
		return statusText(r.Values)
	case RuleSyncNewReplicaSet:
		return syncNewText(r)
	}
	args := make([]any, len(r.Values))
	for i, v := range r.Values {
		args[i] = v.arg()
	}
	return fmt.Sprintf(sentences[r.Rule].format, args...)
}

func (r Reason) generic() string {
	var b strings.Builder
	b.WriteString(string(r.Rule))
	for _, v := range r.Values {
		b.WriteByte(' ')
		b.WriteString(v.Name)
		b.WriteByte('=')
		b.WriteString(v.String())
	}
	return b.String()
}

// String renders the value: the number in decimal, or the text.
func (v Value) String() string {
	if v.IsText {
		return v.Text
	}
	return strconv.FormatInt(v.Int, 10)
}

func (v Value) arg() any {
	if v.IsText {
		return v.Text
	}
	return v.Int
}

// MarshalJSON writes the reason as an object: "rule", "values" (an object
// of the named values in the rule's order, numbers as JSON numbers) and
// "text" (String).
func (r Reason) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteString(`{"rule":`)
	writeJSONString(&b, string(r.Rule))
	b.WriteString(`,"values":{`)
	for i, v := range r.Values {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(&b, v.Name)
		b.WriteByte(':')
		if v.IsText {
			writeJSONString(&b, v.Text)
		} else {
			b.WriteString(strconv.FormatInt(v.Int, 10))
		}
	}
	b.WriteString(`},"text":`)
	writeJSONString(&b, r.String())
	b.WriteByte('}')
	return []byte(b.String()), nil
}

func writeJSONString(b *strings.Builder, s string) {
	q, _ := json.Marshal(s) // a string always marshals
	b.Write(q)
}

// Reasons are the reasons of one action, in the order the sync gave them
// (an action that merges several writes has each write's reason once).
type Reasons []Reason

// String renders the reasons as one sentence, joined by "; ".
func (rs Reasons) String() string {
	switch len(rs) {
	case 0:
		return ""
	case 1:
		return rs[0].String()
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, "; ")
}

// Contains reports whether rs has a reason equal to r.
func (rs Reasons) Contains(r Reason) bool {
	return slices.ContainsFunc(rs, r.Equal)
}

// MarshalJSON writes the reasons as an array, [] when there are none.
func (rs Reasons) MarshalJSON() ([]byte, error) {
	if rs == nil {
		return []byte("[]"), nil
	}
	return json.Marshal([]Reason(rs))
}

// statusText renders a RuleStatus reason: "status: " and each change.
func statusText(vs []Value) string {
	if len(vs) == 0 {
		return "refresh the status"
	}
	var parts []string
	for i := 0; i < len(vs); i++ {
		v := vs[i]
		switch {
		case v.Name == "observedGeneration":
			parts = append(parts, "observe generation "+v.String())
		case v.Name == "drop":
			parts = append(parts, "drop "+v.Text)
		case strings.HasSuffix(v.Name, ".from") && i+1 < len(vs):
			parts = append(parts, strings.TrimSuffix(v.Name, ".from")+" "+v.String()+"→"+vs[i+1].String())
			i++
		case strings.HasSuffix(v.Name, ".status") && i+1 < len(vs):
			parts = append(parts, strings.TrimSuffix(v.Name, ".status")+"="+v.Text+" ("+vs[i+1].Text+")")
			i++
		default:
			parts = append(parts, v.Name+"="+v.String())
		}
	}
	return "status: " + strings.Join(parts, ", ")
}

// syncNewText renders a RuleSyncNewReplicaSet reason.
func syncNewText(r Reason) string {
	name, _ := r.Value("replicaSet")
	var parts []string
	if from, ok := r.Value("minReadySeconds.from"); ok {
		to, _ := r.Value("minReadySeconds.to")
		parts = append(parts, "minReadySeconds "+from.String()+"→"+to.String()+" as the Deployment's")
	}
	if from, ok := r.Value("revision.from"); ok {
		to, _ := r.Value("revision.to")
		parts = append(parts, "revision "+from.String()+"→"+to.String()+": it is the new ReplicaSet again")
	}
	if _, ok := r.Value("copyAnnotations"); ok {
		parts = append(parts, "copy the Deployment's annotations")
	}
	return "sync the new ReplicaSet " + name.Text + ": " + strings.Join(parts, "; ")
}
