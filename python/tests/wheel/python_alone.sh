#!/usr/bin/env bash
# python_alone.sh <python> <scratch dir> <command...>: runs the command on
# what looks like a machine with Python alone. In a private mount namespace
# (unshare, as root) the system's library folder /usr/lib/x86_64-linux-gnu
# (where /lib/x86_64-linux-gnu points on Debian) is covered by a tmpfs that
# holds only
#  - glibc, libstdc++ and libgcc_s (their Debian packages' files there), and
#    the other libraries the manylinux policy lets a wheel expect (libz,
#    libexpat, ... as auditwheel's policy file lists them),
#  - what <python>, its extension modules, the shell and its basic tools
#    (grep, sed, coreutils) link,
#  - the OpenCL drivers /etc/OpenCL/vendors registers (their packages' files
#    and what those link, and for PoCL what the linker it runs links), as a
#    GPU machine has its vendor's driver;
# so the libraries of everything else Ember builds against (oneDNN, spdlog,
# fmt, libgomp, the OpenCL ICD loader, CLBlast, OpenSSL's libcrypto unless
# the interpreter itself links it) are not there. The command runs with the
# same environment, as the same user, and PYTHON_ALONE_VISIBLE naming the
# file that lists the library folder's files it sees. Libraries some packages
# install straight into /usr/lib (Debian's libgloo) are covered one by one
# with an empty file, which no loader accepts.
set -euo pipefail
python=$1
scratch=$2
shift 2
libdir=/usr/lib/x86_64-linux-gnu
[ "$(id -u)" -eq 0 ] || { echo "python_alone.sh: needs root for its mount namespace (unshare -m)" >&2; exit 1; }

# in_libdir <paths...>: the paths that lie in the library folder, as files of it.
in_libdir() {
  sed -e 's|^/lib/|/usr/lib/|' | grep "^$libdir/" || true
}
# linked_by <files...>: what ldd resolves for them into the library folder.
linked_by() {
  ldd "$@" 2>/dev/null | sed -n 's|.*=> \(/[^ ]*\) .*|\1|p' | in_libdir
}

keep=$(dpkg -L libc6 libstdc++6 libgcc-s1 | in_libdir)
keep+=$'\n'$("$python" -c '
import json, os, sys, auditwheel
with open(os.path.join(os.path.dirname(auditwheel.__file__), "policy", "manylinux-policy.json")) as f:
    names = {name for policy in json.load(f) for name in policy["lib_whitelist"]}
print("\n".join(os.path.join(sys.argv[1], name) for name in sorted(names)))' "$libdir")
interpreter=$("$python" -c 'import sys; print(sys.executable)')
dynload=$("$python" -c 'import sysconfig; print(sysconfig.get_path("platstdlib"))')/lib-dynload
keep+=$'\n'$(linked_by "$interpreter" "$dynload"/*.so /bin/sh /bin/bash /bin/grep /bin/sed /bin/cp /bin/cat /bin/ls \
  /usr/bin/env /usr/bin/dirname)
for icd in /etc/OpenCL/vendors/*.icd; do
  [ -f "$icd" ] || continue
  driver=$(head -n 1 "$icd")
  case $driver in /*) ;; *) driver=$libdir/$driver ;; esac
  package=$(dpkg -S "$(readlink -f "$driver")" | cut -d: -f1)
  files=$(dpkg -L "$package" | in_libdir)
  keep+=$'\n'$files$'\n'$(linked_by $(grep '\.so' <<<"$files"))
done
# PoCL links the kernels it compiles with the system's linker, which it runs
# as a program, against the C library's link files (libc6-dev): both are
# part of this driver, as a vendor's toolchain is of theirs (a warm kernel
# cache hides the need; a fresh machine has none).
if ls /etc/OpenCL/vendors/*pocl*.icd >/dev/null 2>&1 && [ -e /usr/bin/ld ]; then
  keep+=$'\n'$(linked_by "$(readlink -f /usr/bin/ld)")
  keep+=$'\n'$(dpkg -L libc6-dev 2>/dev/null | in_libdir)
fi

# Each kept name is copied with the file its symbolic links end at.
list=$scratch/visible-libraries.txt
mkdir -p "$scratch/tmpfs"
sort -u <<<"$keep" | grep . | while IFS= read -r file; do
  [ -e "$file" ] || continue
  echo "$file"
  if [ -L "$file" ]; then readlink -f "$file" | in_libdir; fi
done | sort -u >"$list"

exec unshare --mount --propagation private -- bash -c '
  set -euo pipefail
  list=$1 tmpfs=$2 libdir=$3 scratch_empty=$4
  shift 4
  mount -t tmpfs -o mode=0755 ember-python-alone "$tmpfs"
  while IFS= read -r file; do
    relative=${file#"$libdir"/}
    mkdir -p "$tmpfs/$(dirname "$relative")"
    if [ -d "$file" ] && [ ! -L "$file" ]; then mkdir -p "$tmpfs/$relative"; else cp -a "$file" "$tmpfs/$relative"; fi
  done <"$list"
  : >"$scratch_empty"
  for library in /usr/lib/lib*.so*; do
    if [ -f "$library" ]; then mount --bind "$scratch_empty" "$library"; fi
  done
  mount --bind "$tmpfs" "$libdir"
  PYTHON_ALONE_VISIBLE=$list exec "$@"
' python_alone "$list" "$scratch/tmpfs" "$libdir" "$scratch/empty-library" "$@"
