package sandbox

import (
	"context"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/arenabots/arena/sandbox/meter"
)

// Host calls are paid for before they run (cost model 2, docs/fuel.md):
// meter.HostCallPrice for the call, plus one unit per meter.HostBytesPerUnit
// bytes of every buffer it reads or writes, meter.HostIovecPrice per iovec
// and meter.HostSubscriptionPrice per poll_oneoff subscription. A bot that
// cannot pay is stopped (status fuel) before the host does any of the work.
//
// The WASI functions are wazero's; the charge is made by a function listener
// on them, which wazero calls with the arguments just before the function
// runs, on the guest goroutine. Listeners cost nothing on guest code: only
// the WASI host module is built with them.

// A wasiCost says what one WASI function's arguments make it do.
type wasiCost struct {
	bytes  []int // indices of length arguments of byte buffers
	iovecs [2]int
	hasIov bool
	subs   int // index of poll_oneoff's subscription count; -1 if none
	// perUnit: bytes per unit of the byte buffers, when not
	// meter.HostBytesPerUnit (random_get makes its bytes one word at a time).
	perUnit uint64
	// read: fd_read, whose bytes from stdin are charged as they are copied
	// (stdinReader.Read), when the turn they belong to has begun.
	read bool
	// paths: indices of the lengths of path arguments, each following its
	// pointer. No directory is ever opened for a bot, so no path can name
	// anything, and the host does not read one (noPaths).
	paths []int
	// noFd: the function gets descriptor -1 (EBADF) whatever it was given.
	// For fd_filestat_set_times: stdio, the only descriptors a bot has,
	// cannot set times, and wazero then falls back to setting them by the
	// descriptor's path on its file system, which stdio does not have: a
	// nil dereference (recovered, the bot crashed with a Go runtime error
	// instead of getting an errno; TestWASIAttacks).
	noFd bool
}

// wasiCosts are the WASI preview 1 functions whose work grows with an
// argument. The rest do a bounded amount of work for the call price.
var wasiCosts = map[string]wasiCost{
	"fd_read":                 {iovecs: [2]int{1, 2}, hasIov: true, subs: -1, read: true},
	"fd_write":                {iovecs: [2]int{1, 2}, hasIov: true, subs: -1},
	"fd_pread":                {iovecs: [2]int{1, 2}, hasIov: true, subs: -1},
	"fd_pwrite":               {iovecs: [2]int{1, 2}, hasIov: true, subs: -1},
	"sock_recv":               {iovecs: [2]int{1, 2}, hasIov: true, subs: -1},
	"sock_send":               {iovecs: [2]int{1, 2}, hasIov: true, subs: -1},
	"random_get":              {bytes: []int{1}, subs: -1, perUnit: meter.RandomBytesPerUnit},
	"poll_oneoff":             {subs: 2},
	"fd_readdir":              {bytes: []int{2}, subs: -1},
	"fd_prestat_dir_name":     {bytes: []int{2}, subs: -1},
	"fd_filestat_set_times":   {subs: -1, noFd: true},
	"path_create_directory":   {bytes: []int{2}, paths: []int{2}, subs: -1},
	"path_filestat_get":       {bytes: []int{3}, paths: []int{3}, subs: -1},
	"path_filestat_set_times": {bytes: []int{3}, paths: []int{3}, subs: -1},
	"path_link":               {bytes: []int{3, 6}, paths: []int{3, 6}, subs: -1},
	"path_open":               {bytes: []int{3}, paths: []int{3}, subs: -1},
	"path_readlink":           {bytes: []int{2, 4}, paths: []int{2}, subs: -1},
	"path_remove_directory":   {bytes: []int{2}, paths: []int{2}, subs: -1},
	"path_rename":             {bytes: []int{2, 5}, paths: []int{2, 5}, subs: -1},
	"path_symlink":            {bytes: []int{1, 4}, paths: []int{1, 4}, subs: -1},
	"path_unlink_file":        {bytes: []int{2}, paths: []int{2}, subs: -1},
}

// The size of a poll_oneoff subscription and of an iovec in guest memory.
const (
	subscriptionSize = 48
	iovecSize        = 8
)

// hostCharger makes the listeners that charge WASI calls.
type hostCharger struct{}

func (hostCharger) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	names := def.ExportNames()
	if len(names) == 0 {
		return nil
	}
	c, ok := wasiCosts[names[0]]
	if !ok {
		c = wasiCost{subs: -1}
	}
	return chargeListener{c, names[0]}
}

type chargeListener struct {
	cost wasiCost
	name string
}

