// Code generated from the Arena repository's sdk/json.go by `go generate ./internal/kits`. DO NOT EDIT.

package main

import (
	"iter"
	"strconv"
	"unsafe"
)

// JSON is one JSON value as raw text, read lazily: Get, Elems and Ints find
// what a bot asks for by scanning, without decoding the rest. A bot whose
// play function takes a JSON observation gets the line as it came:
//
//	sdk.Run(func(obs sdk.JSON) Action { ore := obs.Get("ore").Ints(nil); ... })
//
// That is the cheap way to read a large observation in a wasm bot:
// encoding/json spends about 600 fuel per byte in Go's wasm output, so a
// 7 KB Grid Royale observation costs 4.4 million of the 5 million a turn
// brings, where scanning it costs a small part of that.
//
// Every method accepts any bytes: on text that is not the JSON it expects it
// returns the zero value, never panics. Numbers are read as integers (every
// observation on the platform holds only integers).
type JSON []byte

// Get returns the value of the object's field key (its own fields, not those
// of nested objects), or nil when j is no object or has no such field.
//
// Each Get scans the object from its start. To read many fields of a large
// object, range over Fields once instead.
func (j JSON) Get(key string) JSON {
	i := skipSpace(j, 0)
	if i >= len(j) || j[i] != '{' {
		return nil
	}
	for {
		var name, value JSON
		if name, value, i = nextField(j, i+1); i < 0 {
			return nil
		}
		if string(name) == key {
			return value
		}
		if i >= len(j) || j[i] != ',' {
			return nil
		}
	}
}

// nextField reads the field that starts at i (after white space), within
// an object: its name without the quotes, its value, and the index past the
// value and the white space after it; i is -1 when there is no well-formed
// field there (the object's end included).
func nextField(j JSON, i int) (name, value JSON, next int) {
	i = skipSpace(j, i)
	if i >= len(j) || j[i] != '"' {
		return nil, nil, -1
	}
	end := skipValue(j, i)
	if end < 0 {
		return nil, nil, -1
	}
	name = j[i+1 : end-1]
	i = skipSpace(j, end)
	if i >= len(j) || j[i] != ':' {
		return nil, nil, -1
	}
	start := skipSpace(j, i+1)
	if end = skipValue(j, start); end < 0 {
		return nil, nil, -1
	}
	return name, j[start:end], skipSpace(j, end)
}

// Fields yields the fields of an object in order, each name as written
// (escapes are not decoded) with its value. It yields nothing when j is no
// object, and stops at the first thing that is not well-formed.
//
// The name shares j's bytes rather than being copied (a copy per field is
// an allocation, a good part of reading a small observation): keep it no
// longer than j, and copy it (strings.Clone) to keep it beyond a turn whose
// line buffer is reused.
func (j JSON) Fields() iter.Seq2[string, JSON] {
	return func(yield func(string, JSON) bool) {
		i := skipSpace(j, 0)
		if i >= len(j) || j[i] != '{' {
			return
		}
		for {
			var name, value JSON
			if name, value, i = nextField(j, i+1); i < 0 {
				return
			}
			if !yield(unsafe.String(unsafe.SliceData(name), len(name)), value) {
				return
			}
			if i >= len(j) || j[i] != ',' {
				return
			}
		}
	}
}

// Elems returns the elements of an array (empty for an empty array), or nil
// when j is no array.
func (j JSON) Elems() []JSON {
	i := skipSpace(j, 0)
	if i >= len(j) || j[i] != '[' {
		return nil
	}
	elems := []JSON{} // empty, not nil: an empty array is still an array
	i = skipSpace(j, i+1)
	if i < len(j) && j[i] == ']' {
		return elems
	}
	for i < len(j) {
		end := skipValue(j, i)
		if end < 0 {
			return nil
		}
		elems = append(elems, j[i:end])
		i = skipSpace(j, end)
		if i >= len(j) {
			return nil
		}
		if j[i] == ']' {
			return elems
		}
		if j[i] != ',' {
			return nil
		}
		i = skipSpace(j, i+1)
	}
	return nil
}

