// Package hashdump feeds FNV-32a the text k8s.io/utils/dump.ForHash prints
// for a value, without printing it.
//
// The pod-template-hash is FNV-32a over that text: go-spew's "%#v" with
// sorted map keys, no String or Error methods and no pointer addresses.
// Printing it builds a string of several kilobytes through fmt for every
// hash; this package walks the value once and writes each piece of the same
// text straight into the sum. It follows go-spew's formatter state for
// state, quirks included: a type name is left out after a nil pointer in a
// list or a map (spew forgets to reset its "skip the next type" flag
// there), and a pointer met again below the depth where it was first seen
// prints "<shown>" even when it is not a cycle, as spew's pointer map has
// it. What it does not cover (map keys that are not strings, numbers or
// booleans, complex numbers, channels, functions, unsafe pointers) it
// reports, and the caller prints with dump.ForHash instead. The package's
// tests hold it to dump.ForHash itself on random pod templates.
package hashdump

import (
	"cmp"
	"reflect"
	"slices"
	"strconv"
)

// FNV-1a, 32 bits, as hash/fnv's New32a.
const (
	// Offset32 is FNV-32a's initial state.
	Offset32 = 2166136261
	prime32  = 16777619
)

// String returns h after FNV-32a has taken in s.
func String(h uint32, s string) uint32 {
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= prime32
	}
	return h
}

// Sum returns h after FNV-32a has taken in dump.ForHash(v). ok is false when
// v holds a kind this package does not print (see the package comment); h
// is then meaningless.
func Sum(h uint32, v any) (sum uint32, ok bool) {
	p := printer{h: h}
	if v == nil {
		p.str("(interface {})<nil>")
		return p.h, true
	}
	p.value(reflect.ValueOf(v))
	return p.h, !p.unsupported
}

// printer is go-spew's formatState for the "%#v" verb, writing into an
// FNV-32a state.
type printer struct {
	h     uint32
	depth int
	// skipType is spew's ignoreNextType: the next value's type is not
	// printed (set for list items, map keys and values, and pointees).
	skipType bool
	// seen is spew's pointer map: the address of each pointer followed,
	// with the depth where it was followed.
	seen        []seenPointer
	unsupported bool
	num         [24]byte
}

type seenPointer struct {
	addr  uintptr
	depth int
}

func (p *printer) str(s string) {
	h := p.h
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= prime32
	}
	p.h = h
}

func (p *printer) bytes(b []byte) {
	h := p.h
	for _, c := range b {
		h ^= uint32(c)
		h *= prime32
	}
	p.h = h
}

func (p *printer) byte(c byte) {
	p.h = (p.h ^ uint32(c)) * prime32
}

func (p *printer) stars(n int) {
	for ; n > 0; n-- {
		p.byte('*')
	}
}

// unpack looks through a non-nil interface, as spew's unpackValue does;
// meeting an interface also turns skipType off.
func (p *printer) unpack(v reflect.Value) reflect.Value {
	if v.Kind() == reflect.Interface {
		p.skipType = false
		if !v.IsNil() {
			v = v.Elem()
		}
	}
	return v
}

