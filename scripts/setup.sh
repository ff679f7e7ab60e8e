#!/usr/bin/env bash
# Install what XDP Lab needs on a fresh Debian machine: Debian's chromium
# (for Playwright), clang-19, libbpf-dev and libxdp-dev (the reference compiler
# and headers for the differential tests), bpftool, then the npm packages from package-lock.json.
# System packages are only installed when missing; that step needs root.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v clang-19 >/dev/null 2>&1 || need+=(clang-19 llvm-19)
[ -f /usr/include/bpf/bpf_helpers.h ] || need+=(libbpf-dev)
[ -f /usr/include/linux/bpf.h ] || need+=(linux-libc-dev)
# clang -target bpf reads glibc's headers through -I/usr/include/x86_64-linux-gnu (string.h, sys/socket.h
# via linux/if.h); without __x86_64__ they ask for gnu/stubs-32.h, which only the i386 multilib package has.
[ -f /usr/include/x86_64-linux-gnu/gnu/stubs-32.h ] || need+=(libc6-dev-i386)
# xdp-tools' BPF-side headers (<xdp/xdp_helpers.h>, <xdp/parsing_helpers.h>, …): libxdp-dev installs the
# same headers/xdp/ folder as /usr/include/xdp, where clang and XDP Lab's CLI find them (bpf-examples'
# xdp-synproxy includes <xdp/xdp_helpers.h>).
[ -f /usr/include/xdp/xdp_helpers.h ] || need+=(libxdp-dev)
command -v bpftool >/dev/null 2>&1 || [ -x /usr/sbin/bpftool ] || need+=(bpftool)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${need[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi

# vmlinux.h: every kernel type, dumped from the running kernel's BTF; XDP Lab's compiler reads it only
# when a program includes it (the CLI from generated/, the app from its bundle).
if [ -r /sys/kernel/btf/vmlinux ]; then
  BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)
  if [ -x "$BPFTOOL" ]; then
    mkdir -p generated
    if "$BPFTOOL" btf dump file /sys/kernel/btf/vmlinux format c > generated/vmlinux.h.tmp; then
      mv generated/vmlinux.h.tmp generated/vmlinux.h
      echo "setup: generated/vmlinux.h from /sys/kernel/btf/vmlinux"
    else
      rm -f generated/vmlinux.h.tmp
      echo "setup: bpftool could not dump /sys/kernel/btf/vmlinux: skipping vmlinux.h (programs that include it will not compile)"
    fi
  else
    echo "setup: bpftool not found: skipping vmlinux.h (programs that include it will not compile)"
  fi
else
  echo "setup: /sys/kernel/btf/vmlinux not readable (kernel without BTF?): skipping vmlinux.h (programs that include it will not compile)"
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund
fi
