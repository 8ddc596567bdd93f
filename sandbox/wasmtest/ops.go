package wasmtest

// Instructions for writing Echo.Turn code by hand.

// Cat joins pieces of code.
func Cat(parts ...[]byte) []byte { return cat(parts...) }

// Repeat is code repeated n times.
func Repeat(code []byte, n int) []byte { return bytesRepeat(code, n) }

func I32(v int32) []byte      { return cat([]byte{0x41}, sleb(int64(v))) }
func I64(v int64) []byte      { return cat([]byte{0x42}, sleb(v)) }
func Call(f uint32) []byte    { return cat([]byte{0x10}, uleb(f)) }
func Get(l uint32) []byte     { return cat([]byte{0x20}, uleb(l)) }
func Set(l uint32) []byte     { return cat([]byte{0x21}, uleb(l)) }
func Tee(l uint32) []byte     { return cat([]byte{0x22}, uleb(l)) }
func Br(l uint32) []byte      { return cat([]byte{0x0c}, uleb(l)) }
func BrIf(l uint32) []byte    { return cat([]byte{0x0d}, uleb(l)) }
func Store(off uint32) []byte { return cat([]byte{0x36, 2}, uleb(off)) }

// BrTable is br_table with n targets all 0 and default 0.
func BrTable(n int) []byte {
	return cat([]byte{0x0e}, uleb(uint32(n)), bytesRepeat([]byte{0}, n), []byte{0})
}

// Instructions without immediates.
var (
	Loop        = []byte{0x03, 0x40}
	Block       = []byte{0x02, 0x40}
	If          = []byte{0x04, 0x40}
	End         = []byte{0x0b}
	Drop        = []byte{0x1a}
	Unreachable = []byte{0x00}
	I32Add      = []byte{0x6a}
	I32Sub      = []byte{0x6b}
	I32Eqz      = []byte{0x45}
	MemoryGrow  = []byte{0x40, 0}
	MemoryFill  = []byte{0xfc, 11, 0}
	MemoryCopy  = []byte{0xfc, 10, 0, 0}
	RefNull     = []byte{0xd0, 0x70}
	TableGrow   = []byte{0xfc, 15, 0}
	TableFill   = []byte{0xfc, 17, 0}
	TableCopy   = []byte{0xfc, 14, 0, 0}
	TableSize   = []byte{0xfc, 16, 0}
)

// Forever is a loop that runs body again and again.
func Forever(body ...[]byte) []byte { return cat(Loop, cat(body...), Br(0), End) }
