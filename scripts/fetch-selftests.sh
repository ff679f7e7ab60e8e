#!/usr/bin/env bash
# Fetch the Linux kernel's BPF verifier selftests and build them into test
# cases for tests/differential/verifier-selftests.test.ts:
#   - the newest linux-source-* package Debian offers (the unstable suite),
#     downloaded with apt-get through a SEPARATE source list and apt state
#     folder under .cache/selftests/apt, so the machine's apt state and
#     packages stay exactly as they are;
#   - test_verifier's tables (tools/testing/selftests/bpf/verifier/*.c),
#     compiled with gcc against the source's own headers into a small program
#     (scripts/selftests/dump_tables.c) that writes each case as JSON;
#   - progs/verifier_*.c, built with clang-19 as the selftests' Makefile
#     builds them (-O2 --target=bpf -mcpu=v3, its BPF_CFLAGS), against a
#     vmlinux.h made from the running kernel's BTF.
# Everything lands in .cache/selftests/ (git-ignored); a second run with the
# same package version does nothing. Usage: scripts/fetch-selftests.sh [--force]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${XDP_LAB_SELFTESTS_DIR:-$ROOT/.cache/selftests}
mkdir -p "$OUT/apt/lists/partial" "$OUT/apt/cache/archives/partial" "$OUT/apt/etc"
echo 'deb http://deb.debian.org/debian unstable main' > "$OUT/apt/etc/sources.list"
APT=(-o "Dir::Etc::sourcelist=$OUT/apt/etc/sources.list" -o Dir::Etc::sourceparts=/dev/null
     -o "Dir::State::Lists=$OUT/apt/lists" -o "Dir::Cache=$OUT/apt/cache"
     -o Dir::State::status=/var/lib/dpkg/status -o APT::Sandbox::User=root -qq)

# One fetch at a time: test files that need the sources may start it in parallel (the second waits, then finds READY).
exec 9>"$OUT/.lock"
flock 9

if [ -f "$OUT/READY" ] && [ "${1:-}" != "--force" ] && [ -n "$(find "$OUT/READY" -mtime -7 2>/dev/null)" ]; then
  echo "selftests: $(cat "$OUT/READY") already built in $OUT"
  exit 0
fi

echo "selftests: apt-get update (unstable, private state in $OUT/apt)"
apt-get "${APT[@]}" update
PKG=$(apt-cache "${APT[@]}" search --names-only '^linux-source-[0-9.]+$' | awk '{print $1}' | sort -V | tail -1)
[ -n "$PKG" ] || { echo "selftests: no linux-source-* package in Debian unstable" >&2; exit 1; }
VER=$(apt-cache "${APT[@]}" show "$PKG" | awk '/^Version:/{print $2; exit}')
STAMP="$PKG $VER"
if [ -f "$OUT/READY" ] && [ "$(cat "$OUT/READY")" = "$STAMP" ] && [ "${1:-}" != "--force" ]; then
  touch "$OUT/READY"
  echo "selftests: $STAMP already built"
  exit 0
fi
rm -f "$OUT/READY"
echo "selftests: downloading $STAMP"
(cd "$OUT/apt" && rm -f linux-source-*.deb && apt-get "${APT[@]}" download "$PKG")
DEB=$(ls "$OUT"/apt/linux-source-*.deb | head -1)
SRC="$OUT/src"
rm -rf "$SRC" "$OUT/tarball"
mkdir -p "$SRC" "$OUT/tarball"
dpkg-deb --fsys-tarfile "$DEB" | tar -x -C "$OUT/tarball" --wildcards './usr/src/linux-source-*.tar.*'
TAR=$(ls "$OUT"/tarball/usr/src/linux-source-*.tar.* | head -1)
TOP=$(basename "$TAR" | sed 's/\.tar\..*$//')
echo "selftests: extracting the selftests and headers from $(basename "$TAR")"
tar -xaf "$TAR" -C "$SRC" --strip-components=1 --wildcards \
  "$TOP/tools/testing/selftests/bpf/*" "$TOP/tools/include/*" "$TOP/tools/lib/bpf/*" \
  "$TOP/tools/arch/*" "$TOP/include/uapi/*" "$TOP/scripts/bpf_doc.py"
rm -rf "$OUT/tarball" "$DEB"
SELF="$SRC/tools/testing/selftests/bpf"

echo "selftests: test_verifier tables (gcc)"
BUILD="$OUT/build"
rm -rf "$BUILD" && mkdir -p "$BUILD"
(cd "$SELF/verifier" && { echo '#ifdef FILL_ARRAY'; ls *.c | sed 's@\(.*\)@#include "\1"@'; echo '#endif'; } > tests.h)
END=$(grep -n '^static struct bpf_test tests\[\] = {' "$SELF/test_verifier.c" | cut -d: -f1)
head -n $((END + 4)) "$SELF/test_verifier.c" > "$BUILD/tv_head.c"
gcc -O0 -w -o "$BUILD/dump_tables" "$ROOT/scripts/selftests/dump_tables.c" -I "$BUILD" -I "$SELF" \
  -I "$SRC/tools/include" -I "$SRC/tools/include/uapi" -I "$SRC/tools/lib" -I "$SRC/include/uapi"
"$BUILD/dump_tables" > "$OUT/tables.jsonl"

echo "selftests: progs/verifier_*.c (clang-19)"
INC="$BUILD/include"
mkdir -p "$INC/bpf"
cp "$SRC"/tools/lib/bpf/*.h "$INC/bpf/"
python3 "$SRC/scripts/bpf_doc.py" --header --file "$SRC/include/uapi/linux/bpf.h" > "$INC/bpf/bpf_helper_defs.h"
BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)
"$BPFTOOL" btf dump file /sys/kernel/btf/vmlinux format c > "$INC/vmlinux.h"
CLANG=${CLANG:-clang-19}
RES=$("$CLANG" -print-resource-dir)
rm -rf "$OUT/obj" && mkdir -p "$OUT/obj"
export CLANG SELF SRC INC RES OUT
ls "$SELF"/progs/verifier_*.c | xargs -P 2 -I{} sh -c '
  f={}; n=$(basename "$f" .c)
  "$CLANG" -g -Wall -D__TARGET_ARCH_x86 -mlittle-endian -I"$INC" -I"$SELF" -I"$SRC/tools/include/uapi" \
    -I"$SRC/tools/include" -I"$SELF/libarena/include" -std=gnu11 -fno-strict-aliasing -Wno-microsoft-anon-tag \
    -fms-extensions -Wno-compare-distinct-pointer-types -Wno-initializer-overrides -DENABLE_ATOMICS_TESTS \
    -Wno-error=implicit-function-declaration -Wno-error=int-conversion \
    -idirafter "$RES/include" -idirafter /usr/local/include -idirafter /usr/include/x86_64-linux-gnu -idirafter /usr/include \
    -O2 --target=bpf -mcpu=v3 -c "$f" -o "$OUT/obj/$n.o" 2> "$OUT/obj/$n.err" || rm -f "$OUT/obj/$n.o"'
echo "$STAMP" > "$OUT/READY"
echo "selftests: $STAMP: $(wc -l < "$OUT/tables.jsonl") table cases, $(ls "$OUT"/obj/*.o | wc -l) of $(ls "$SELF"/progs/verifier_*.c | wc -l) verifier_*.c objects in $OUT"