func (l chargeListener) Before(ctx context.Context, mod api.Module, _ api.FunctionDefinition, params []uint64, _ experimental.StackIterator) {
	in, _ := ctx.Value(instanceKey{}).(*Instance)
	if in == nil {
		return
	}
	in.bind(mod)
	in.prof.enterHost(l.name)
	if c := l.cost; c.hasIov && c.iovecs[1] < len(params) && uint32(params[c.iovecs[1]]) > meter.HostMaxIovecs {
		params[c.iovecs[1]] = meter.HostMaxIovecs // a short read or write (params is the function's own stack)
	}
	in.charge(meter.HostCallPrice)
	in.charge(l.cost.price(mod.Memory(), params, in))
	if l.cost.subs >= 0 && l.cost.subs < len(params) && uint32(params[l.cost.subs]) > maxSubscriptions {
		// wazero sizes poll_oneoff's buffers as count*48 in 32 bits:
		// 2^28 subscriptions wrap to an empty buffer, and it then indexes
		// past it and panics. Any count this large needs more than 4 GiB,
		// so it is cut to one that does not wrap and reads past the
		// memory: the call returns EFAULT, as it should. (params is the
		// stack the function reads its arguments from.)
		params[l.cost.subs] = maxSubscriptions
	}
	noPaths(mod.Memory(), params, l.cost.paths)
	if l.cost.noFd && len(params) > 0 {
		params[0] = 1<<32 - 1 // int32 -1
	}
}

// noPaths empties the path arguments that lie inside the memory, after
// they are paid for. wazero's path functions copy a path into a Go string
// and walk it byte by byte (path.Clean, fs.ValidPath) before they look at
// the descriptor, which is never a directory here (no directory is
// preopened): a path of the whole 248 MiB memory took the host 248 MiB to
// 744 MiB of memory and a second of CPU a call, for 4,000,000 units of
// fuel (TestWASIAttackCorpus). An empty path ("." to wazero) gets the same
// answer every path gets here, EBADF or ENOTDIR (EINVAL from
// path_readlink), at no cost; one out of bounds still gets EFAULT, without
// being read. (params is the stack the function reads its arguments from.)
func noPaths(mem api.Memory, params []uint64, paths []int) {
	if mem == nil {
		return
	}
	size := uint64(mem.Size())
	for _, i := range paths {
		if i < 1 || i >= len(params) {
			continue
		}
		if ptr, n := uint64(uint32(params[i-1])), uint64(uint32(params[i])); ptr+n <= size {
			params[i] = 0
		}
	}
}

// maxSubscriptions is the largest poll_oneoff count whose buffers
// (subscriptionSize bytes each) fit in 32 bits.
const maxSubscriptions = (1<<32 - 1) / subscriptionSize

func (chargeListener) After(ctx context.Context, _ api.Module, _ api.FunctionDefinition, _ []uint64) {
	if in, _ := ctx.Value(instanceKey{}).(*Instance); in != nil {
		in.resume()
		in.prof.exit()
	}
}

func (chargeListener) Abort(ctx context.Context, _ api.Module, _ api.FunctionDefinition, _ error) {
	if in, _ := ctx.Value(instanceKey{}).(*Instance); in != nil {
		in.prof.exit()
	}
}

// price is what the call's arguments cost beyond the call itself. Sizes are
// clamped to the memory, since the host never touches more than that (it
// answers EFAULT instead). The iovecs' own price is charged before their
// lengths are read, so a bot cannot make the host walk a million iovecs
// it has not paid for.
func (c wasiCost) price(mem api.Memory, params []uint64, in *Instance) int64 {
	var size uint64
	if mem != nil {
		size = uint64(mem.Size())
	}
	arg := func(i int) uint64 {
		if i < 0 || i >= len(params) {
			return 0
		}
		return uint64(uint32(params[i]))
	}
	var units int64
	perUnit := uint64(meter.HostBytesPerUnit)
	if c.perUnit != 0 {
		perUnit = c.perUnit
	}
	for _, i := range c.bytes {
		units += int64(min(arg(i), size) / perUnit)
	}
	if c.subs >= 0 {
		units += int64(min(arg(c.subs), size/subscriptionSize)) * meter.HostSubscriptionPrice
	}
	if c.hasIov && mem != nil {
		ptr, n := arg(c.iovecs[0]), min(arg(c.iovecs[1]), size/iovecSize)
		in.charge(int64(n)*meter.HostIovecPrice + int64(max(n, meter.HostIovecsFlat)-meter.HostIovecsFlat)*2*in.accessPrice())
		if c.read && arg(0) == 0 {
			return units
		}
		var bytes uint64
		for k := uint64(0); k < n && ptr+(k+1)*iovecSize <= size; k++ {
			l, ok := mem.ReadUint32Le(uint32(ptr + k*iovecSize + 4))
			if !ok {
				break // wazero answers EFAULT
			}
			bytes += min(uint64(l), size)
		}
		units += int64(bytes / meter.HostBytesPerUnit)
	}
	return units
}
