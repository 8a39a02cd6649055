package facts_test

import (
	"maps"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/deploysync/deploysync/internal/facts"
)

// compareWithUpstream fails t when CompileSelector and Matches answer ls
// and the label sets otherwise than metav1.LabelSelectorAsSelector and the
// labels.Selector it builds, and reports whether ls was accepted.
func compareWithUpstream(t *testing.T, ls *metav1.LabelSelector, sets ...map[string]string) bool {
	t.Helper()
	before := ls.DeepCopy()
	up, upErr := metav1.LabelSelectorAsSelector(ls)
	sel, err := facts.CompileSelector(ls)
	if !reflect.DeepEqual(ls, before) {
		t.Fatalf("CompileSelector changed its selector: %s, was %s", dump(ls), dump(before))
	}
	if (err == nil) != (upErr == nil) {
		t.Fatalf("CompileSelector(%s) error %v, LabelSelectorAsSelector error %v", dump(ls), err, upErr)
	}
	if err != nil {
		// With two bad matchLabels the error names the first in map
		// order, which differs from one call to the next.
		if len(ls.MatchLabels) <= 1 && err.Error() != upErr.Error() {
			t.Fatalf("CompileSelector(%s) error %q, want LabelSelectorAsSelector's %q", dump(ls), err, upErr)
		}
		return false
	}
	for _, set := range sets {
		before := maps.Clone(set)
		if got, want := sel.Matches(set), up.Matches(labels.Set(set)); got != want {
			t.Fatalf("Matches(%v) of %s = %v, labels.Selector %q says %v", set, dump(ls), got, up, want)
		}
		if !maps.Equal(set, before) {
			t.Fatalf("Matches changed its labels: %v, were %v", set, before)
		}
	}
	if got, want := sel.String(), up.String(); got != want {
		t.Fatalf("String() of %s = %q, want %q", dump(ls), got, want)
	}
	return true
}

func dump(ls *metav1.LabelSelector) string {
	if ls == nil {
		return "<nil>"
	}
	return ls.String()
}

func req(key string, op metav1.LabelSelectorOperator, vals ...string) metav1.LabelSelectorRequirement {
	return metav1.LabelSelectorRequirement{Key: key, Operator: op, Values: vals}
}

