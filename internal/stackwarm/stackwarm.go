// Package stackwarm grows the main goroutine's stack to 16 KiB once, as one
// of the first packages initialised, so that the hook process does not grow
// it step by step later.
//
// A goroutine starts on a 2 KiB stack; each time a call needs more, the
// runtime allocates a stack twice the size, walks every frame on the old one
// (reading the binary's pclntab, which costs page faults in a cold process)
// and copies it. Package initialisation and the hook path (YAML and shell
// parsers) reach a depth of about 16 KiB, and grew the stack four times, deep
// in those call chains. Growing it here, with two frames on the stack, costs
// one small copy. Measured on the 2-core VM of README "Benchmarks" (1,500
// interleaved whole-process runs of `hookwarden hook claude pre-tool`): 2.72
// -> 2.49 ms median; a 64 KiB stack gained less (2.56 ms), an 8 KiB one
// nothing.
//
// Importing the package (blank import in cmd/hookwarden) is its whole API.
// Go initialises packages in import-path order as soon as their imports are
// (Go spec, "Package initialization"), and this package imports nothing, so
// it runs before the packages whose initialisation is deep.
package stackwarm

// The one-time growth; the value is meaningless.
var _ = grow(0)

// frameBytes is the size of the frame grow declares but never touches: a
// frame of 12 KiB plus the runtime's stack guard makes the runtime grow the
// 2 KiB stack straight to 16 KiB.
const frameBytes = 12 << 10

// grow declares a frameBytes frame without using it when n is 0: the
// function prologue's stack check still demands the whole frame, so the stack
// grows, but the untouched array is never zeroed (no page is written).
//
//go:noinline
func grow(n int) byte {
	if n > 0 {
		var buf [frameBytes]byte
		return touch(&buf, n)
	}
	return 0
}

//go:noinline
func touch(b *[frameBytes]byte, n int) byte {
	b[n%frameBytes] = byte(n)
	return b[(n+1)%frameBytes]
}
