package action

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Check reports whether the reason's values are the ones its rule takes:
// for a rule with a sentence, exactly the names its documentation lists,
// in that order, each a number or a text as the sentence uses it; for
// RuleStatus and RuleSyncNewReplicaSet, the changes their documentation
// allows, in its order. The error names the rule and what is missing,
// extra, out of place or of the wrong kind. A rule this package does not
// define is an error too.
//
// Every reason Sync and this module's packages build passes Check; a tool
// that builds reasons of its own can test them with it. A reason that
// fails it does not render as its rule's sentence (see [Reason.String]).
func (r Reason) Check() error {
	if err := r.check(); err != nil {
		return fmt.Errorf("action: reason %s: %w", r.Rule, err)
	}
	return nil
}

// errUnknownRule is check's answer for a rule this package does not define.
var errUnknownRule = errors.New("unknown rule")

// check is Check without the error's prefix.
func (r Reason) check() error {
	switch r.Rule {
	case RuleStatus:
		return checkStatus(r.Values)
	case RuleSyncNewReplicaSet:
		return checkSyncNew(r.Values)
	}
	s, ok := sentences[r.Rule]
	if !ok {
		return errUnknownRule
	}
	return s.check(r.Values)
}

// check compares values with the row's names, then their kinds with the
// verbs that take them. It allocates only to describe a mismatch.
func (s sentence) check(vs []Value) error {
	rest, i := s.values, 0
	for rest != "" {
		var name string
		name, rest, _ = strings.Cut(rest, " ")
		if i >= len(vs) || vs[i].Name != name {
			return s.mismatch(vs)
		}
		i++
	}
	if i != len(vs) {
		return s.mismatch(vs)
	}
	var err error
	eachVerb(s.format, func(arg int, verb byte) {
		if err == nil && arg < len(vs) && vs[arg].IsText != (verb != 'd') {
			err = fmt.Errorf("value %s is %s, want %s", vs[arg].Name, kindOf(vs[arg].IsText), kindOf(verb != 'd'))
		}
	})
	return err
}

// mismatch says how the names of vs differ from the row's.
func (s sentence) mismatch(vs []Value) error {
	want := strings.Fields(s.values)
	got := make([]string, len(vs))
	for i, v := range vs {
		got[i] = v.Name
	}
	missing, extra := difference(want, got), difference(got, want)
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "missing "+strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		parts = append(parts, "extra "+strings.Join(extra, ", "))
	}
	if len(parts) == 0 {
		parts = append(parts, "out of order")
	}
	return fmt.Errorf("values (%s), want (%s): %s", strings.Join(got, ", "), strings.Join(want, ", "), strings.Join(parts, "; "))
}

// difference returns the names of a not matched by one in b, counting
// repeats.
func difference(a, b []string) []string {
	b = slices.Clone(b)
	var out []string
	for _, n := range a {
		if i := slices.Index(b, n); i >= 0 {
			b = slices.Delete(b, i, i+1)
			continue
		}
		out = append(out, n)
	}
	return out
}

// kindOf names a value's kind for an error: a text or a number.
func kindOf(text bool) string {
	if text {
		return "a text"
	}
	return "a number"
}

// eachVerb calls f with the argument index (from 0) and the letter of
// every verb of format, as fmt assigns them: in order, or from an explicit
// index "%[n]d" on. Flags, width and precision are skipped; a malformed
// index or a format that ends inside a verb is reported as argument -1.
func eachVerb(format string, f func(arg int, verb byte)) {
	next := 0
	skip := func(i int) int {
		for i < len(format) && strings.IndexByte("+-# 0123456789.", format[i]) >= 0 {
			i++
		}
		return i
	}
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i = skip(i + 1)
		if i < len(format) && format[i] == '%' {
			continue
		}
		if i < len(format) && format[i] == '[' {
			j := strings.IndexByte(format[i:], ']')
			n := -1
			if j > 0 {
				n, _ = strconv.Atoi(format[i+1 : i+j])
			}
			if n < 1 {
				f(-1, 0)
				return
			}
			next = n - 1
			i = skip(i + j + 1)
		}
		if i >= len(format) {
			f(-1, 0)
			return
		}
		f(next, format[i])
		next++
	}
}

// checkStatus checks the values of a RuleStatus reason against its
// documentation: observedGeneration, then the counts that change (each a
// ".from" and ".to" pair, in status order; numbers, or "-" for an unset
// terminatingReplicas), then the conditions set (a "<Type>.status" and
// "<Type>.reason" pair of texts), then the conditions dropped ("drop",
// texts).
func checkStatus(vs []Value) error {
	i := 0
	if len(vs) > 0 && vs[0].Name == "observedGeneration" {
		if vs[i].IsText {
			return errors.New("value observedGeneration is a text, want a number")
		}
		i++
	}
	// the counts a status reason may name, in status order
	for _, c := range [...]string{"replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas", "terminatingReplicas"} {
		if i >= len(vs) || vs[i].Name != c+".from" {
			continue
		}
		if i+1 >= len(vs) || vs[i+1].Name != c+".to" {
			return fmt.Errorf("value %s.from is not followed by %s.to", c, c)
		}
		for _, v := range vs[i : i+2] {
			if v.IsText && (c != "terminatingReplicas" || v.Text != "-") {
				return fmt.Errorf("value %s is the text %q, want a number", v.Name, v.Text)
			}
		}
		i += 2
	}
	for i < len(vs) {
		t, ok := strings.CutSuffix(vs[i].Name, ".status")
		if !ok {
			break
		}
		if i+1 >= len(vs) || vs[i+1].Name != t+".reason" {
			return fmt.Errorf("value %s is not followed by %s.reason", vs[i].Name, t)
		}
		if !vs[i].IsText || !vs[i+1].IsText {
			return fmt.Errorf("values %s and %s.reason must be texts", vs[i].Name, t)
		}
		i += 2
	}
	for ; i < len(vs) && vs[i].Name == "drop"; i++ {
		if !vs[i].IsText {
			return errors.New("value drop is a number, want a text")
		}
	}
	if i < len(vs) {
		return fmt.Errorf("value %s (at %d) is no change a status reason names, or out of order", vs[i].Name, i)
	}
	return nil
}

// checkSyncNew checks the values of a RuleSyncNewReplicaSet reason against
// its documentation: replicaSet (a text), then at least one change, in
// this order: minReadySeconds.from and .to (numbers), revision.from and .to
// (texts), copyAnnotations (a number).
func checkSyncNew(vs []Value) error {
	if len(vs) == 0 || vs[0].Name != "replicaSet" || !vs[0].IsText {
		return errors.New("the first value must be the text replicaSet")
	}
	i := 1
	for _, p := range [...]struct {
		names []string
		text  bool
	}{
		{[]string{"minReadySeconds.from", "minReadySeconds.to"}, false},
		{[]string{"revision.from", "revision.to"}, true},
		{[]string{"copyAnnotations"}, false},
	} {
		if i >= len(vs) || vs[i].Name != p.names[0] {
			continue
		}
		for _, n := range p.names {
			if i >= len(vs) || vs[i].Name != n {
				return fmt.Errorf("value %s is not followed by %s", p.names[0], n)
			}
			if vs[i].IsText != p.text {
				return fmt.Errorf("value %s is %s, want %s", n, kindOf(vs[i].IsText), kindOf(p.text))
			}
			i++
		}
	}
	if i < len(vs) {
		return fmt.Errorf("value %s (at %d) is no change the reason names, or out of order", vs[i].Name, i)
	}
	if i == 1 {
		return errors.New("no change: the reason names none")
	}
	return nil
}
