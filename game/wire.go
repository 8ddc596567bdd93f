package game

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Decode reads one JSON value into v (a pointer) by the bot protocol's
// strict rules, which every game's answers and observations follow
// (docs/bots.md, "What is malformed"):
//
//   - a field name matches its json tag exactly, letter case included;
//   - a field the target does not have is ignored, whatever its value;
//   - null is refused wherever a value is wanted, optional fields included;
//   - a struct field that is not a pointer must be present; a pointer field
//     is optional;
//   - the same known field twice is refused;
//   - an integer field takes an integer literal that fits it (not 1.0, not
//     1e2, not a string);
//   - after the value only white space may follow.
//
// encoding/json is lenient on the first and third points, so a bot written
// against it would break the day the platform got strict. The error says
// what is wrong and where, for the answer's reason.
func Decode(data []byte, v any) error {
	if !json.Valid(data) {
		// encoding/json's own message says where the syntax breaks.
		var raw json.RawMessage
		err := json.Unmarshal(data, &raw)
		if err == nil {
			err = errors.New("not JSON")
		}
		return err
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		panic("game.Decode: want a non-nil pointer")
	}
	d := decoder{data: data}
	d.space()
	return d.value(rv.Elem(), nil)
}

// loc is where in the value the decoder is: built as it descends, written
// out only for an error message.
type loc struct {
	parent *loc
	key    string // a field name, or "" for an array element
	index  int
}

func (l *loc) String() string {
	if l == nil {
		return "the value"
	}
	var parts []string
	for ; l != nil; l = l.parent {
		if l.key != "" {
			parts = append(parts, "."+strconv.Quote(l.key))
		} else {
			parts = append(parts, "["+strconv.Itoa(l.index)+"]")
		}
	}
	slices.Reverse(parts)
	return strings.TrimPrefix(strings.Join(parts, ""), ".")
}

// decoder walks input that json.Valid accepted, so it checks meaning, not
// syntax.
type decoder struct {
	data []byte
	pos  int
}