// TestSelector states what the label machinery accepts and matches for
// the shapes of a selector; each row is checked against
// LabelSelectorAsSelector as well as against the stated answers.
func TestSelector(t *testing.T) {
	web := map[string]string{"app": "web", "tier": "front"}
	tests := []struct {
		name      string
		ls        *metav1.LabelSelector
		refused   bool
		matches   []map[string]string
		unmatched []map[string]string
		reason    string
	}{
		{name: "nil", ls: nil, unmatched: []map[string]string{nil, {}, web},
			reason: "a nil selector selects nothing (labels.Nothing)"},
		{name: "empty", ls: &metav1.LabelSelector{}, matches: []map[string]string{nil, {}, web},
			reason: "an empty selector selects everything (labels.Everything)"},
		{name: "empty maps", ls: &metav1.LabelSelector{MatchLabels: map[string]string{}, MatchExpressions: []metav1.LabelSelectorRequirement{}},
			matches: []map[string]string{nil, web}, reason: "empty but non-nil fields are empty too"},
		{name: "matchLabels", ls: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, matches: []map[string]string{web},
			unmatched: []map[string]string{nil, {"app": "api"}, {"App": "web"}}, reason: "every pair must be present with its value; keys are case-sensitive"},
		{name: "matchLabels empty value", ls: &metav1.LabelSelector{MatchLabels: map[string]string{"app": ""}}, matches: []map[string]string{{"app": ""}},
			unmatched: []map[string]string{nil, web}, reason: "an empty value is a value: the key must be there with it"},
		{name: "In", ls: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("app", metav1.LabelSelectorOpIn, "api", "web")}},
			matches: []map[string]string{web, {"app": "api"}}, unmatched: []map[string]string{nil, {"app": "db"}}, reason: "In needs the key with one of the values"},
		{name: "NotIn", ls: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("app", metav1.LabelSelectorOpNotIn, "api")}},
			matches: []map[string]string{nil, web}, unmatched: []map[string]string{{"app": "api"}}, reason: "NotIn also matches when the key is missing"},
		{name: "Exists", ls: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("tier", metav1.LabelSelectorOpExists)}},
			matches: []map[string]string{web, {"tier": ""}}, unmatched: []map[string]string{nil, {"app": "web"}}, reason: "Exists needs the key, any value"},
		{name: "DoesNotExist", ls: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("tier", metav1.LabelSelectorOpDoesNotExist)}},
			matches: []map[string]string{nil, {"app": "web"}}, unmatched: []map[string]string{web, {"tier": ""}}, reason: "DoesNotExist needs the key absent"},
		{name: "one key twice", ls: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"},
			MatchExpressions: []metav1.LabelSelectorRequirement{req("app", metav1.LabelSelectorOpIn, "web", "api"), req("app", metav1.LabelSelectorOpNotIn, "web")}},
			unmatched: []map[string]string{nil, web, {"app": "api"}}, reason: "requirements on one key are all kept and all must hold: this one holds for no set"},
		{name: "duplicate expression", ls: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("app", metav1.LabelSelectorOpExists), req("app", metav1.LabelSelectorOpExists)}},
			matches: []map[string]string{web}, reason: "a repeated requirement is no error"},
		{name: "duplicate values", ls: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("app", metav1.LabelSelectorOpIn, "web", "web")}},
			matches: []map[string]string{web}, reason: "a repeated value is no error"},
		{name: "many matchLabels", ls: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "f": "6"}},
			matches:   []map[string]string{{"a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "f": "6", "g": "7"}},
			unmatched: []map[string]string{{"a": "1", "b": "2", "c": "3", "d": "4", "e": "5"}, {"a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "f": "x"}, {"b": "2", "c": "3", "d": "4", "e": "5", "f": "6"}},
			reason:    "every pair counts, however many"},
		{name: "prefixed key", ls: &metav1.LabelSelector{MatchLabels: map[string]string{"example.com/app": "web"}}, matches: []map[string]string{{"example.com/app": "web"}},
			unmatched: []map[string]string{web}, reason: "a key with a DNS prefix"},
		{name: "In without values", ls: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("app", metav1.LabelSelectorOpIn)}},
			refused: true, reason: "In and NotIn need values"},
		{name: "NotIn without values", ls: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{}}}},
			refused: true, reason: "an empty list is no values"},
		{name: "Exists with a value", ls: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("app", metav1.LabelSelectorOpExists, "web")}},
			refused: true, reason: "Exists and DoesNotExist take no values"},
		{name: "DoesNotExist with an empty value", ls: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("app", metav1.LabelSelectorOpDoesNotExist, "")}},
			refused: true, reason: "an empty string is still a value"},
		{name: "unknown operator", ls: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("app", "Near")}},
			refused: true, reason: "only the four operators of LabelSelectorOperator"},
		{name: "lowercase operator", ls: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("app", "in", "web")}},
			refused: true, reason: "operators are case-sensitive"},
		{name: "Gt", ls: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("n", "Gt", "1")}},
			refused: true, reason: "Gt and Lt exist in labels but not in a LabelSelector"},
		{name: "empty operator", ls: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("app", "")}},
			refused: true, reason: "no operator"},
		{name: "empty key", ls: &metav1.LabelSelector{MatchLabels: map[string]string{"": "web"}}, refused: true, reason: "a key needs a name"},
		{name: "bad key in expression", ls: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("-app", metav1.LabelSelectorOpExists)}},
			refused: true, reason: "expression keys are qualified names too"},
		{name: "key name too long", ls: &metav1.LabelSelector{MatchLabels: map[string]string{strings.Repeat("k", 64): "web"}}, refused: true,
			reason: "a key's name part has at most 63 characters"},
		{name: "key name 63", ls: &metav1.LabelSelector{MatchLabels: map[string]string{strings.Repeat("k", 63): "web"}},
			matches: []map[string]string{{strings.Repeat("k", 63): "web"}}, reason: "63 is allowed"},
		{name: "uppercase prefix", ls: &metav1.LabelSelector{MatchLabels: map[string]string{"Example.com/app": "web"}}, refused: true,
			reason: "the prefix is a lowercase DNS subdomain"},
		{name: "bad value", ls: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web!"}}, refused: true, reason: "values are label values"},
		{name: "bad value in expression", ls: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{req("app", metav1.LabelSelectorOpNotIn, "ok", strings.Repeat("v", 64))}},
			refused: true, reason: "every value of an expression is checked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sets := append(append([]map[string]string(nil), tt.matches...), tt.unmatched...)
			if accepted := compareWithUpstream(t, tt.ls, sets...); accepted == tt.refused {
				t.Fatalf("accepted = %v, want %v (%s)", accepted, !tt.refused, tt.reason)
			}
			sel, _ := facts.CompileSelector(tt.ls)
			for _, m := range tt.matches {
				if !sel.Matches(m) {
					t.Errorf("%v not matched (%s)", m, tt.reason)
				}
			}
			for _, m := range tt.unmatched {
				if sel.Matches(m) {
					t.Errorf("%v matched (%s)", m, tt.reason)
				}
			}
		})
	}
}

