package gx

// SetFoldDeviceAdds turns the machine's folding of Adds into their
// operands' ops (exec_device_fuse.go, on every backend), and of Rows into one copy
// (exec_device_unstack.go), on or off for the machines compiled
// after it, and returns the previous setting.
func SetFoldDeviceAdds(on bool) bool {
	was := foldAdds
	foldAdds = on
	return was
}

// SetStackDeviceGrads turns the device machine's stacking of gradient
// chains into one product (exec_device_stack.go) on or off for the
// machines compiled after it, and returns the previous setting.
func SetStackDeviceGrads(on bool) bool {
	was := stackGrads
	stackGrads = on
	return was
}

// SetFuseAttention turns the device machine's grouping of attention
// chains (exec_device_attend.go) on or off for the machines compiled after
// it, and returns the previous setting.
func SetFuseAttention(on bool) bool {
	was := fuseAttend
	fuseAttend = on
	return was
}
