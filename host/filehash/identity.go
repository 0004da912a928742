package filehash

// Identity is what stat says of a file, enough to tell that it has not
// been written since (see the package comment for why ctime matters).
type Identity struct {
	Size    int64  `json:"size"`
	MtimeNS int64  `json:"mtime_ns"`
	CtimeNS int64  `json:"ctime_ns"`
	Inode   uint64 `json:"inode"`
	Device  uint64 `json:"device"`
}
