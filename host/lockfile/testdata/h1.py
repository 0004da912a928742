# Terraform's h1: hash of an unpacked provider package directory, written
# from its documentation (Terraform: internal/getproviders PackageHashV1,
# which calls Go's golang.org/x/mod/sumdb/dirhash Hash1): for every file
# below the directory, in sorted order of its slash-separated relative
# name, the line "<sha256 hex of content>  <name>\n"; the SHA-256 of all
# lines, base64-encoded with padding, prefixed "h1:".
#
# It shares no code with pier (or Go), so the Go test can check pier's
# hash against it; it also produced the recorded value in h1.txt.
import base64, hashlib, os, sys

root = sys.argv[1]
names = []
for dirpath, _, files in os.walk(root):
    for f in files:
        names.append(os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/"))
summary = hashlib.sha256()
for name in sorted(names):
    with open(os.path.join(root, name), "rb") as fh:
        summary.update(("%s  %s\n" % (hashlib.sha256(fh.read()).hexdigest(), name)).encode())
print("h1:" + base64.b64encode(summary.digest()).decode())