func (p *printer) value(v reflect.Value) {
	kind := v.Kind()
	switch kind {
	case reflect.Invalid:
		p.str("<invalid>")
		return
	case reflect.Pointer:
		p.pointer(v)
		return
	}
	if !p.skipType {
		p.byte('(')
		p.str(v.Type().String())
		p.byte(')')
	}
	p.skipType = false
	switch kind {
	case reflect.Bool:
		if v.Bool() {
			p.str("true")
		} else {
			p.str("false")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.bytes(strconv.AppendInt(p.num[:0], v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		p.bytes(strconv.AppendUint(p.num[:0], v.Uint(), 10))
	case reflect.Float32:
		p.str(strconv.FormatFloat(v.Float(), 'g', -1, 32))
	case reflect.Float64:
		p.str(strconv.FormatFloat(v.Float(), 'g', -1, 64))
	case reflect.String:
		p.str(v.String())
	case reflect.Slice:
		if v.IsNil() {
			p.str("<nil>")
			return
		}
		p.list(v)
	case reflect.Array:
		p.list(v)
	case reflect.Interface:
		// Only a nil interface gets here (unpack looked through the others).
		p.str("<nil>")
	case reflect.Map:
		p.mapValue(v)
	case reflect.Struct:
		p.byte('{')
		p.depth++
		t := v.Type()
		for i, n := 0, v.NumField(); i < n; i++ {
			if i > 0 {
				p.byte(' ')
			}
			p.str(t.Field(i).Name)
			p.byte(':')
			p.value(p.unpack(v.Field(i)))
		}
		p.depth--
		p.byte('}')
	default:
		p.unsupported = true
	}
}

func (p *printer) list(v reflect.Value) {
	p.byte('[')
	p.depth++
	for i, n := 0, v.Len(); i < n; i++ {
		if i > 0 {
			p.byte(' ')
		}
		p.skipType = true
		p.value(p.unpack(v.Index(i)))
	}
	p.depth--
	p.byte(']')
}

func (p *printer) mapValue(v reflect.Value) {
	if v.IsNil() {
		p.str("<nil>")
		return
	}
	p.str("map[")
	p.depth++
	keys := v.MapKeys()
	if !p.sortKeys(keys) {
		p.unsupported = true
		return
	}
	for i, k := range keys {
		if i > 0 {
			p.byte(' ')
		}
		p.skipType = true
		p.value(p.unpack(k))
		p.byte(':')
		p.skipType = true
		p.value(p.unpack(v.MapIndex(k)))
	}
	p.depth--
	p.byte(']')
}

// sortKeys orders map keys as spew's SortKeys does for the kinds it compares
// directly; keys are distinct, so any correct sort gives spew's order. It
// reports false for kinds spew would order by their printed form or not at
// all (and for floats, where a NaN key has no order).
func (p *printer) sortKeys(keys []reflect.Value) bool {
	if len(keys) < 2 {
		return true
	}
	switch keys[0].Kind() {
	case reflect.String:
		slices.SortFunc(keys, func(a, b reflect.Value) int { return cmp.Compare(a.String(), b.String()) })
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		slices.SortFunc(keys, func(a, b reflect.Value) int { return cmp.Compare(a.Int(), b.Int()) })
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		slices.SortFunc(keys, func(a, b reflect.Value) int { return cmp.Compare(a.Uint(), b.Uint()) })
	case reflect.Bool:
		slices.SortFunc(keys, func(a, b reflect.Value) int {
			switch {
			case a.Bool() == b.Bool():
				return 0
			case b.Bool():
				return -1
			}
			return 1
		})
	default:
		return false
	}
	return true
}

// pointer prints a pointer as spew's formatPtr does with types shown:
// "(*T)" and the pointee, "(*T)<nil>", or, where the type is skipped,
// "<*>" and the pointee.
func (p *printer) pointer(v reflect.Value) {
	if v.IsNil() && p.skipType {
		p.str("<nil>")
		return
	}
	kept := p.seen[:0]
	for _, s := range p.seen {
		if s.depth < p.depth {
			kept = append(kept, s)
		}
	}
	p.seen = kept

	isNil, again := false, false
	indirects := 0
	e := v
	for e.Kind() == reflect.Pointer {
		if e.IsNil() {
			isNil = true
			break
		}
		indirects++
		addr := e.Pointer()
		if d, ok := p.seenAt(addr); ok && d < p.depth {
			again = true
			indirects--
			break
		}
		p.see(addr)
		e = e.Elem()
		if e.Kind() == reflect.Interface {
			if e.IsNil() {
				isNil = true
				break
			}
			e = e.Elem()
		}
	}

	if !p.skipType {
		p.byte('(')
		p.stars(indirects)
		p.str(e.Type().String())
		p.byte(')')
	} else {
		if isNil || again {
			for _, c := range []byte(e.Type().String()) {
				if c == '*' {
					indirects++
				}
			}
		}
		p.byte('<')
		p.stars(indirects)
		p.byte('>')
	}
	switch {
	case isNil:
		p.str("<nil>")
	case again:
		p.str("<shown>")
	default:
		p.skipType = true
		p.value(e)
	}
}

func (p *printer) seenAt(addr uintptr) (int, bool) {
	for _, s := range p.seen {
		if s.addr == addr {
			return s.depth, true
		}
	}
	return 0, false
}

// see records addr at the current depth, replacing an earlier record.
func (p *printer) see(addr uintptr) {
	for i := range p.seen {
		if p.seen[i].addr == addr {
			p.seen[i].depth = p.depth
			return
		}
	}
	p.seen = append(p.seen, seenPointer{addr, p.depth})
}