// TestSelectorAllocs checks that compiling and matching a valid selector
// does not allocate: the point of not building a labels.Selector.
func TestSelectorAllocs(t *testing.T) {
	ls := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"},
		MatchExpressions: []metav1.LabelSelectorRequirement{req("example.com/tier", metav1.LabelSelectorOpIn, "front", "back"), req("canary", metav1.LabelSelectorOpDoesNotExist)}}
	set := map[string]string{"app": "web", "example.com/tier": "front", "pod-template-hash": "abc"}
	n := testing.AllocsPerRun(100, func() {
		sel, err := facts.CompileSelector(ls)
		if err != nil || !sel.Matches(set) {
			t.Fatal("the selector should compile and match")
		}
	})
	if n != 0 {
		t.Errorf("%v allocations per compile and match, want 0", n)
	}
}

// The pools the random selectors draw from: the keys, values and operators
// an apiserver holds, and around them strings it refuses (empty, too long,
// bad characters, '/' misplaced, uppercase prefixes, the 63 and 253
// boundaries).
var (
	poolKeys = []string{"app", "tier", "a", "A", "pod-template-hash", "example.com/app", "x.io/Tier", "a.b_c-d",
		"", "-app", "app-", "a b", "Example.com/app", "/app", "app/", "a/b/c", "a..b", "é",
		strings.Repeat("k", 63), strings.Repeat("k", 64), strings.Repeat("p", 253) + "/k", strings.Repeat("p", 254) + "/k",
		strings.Repeat("p.", 126) + "p/" + strings.Repeat("n", 63)}
	poolValues = []string{"web", "api", "", "v1", "V_1.x", "a-b", "-web", "web.", "w b", "a/b", "é",
		strings.Repeat("v", 63), strings.Repeat("v", 64)}
	poolOps = []metav1.LabelSelectorOperator{metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn, metav1.LabelSelectorOpExists,
		metav1.LabelSelectorOpDoesNotExist, "", "in", "Gt", "Equals", "Near"}
)

