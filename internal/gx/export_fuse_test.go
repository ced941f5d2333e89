package gx

// SetFoldDeviceAdds turns the device machine's folding of Adds into their
// operands' ops (exec_device_fuse.go) on or off for the machines compiled
// after it, and returns the previous setting.
func SetFoldDeviceAdds(on bool) bool {
	was := foldAdds
	foldAdds = on
	return was
}
