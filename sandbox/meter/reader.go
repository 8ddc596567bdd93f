package meter

import "fmt"

// reader decodes the binary format. Its error is sticky: the first failure is
// kept, the position jumps to the end, and every later read returns zero, so
// callers check r.err once per loop instead of after every read. Nothing here
// indexes past the buffer, which is what keeps a malformed module from
// panicking the host.
type reader struct {
	b    []byte
	pos  int
	base int // offset of b[0] in the whole module, for messages
	err  error
}

// fail records a malformed-module error at the current position.
func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = &Error{Msg: fmt.Sprintf("malformed module at byte %d: %s", r.base+r.pos, fmt.Sprintf(format, args...))}
	}
	r.pos = len(r.b)
}

// refuse records a plain-words refusal (not a malformed module).
func (r *reader) refuse(format string, args ...any) {
	if r.err == nil {
		r.err = refusal(format, args...)
	}
	r.pos = len(r.b)
}

func (r *reader) done() bool { return r.pos >= len(r.b) }

func (r *reader) byte() byte {
	if r.pos >= len(r.b) {
		r.fail("unexpected end")
		return 0
	}
	c := r.b[r.pos]
	r.pos++
	return c
}

func (r *reader) bytes(n int) []byte {
	if n < 0 || n > len(r.b)-r.pos {
		r.fail("unexpected end")
		return nil
	}
	s := r.b[r.pos : r.pos+n]
	r.pos += n
	return s
}

// u32 reads an unsigned LEB128 value of at most 32 bits.
func (r *reader) u32() uint32 {
	var v uint32
	for shift := uint(0); ; shift += 7 {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		if shift == 28 && c > 0x0f {
			r.fail("integer too large")
			return 0
		}
		v |= uint32(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
}

// signed skips a signed LEB128 value of at most bits bits and returns it.
func (r *reader) signed(bits uint) int64 {
	var v int64
	maxBytes := (bits + 6) / 7
	for i := uint(0); ; i++ {
		if i == maxBytes {
			r.fail("integer too long")
			return 0
		}
		c := r.byte()
		if r.err != nil {
			return 0
		}
		v |= int64(c&0x7f) << (7 * i)
		if c < 0x80 {
			if shift := 7 * (i + 1); shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
	}
}

// count reads a vector length and makes sure that many items (at least one
// byte each) can still follow, so a forged length cannot make a loop spin.
func (r *reader) count() int {
	n := r.u32()
	if int64(n) > int64(len(r.b)-r.pos) {
		r.fail("vector length %d is longer than the bytes left", n)
		return 0
	}
	return int(n)
}

func (r *reader) name() string {
	n := r.count()
	return string(r.bytes(n))
}

// appendU32 appends v as unsigned LEB128.
func appendU32(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// appendS64 appends v as signed LEB128.
func appendS64(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// appendName appends a length-prefixed string.
func appendName(b []byte, s string) []byte {
	b = appendU32(b, uint32(len(s)))
	return append(b, s...)
}

// putPaddedS64 writes v as signed LEB128 in exactly len(b) bytes (at most
// 10), so a value can be patched in after the bytes around it are written.
func putPaddedS64(b []byte, v int64) {
	for i := range b {
		c := byte(v & 0x7f)
		v >>= 7
		if i < len(b)-1 {
			c |= 0x80
		}
		b[i] = c
	}
}
