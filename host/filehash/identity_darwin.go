package filehash

import (
	"io/fs"
	"syscall"
)

func identify(info fs.FileInfo) (Identity, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || !info.Mode().IsRegular() {
		return Identity{}, false
	}
	return Identity{
		Size:    st.Size,
		MtimeNS: st.Mtimespec.Nano(),
		CtimeNS: st.Ctimespec.Nano(),
		Inode:   st.Ino,
		Device:  uint64(st.Dev),
	}, true
}