func (d *decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// value decodes the value at d.pos into v.
func (d *decoder) value(v reflect.Value, path *loc) error {
	c := d.data[d.pos]
	if c == 'n' {
		return fmt.Errorf("%s is null; want %s", path, kindName(v.Type()))
	}
	switch v.Kind() {
	case reflect.Pointer:
		elem := reflect.New(v.Type().Elem())
		if err := d.value(elem.Elem(), path); err != nil {
			return err
		}
		v.Set(elem)
		return nil
	case reflect.Struct:
		if c != '{' {
			return d.mismatch(v, path)
		}
		return d.object(v, path)
	case reflect.Slice:
		if c != '[' {
			return d.mismatch(v, path)
		}
		d.pos++
		v.Set(reflect.MakeSlice(v.Type(), 0, 4)) // [] stays an empty array, not null
		for i := 0; ; i++ {
			d.space()
			if d.data[d.pos] == ']' {
				d.pos++
				return nil
			}
			if d.data[d.pos] == ',' {
				d.pos++
				d.space()
			}
			// Decode in place: one allocation per doubling, not per element.
			if i == v.Cap() {
				grown := reflect.MakeSlice(v.Type(), i, 2*i)
				reflect.Copy(grown, v)
				v.Set(grown)
			}
			v.SetLen(i + 1)
			if err := d.value(v.Index(i), &loc{parent: path, index: i}); err != nil {
				return err
			}
		}
	case reflect.String:
		if c != '"' {
			return d.mismatch(v, path)
		}
		s, err := d.str()
		v.SetString(s)
		return err
	case reflect.Bool:
		switch c {
		case 't':
			d.pos += 4
			v.SetBool(true)
		case 'f':
			d.pos += 5
			v.SetBool(false)
		default:
			return d.mismatch(v, path)
		}
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		lit := d.number()
		if lit == "" {
			return d.mismatch(v, path)
		}
		n, err := strconv.ParseInt(lit, 10, v.Type().Bits())
		if err != nil {
			return fmt.Errorf("%s is %s; want an integer that fits %d bits", path, clip(lit), v.Type().Bits())
		}
		v.SetInt(n)
		return nil
	case reflect.Float64:
		lit := d.number()
		if lit == "" {
			return d.mismatch(v, path)
		}
		f, err := strconv.ParseFloat(lit, 64)
		if err != nil {
			return fmt.Errorf("%s is %s; want a number", path, clip(lit))
		}
		v.SetFloat(f)
		return nil
	}
	panic("game.Decode: unsupported type " + v.Type().String())
}

// object decodes a JSON object into the struct v.
func (d *decoder) object(v reflect.Value, path *loc) error {
	fields := fieldsOf(v.Type())
	seen := make([]bool, len(fields))
	d.pos++
	for {
		d.space()
		switch d.data[d.pos] {
		case '}':
			d.pos++
			for i, f := range fields {
				if !seen[i] && !f.optional {
					return fmt.Errorf("%s has no field %q", whereObj(path), f.name)
				}
			}
			return nil
		case ',':
			d.pos++
			d.space()
		}
		key, err := d.str()
		if err != nil {
			return err
		}
		d.space()
		d.pos++ // ':'
		d.space()
		i := indexOf(fields, key)
		if i < 0 {
			d.skip()
			continue
		}
		if seen[i] {
			return fmt.Errorf("%s has the field %q twice", whereObj(path), key)
		}
		seen[i] = true
		if err := d.value(v.Field(fields[i].index), &loc{parent: path, key: key}); err != nil {
			return err
		}
	}
}

func whereObj(path *loc) string {
	if path == nil {
		return "the object"
	}
	return path.String()
}

func (d *decoder) mismatch(v reflect.Value, path *loc) error {
	start := d.pos
	d.skip()
	return fmt.Errorf("%s is %s; want %s", path, clip(string(d.data[start:d.pos])), kindName(v.Type()))
}

// str reads a string literal and returns its value.
func (d *decoder) str() (string, error) {
	start := d.pos
	d.pos++
	escaped := false
	for {
		c := d.data[d.pos]
		if c == '\\' {
			escaped = true
			d.pos += 2
			continue
		}
		d.pos++
		if c == '"' {
			break
		}
	}
	lit := d.data[start:d.pos]
	// Invalid UTF-8 goes through encoding/json, which reads it as U+FFFD:
	// a string means the same here as there.
	if !escaped && utf8.Valid(lit) {
		return string(lit[1 : len(lit)-1]), nil
	}
	var s string
	err := json.Unmarshal(lit, &s)
	return s, err
}

// number reads a number literal, or returns "" if none is here.
func (d *decoder) number() string {
	start := d.pos
	for d.pos < len(d.data) && strings.IndexByte("+-0123456789.eE", d.data[d.pos]) >= 0 {
		d.pos++
	}
	return string(d.data[start:d.pos])
}

// skip moves past one value of any kind.
func (d *decoder) skip() {
	depth := 0
	for {
		switch c := d.data[d.pos]; c {
		case '"':
			d.str()
		case '{', '[':
			depth++
			d.pos++
		case '}', ']':
			depth--
			d.pos++
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return
			}
			d.pos++
		default: // a literal: number, true, false, null
			for d.pos < len(d.data) && strings.IndexByte(",:]} \t\n\r", d.data[d.pos]) < 0 {
				d.pos++
			}
		}
		if depth == 0 {
			return
		}
	}
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return kindName(t.Elem())
	case reflect.Struct:
		return "an object"
	case reflect.Slice:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Float64:
		return "a number"
	}
	return "an integer"
}

type field struct {
	name     string
	index    int
	optional bool
}

var fieldCache sync.Map // reflect.Type -> []field

func fieldsOf(t reflect.Type) []field {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]field)
	}
	var fields []field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" || !sf.IsExported() {
			continue
		}
		if name == "" {
			panic("game.Decode: field " + sf.Name + " of " + t.String() + " has no json name")
		}
		fields = append(fields, field{name: name, index: i, optional: sf.Type.Kind() == reflect.Pointer})
	}
	fieldCache.Store(t, fields)
	return fields
}

func indexOf(fields []field, key string) int {
	for i, f := range fields {
		if f.name == key {
			return i
		}
	}
	return -1
}