// Int returns the value as an integer: a number, true as 1, anything else 0.
func (j JSON) Int() int {
	t := j[skipSpace(j, 0):]
	if len(t) >= 4 && string(t[:4]) == "true" {
		return 1
	}
	n, _ := number(t)
	return n
}

// Bool reports whether the value is true or a non-zero number.
func (j JSON) Bool() bool { return j.Int() != 0 }

// Str returns the value of a string, unquoted, or "" for anything else.
func (j JSON) Str() string {
	t := j[skipSpace(j, 0):]
	end := skipValue(t, 0)
	if end < 2 || t[0] != '"' {
		return ""
	}
	s, err := strconv.Unquote(string(t[:end]))
	if err != nil {
		return string(t[1 : end-1])
	}
	return s
}

// Ints appends to dst the numbers, booleans (true as 1) and nulls (0) of an
// array, nested arrays flattened in order, so that a board comes out row by
// row: ore[y][x] is at y*width+x. Strings are skipped; the values of objects
// inside the array count like any other.
func (j JSON) Ints(dst []int) []int {
	i := skipSpace(j, 0)
	if i >= len(j) || j[i] != '[' {
		return dst
	}
	end := skipValue(j, i)
	if end < 0 {
		return dst
	}
	j = j[:end]
	for i < len(j) {
		c := j[i]
		switch {
		case c-'0' <= 9 || c == '-':
			neg := c == '-'
			if neg {
				i++
			}
			n := 0
			for ; i < len(j) && j[i]-'0' <= 9; i++ {
				n = n*10 + int(j[i]-'0')
			}
			if neg {
				n = -n
			}
			dst = append(dst, n)
		case c == 't' || c == 'f' || c == 'n': // true, false, null
			dst = append(dst, boolInt(c == 't'))
			i = skipScalar(j, i)
		case c == '"': // strings are not numbers: skip them whole
			if i = skipValue(j, i); i < 0 {
				return dst
			}
		default:
			i++
		}
	}
	return dst
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// number reads the integer at the start of t and how many bytes it used.
func number(t []byte) (n, used int) {
	neg := len(t) > 0 && t[0] == '-'
	if neg {
		used = 1
	}
	for ; used < len(t) && t[used] >= '0' && t[used] <= '9'; used++ {
		n = n*10 + int(t[used]-'0')
	}
	if neg {
		n = -n
	}
	return n, used
}

func skipSpace(j []byte, i int) int {
	for i < len(j) && class[j[i]] == classSpace {
		i++
	}
	return i
}

// skipScalar returns the index after a number, true, false or null at i.
func skipScalar(j []byte, i int) int {
	for i < len(j) && class[j[i]] < classSpace {
		i++
	}
	return i
}

// The classes of bytes the scanner tells apart. A table read costs one
// memory access where a chain of comparisons costs several branches, which
// a Go bot pays dearly for (docs/fuel.md). A scalar (a number, true, false
// or null, or junk) runs to the next byte of classSpace or classStop.
const (
	classScalar = iota
	classOpen   // [ {
	classQuote
	classSpace
	classStop // , : ] }
)

var class = [256]byte{
	' ': classSpace, '\t': classSpace, '\n': classSpace, '\r': classSpace,
	',': classStop, ':': classStop, ']': classStop, '}': classStop,
	'[': classOpen, '{': classOpen, '"': classQuote,
}

// skipValue returns the index just after the value that starts at i, or -1
// when there is no well-formed value there. It keeps its own stack of open
// brackets rather than recursing, so no input can exhaust the stack.
func skipValue(j []byte, i int) int {
	depth := 0
	for i < len(j) {
		c := j[i]
		i++
		// The classes by how often they come: scalars, then , : ] }.
		k := class[c]
		if k == classScalar {
			for i < len(j) && class[j[i]] < classSpace {
				i++
			}
		} else if k == classStop {
			if depth == 0 {
				return -1
			}
			if c == ',' || c == ':' {
				continue
			}
			depth--
		} else if k == classOpen {
			depth++
			continue
		} else if k == classQuote {
			for i < len(j) && j[i] != '"' {
				if j[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(j) {
				return -1
			}
			i++
		} else { // white space
			continue
		}
		if depth == 0 {
			return i
		}
	}
	return -1
}
