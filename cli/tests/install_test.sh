#!/usr/bin/env bash
# The project as a user installs it: `cmake --install` into a temporary
# prefix, and `cpack -G DEB` unpacked into a temporary root; from each,
# libnrt.so.1 with its SONAME link and headers, `neuron-emu instances`, the
# installed scenario library as neuron-conformance's default, and a runtime
# scenario run from there (FUSE: skipped, exit 77, where /dev/fuse or root is
# missing).
#
# usage: install_test.sh BUILD_DIR
set -euo pipefail
# Every check greps a whole output held in a variable: `cmd | grep -q`
# fails under pipefail when grep stops reading before cmd ends (SIGPIPE).
build=$1
work=$(mktemp -d /tmp/neuron-emu-install-test.XXXXXX)
trap 'rm -rf "$work"' EXIT

fail() {
  echo "install_test: $*" >&2
  exit 1
}

check_tree() { # PREFIX: what an installed tree must hold and do
  local prefix=$1
  [ "$(readlink "$prefix/lib/libnrt.so")" = libnrt.so.1 ] || fail "$prefix/lib/libnrt.so is not a link to libnrt.so.1"
  local out
  out=$(objdump -p "$prefix/lib/libnrt.so.1")
  grep -q 'SONAME *libnrt.so.1' <<<"$out" || fail "libnrt.so.1 has no SONAME libnrt.so.1"
  [ -f "$prefix/include/nrt/nrt.h" ] || fail "no $prefix/include/nrt/nrt.h"
  [ -f "$prefix/share/doc/neuron-emu/README.md" ] || fail "no README under $prefix/share/doc/neuron-emu"
  out=$("$prefix/bin/neuron-emu" instances)
  grep -q '^trn2.48xlarge ' <<<"$out" || fail "$prefix/bin/neuron-emu instances lists no trn2.48xlarge"
  out=$("$prefix/bin/neuron-conformance" --list)
  grep -q '^runtime/cores_exclusive ' <<<"$out" ||
    fail "neuron-conformance does not list the installed scenarios by default"
}

cmake --install "$build" --prefix "$work/prefix" >/dev/null
check_tree "$work/prefix"

(cd "$build" && cpack -G DEB -B "$work/package" >/dev/null) || fail "cpack -G DEB failed"
deb=$(ls "$work"/package/neuron-emu_*.deb) || fail "cpack made no .deb"
info=$(dpkg-deb -I "$deb")
grep -q 'Depends: .*libsystemc' <<<"$info" || fail "the package does not depend on libsystemc"
dpkg-deb -x "$deb" "$work/root"
check_tree "$work/root/usr"

if [ "$(id -u)" -ne 0 ] || ! [ -r /dev/fuse ] || ! [ -w /dev/fuse ]; then
  echo "install_test: a scenario needs root and /dev/fuse to serve its tree; skipped" >&2
  exit 77
fi
for prefix in "$work/prefix" "$work/root/usr"; do
  out=$("$prefix/bin/neuron-conformance" "$prefix/share/neuron-emu/scenarios/runtime/cores_exclusive.yaml") ||
    fail "runtime/cores_exclusive failed from $prefix: $out"
  grep -q '1 passed, 0 failed' <<<"$out" || fail "runtime/cores_exclusive did not pass from $prefix: $out"
done
echo "install_test: installed and packaged trees run"
