package facts

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Selector is a Deployment's label selector, checked once by
// [CompileSelector] and matched against label maps without building a
// labels.Selector. It accepts, refuses and matches exactly as the
// labels.Selector of metav1.LabelSelectorAsSelector: a nil selector
// matches nothing, one without matchLabels and matchExpressions matches
// everything, otherwise every matchLabels pair and every expression must
// hold.
//
// A Selector reads the metav1.LabelSelector it was compiled from, which
// must not change while the Selector is in use (a sync never changes the
// Deployment's selector). The zero Selector is the nil selector.
type Selector struct {
	src *metav1.LabelSelector
	// pairs holds the first n matchLabels pairs, all of them unless
	// spill is set: matching walks them instead of ranging over the map,
	// which costs more than the lookups for the few pairs a selector has.
	pairs [inlinePairs]labelPair
	n     int
	spill bool
}

// inlinePairs is the number of matchLabels pairs kept in a Selector; a
// selector with more is matched by ranging over its map.
const inlinePairs = 4

type labelPair struct{ key, value string }

// CompileSelector checks ls as metav1.LabelSelectorAsSelector does (keys
// are qualified names, values are label values, In and NotIn need values,
// Exists and DoesNotExist take none, no other operator) and returns the
// Selector. It does not allocate on success; on refusal it returns
// LabelSelectorAsSelector's own error.
func CompileSelector(ls *metav1.LabelSelector) (Selector, error) {
	s := Selector{src: ls}
	if ls == nil {
		return s, nil
	}
	valid := true
	for k, v := range ls.MatchLabels {
		if !isQualifiedName(k) || !isLabelValue(v) {
			valid = false
			break
		}
		if s.n == inlinePairs {
			s.spill = true
		} else {
			s.pairs[s.n] = labelPair{k, v}
			s.n++
		}
	}
	if valid && expressionsValid(ls.MatchExpressions) {
		return s, nil
	}
	if _, err := metav1.LabelSelectorAsSelector(ls); err != nil {
		return Selector{}, err
	}
	// Not reached while the checks refuse exactly what the label machinery
	// refuses (the tests compare them); if they ever refuse more, the
	// machinery's answer is the one to keep, matched through the map.
	s.spill = true
	return s, nil
}

// expressionsValid reports whether LabelSelectorAsSelector accepts the
// matchExpressions of a selector.
func expressionsValid(exprs []metav1.LabelSelectorRequirement) bool {
	for i := range exprs {
		e := &exprs[i]
		switch e.Operator {
		case metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn:
			if len(e.Values) == 0 {
				return false
			}
		case metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist:
			if len(e.Values) != 0 {
				return false
			}
		default:
			return false
		}
		if !isQualifiedName(e.Key) {
			return false
		}
		for _, v := range e.Values {
			if !isLabelValue(v) {
				return false
			}
		}
	}
	return true
}

// Matches reports whether a set of labels satisfies the selector, as
// labels.Selector.Matches(labels.Set(set)) of the parsed selector does.
func (s *Selector) Matches(set map[string]string) bool {
	ls := s.src
	if ls == nil {
		return false
	}
	if s.spill {
		for k, want := range ls.MatchLabels {
			if got, ok := set[k]; !ok || got != want {
				return false
			}
		}
	} else {
		for _, p := range s.pairs[:s.n] {
			if got, ok := set[p.key]; !ok || got != p.value {
				return false
			}
		}
	}
	for i := range ls.MatchExpressions {
		e := &ls.MatchExpressions[i]
		got, ok := set[e.Key]
		switch e.Operator {
		case metav1.LabelSelectorOpIn:
			if !ok || !hasValue(e.Values, got) {
				return false
			}
		case metav1.LabelSelectorOpNotIn:
			if ok && hasValue(e.Values, got) {
				return false
			}
		case metav1.LabelSelectorOpExists:
			if !ok {
				return false
			}
		case metav1.LabelSelectorOpDoesNotExist:
			if ok {
				return false
			}
		default:
			return false // not compiled: CompileSelector refuses it
		}
	}
	return true
}

func hasValue(vals []string, v string) bool {
	for _, x := range vals {
		if x == v {
			return true
		}
	}
	return false
}

// String is the selector as labels.Selector.String() of the parsed selector
// writes it (requirements sorted by key): the text reasons show. It parses
// the selector, so it is for the rare paths that print it.
func (s *Selector) String() string {
	sel, err := metav1.LabelSelectorAsSelector(s.src)
	if err != nil {
		return labels.Nothing().String()
	}
	return sel.String()
}

// The lengths an apiserver allows (k8s.io/apimachinery/pkg/util/validation).
const (
	maxDNS1123Subdomain = 253
	maxLabelName        = 63 // a label value, or the name part of a key
)

// isDNS1123Subdomain reports whether validation.IsDNS1123Subdomain accepts
// s: at most 253 characters, dot-separated labels of lowercase letters,
// digits and '-', each starting and ending with a letter or digit.
func isDNS1123Subdomain(s string) bool {
	n := len(s)
	if n == 0 || n > maxDNS1123Subdomain || !isLowerAlnum(s[0]) || !isLowerAlnum(s[n-1]) {
		return false
	}
	for i := 1; i < n-1; i++ {
		switch c := s[i]; {
		case isLowerAlnum(c), c == '-':
		case c == '.':
			// A label ends and the next starts with a letter or digit
			// (this also refuses an empty label).
			if !isLowerAlnum(s[i-1]) || !isLowerAlnum(s[i+1]) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// isQualifiedName reports whether validation.IsQualifiedName accepts s: a
// name part, optionally after a DNS subdomain prefix and one '/'.
func isQualifiedName(s string) bool {
	name := s
	if i := strings.IndexByte(s, '/'); i >= 0 {
		if !isDNS1123Subdomain(s[:i]) {
			return false
		}
		name = s[i+1:] // a second '/' is refused with it: no name holds one
	}
	return name != "" && isLabelValue(name)
}

// isLabelValue reports whether validation.IsValidLabelValue accepts s:
// empty, or at most 63 letters, digits, '-', '_' and '.', starting and
// ending with a letter or digit.
func isLabelValue(s string) bool {
	n := len(s)
	if n == 0 {
		return true
	}
	if n > maxLabelName || !isAlnum(s[0]) || !isAlnum(s[n-1]) {
		return false
	}
	for i := 1; i < n-1; i++ {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func isLowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func isAlnum(c byte) bool { return isLowerAlnum(c) || c >= 'A' && c <= 'Z' }
