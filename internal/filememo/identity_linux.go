package filememo

// ExecutableIdentity returns bytes that change whenever the running
// executable is replaced: its device, inode, size and modification time, read
// from /proc/self/exe (proc(5)), which names the running file even after it
// was deleted or replaced on disk. Memo keys include it, so a value derived
// by one build is never served to another. Errors are os.Stat's.
func ExecutableIdentity() ([]byte, error) {
	return statIdentity("/proc/self/exe")
}