// drawString is a string from the pool, or a random one from an alphabet
// of valid and invalid characters, of a length around the limits.
func drawString(r *rand.Rand, pool []string) string {
	if r.IntN(3) > 0 {
		return pool[r.IntN(len(pool))]
	}
	const alphabet = "abz09AZ-_./ \xff"
	var n int
	switch r.IntN(4) {
	case 0:
		n = 60 + r.IntN(8)
	case 1:
		n = 250 + r.IntN(8)
	default:
		n = r.IntN(12)
	}
	var b strings.Builder
	for range n {
		b.WriteByte(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// drawSelector is a random selector; valid ones come often enough that
// Matches is compared on many.
func drawSelector(r *rand.Rand, valid bool) *metav1.LabelSelector {
	pick := func(pool []string) string {
		if valid {
			return pool[r.IntN(6)] // the first six entries of each pool are valid
		}
		return drawString(r, pool)
	}
	switch r.IntN(20) {
	case 0:
		return nil
	case 1:
		return &metav1.LabelSelector{}
	}
	ls := &metav1.LabelSelector{}
	if n := r.IntN(8); n > 0 || r.IntN(2) == 0 { // up to 7 pairs: more than a Selector holds inline
		ls.MatchLabels = map[string]string{}
		for range n {
			ls.MatchLabels[pick(poolKeys)] = pick(poolValues)
		}
	}
	for range r.IntN(4) {
		op := poolOps[r.IntN(len(poolOps))]
		if valid {
			op = poolOps[r.IntN(4)]
		}
		e := metav1.LabelSelectorRequirement{Key: pick(poolKeys), Operator: op}
		nv := r.IntN(4)
		if valid && (op == metav1.LabelSelectorOpExists || op == metav1.LabelSelectorOpDoesNotExist) {
			nv = 0
		} else if valid && nv == 0 {
			nv = 1
		}
		for range nv {
			e.Values = append(e.Values, pick(poolValues))
		}
		ls.MatchExpressions = append(ls.MatchExpressions, e)
	}
	return ls
}

// drawSets are label sets made of the selector's keys and values and a
// few others, so that both answers of Matches come up.
func drawSets(r *rand.Rand, ls *metav1.LabelSelector) []map[string]string {
	var keys, vals []string
	if ls != nil {
		for k, v := range ls.MatchLabels {
			keys, vals = append(keys, k), append(vals, v)
		}
		for _, e := range ls.MatchExpressions {
			keys, vals = append(keys, e.Key), append(vals, e.Values...)
		}
	}
	keys, vals = append(keys, "app", "other"), append(vals, "web", "x", "")
	sets := []map[string]string{nil}
	if ls != nil {
		// A set built to satisfy the selector, unless its requirements
		// contradict each other.
		sat := maps.Clone(ls.MatchLabels)
		if sat == nil {
			sat = map[string]string{}
		}
		for _, e := range ls.MatchExpressions {
			switch {
			case e.Operator == metav1.LabelSelectorOpIn && len(e.Values) > 0:
				sat[e.Key] = e.Values[0]
			case e.Operator == metav1.LabelSelectorOpExists:
				sat[e.Key] = "x"
			}
		}
		sets = append(sets, sat)
	}
	for range 6 {
		m := map[string]string{}
		for range r.IntN(len(keys) + 1) {
			m[keys[r.IntN(len(keys))]] = vals[r.IntN(len(vals))]
		}
		sets = append(sets, m)
	}
	return sets
}

// TestSelectorRandom compares CompileSelector and Matches with the label
// machinery on many random selectors and label sets, and checks that the
// comparison saw both answers of each.
func TestSelectorRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 2026))
	var accepted, refused, matched, unmatched int
	for i := range 20000 {
		ls := drawSelector(r, i%2 == 0)
		sets := drawSets(r, ls)
		if !compareWithUpstream(t, ls, sets...) {
			refused++
			continue
		}
		accepted++
		sel, _ := facts.CompileSelector(ls)
		for _, set := range sets {
			if sel.Matches(set) {
				matched++
			} else {
				unmatched++
			}
		}
	}
	t.Logf("%d selectors accepted, %d refused; %d label sets matched, %d not", accepted, refused, matched, unmatched)
	if accepted < 5000 || refused < 2000 || matched < 5000 || unmatched < 5000 {
		t.Errorf("the draw misses one side of an answer")
	}
}

// FuzzSelector builds a selector of two requirements from fuzzed keys,
// values and operators and compares it with the label machinery on label
// sets made of the same strings.
func FuzzSelector(f *testing.F) {
	f.Add("app", "web", "tier", "front", uint8(0), uint8(1))
	f.Add("example.com/app", "", "x/y", "a..b", uint8(2), uint8(3))
	f.Add(strings.Repeat("k", 63), strings.Repeat("v", 64), "", "-", uint8(4), uint8(5))
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string, shape, op uint8) {
		ls := &metav1.LabelSelector{}
		if shape&1 != 0 {
			ls.MatchLabels = map[string]string{k1: v1}
		}
		e := metav1.LabelSelectorRequirement{Key: k2, Operator: poolOps[int(op)%len(poolOps)]}
		switch (shape >> 1) & 3 {
		case 1:
			e.Values = []string{v2}
		case 2:
			e.Values = []string{v1, v2}
		case 3:
			e.Values = []string{}
		}
		if shape&8 != 0 {
			ls.MatchExpressions = []metav1.LabelSelectorRequirement{e}
		}
		sets := []map[string]string{nil, {k1: v1}, {k2: v2}, {k1: v1, k2: v2}, {k2: v1}, {k1: v2, k2: ""}}
		compareWithUpstream(t, ls, sets...)
	})
}
