// Package filehash computes the SHA-256 of provider executables and
// remembers it, so that a command does not read a 30 MB Terraform
// provider binary that an earlier command already read, unchanged.
//
// The remembered hash is keyed by the file's identity: path (with its
// symbolic links resolved, so that links to one binary share it), size,
// modification time, inode-change time (ctime), inode and device, the
// stat fields git's index uses to skip unchanged files. A user can set a
// file's mtime (touch, os.Chtimes) but not its ctime: every write,
// chmod, rename over the path or Chtimes sets ctime to the current time,
// and only changing the system clock (root) can forge it. So a file
// whose identity is unchanged has not been written since it was hashed,
// and a changed binary always misses the cache and is hashed again. The
// one gap is the clock's granularity: a write in the same clock tick as
// the one the hashed file was written in could leave ctime equal (git's
// "racy" entries), so a file is only remembered once its ctime and mtime
// lie well in the past ([DefaultMinAge]).
//
// The cache is one small JSON file in the user's cache directory
// ($XDG_CACHE_HOME/pier, or ~/.cache/pier), written 0600 in a 0700
// directory by an atomic rename. It is an optimisation only: a missing,
// corrupt or unwritable cache means the file is hashed, never an error.
// It lives with the user rather than the project because the same
// provider binary serves many deployments, and holds nothing a user
// could not compute again. It is trusted as the user's own files are:
// whoever can write it can already run code as that user (edit
// .pier.lock.hcl, PATH or ~/.terraform.d). Start at [Cache.SHA256] or
// [SHA256].
package filehash
