#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Boots the machine's Debian kernel once under QEMU (virtme-ng, as
# Tests/kernel/run does) and runs bench/guest_bench.sh inside it: every
# guest-side measurement of the benchmark in one boot. The guest writes its
# results (guest.jsonl, console.log, status) into the folder given.
#
#   bash bench/run_guest.sh RESULTS_DIR
#
# Needs the programs built by bench/run (build/bench/*) and `.ci/setup
# --kernel` (qemu-system-x86, linux-image-amd64, virtme-ng, busybox-static,
# v4l-utils, v4l2loopback-dkms). Environment: BENCH_GUEST_TIMEOUT (s, 1500),
# CAMCORE_KERNEL_IMAGE, BENCH_GUEST_SCRIPT (the script to run in the guest,
# default guest_bench.sh; framepath_guest.sh runs only the frame path,
# rows_guest.sh one group of rows named by BENCH_ROWS), and
# the BENCH_* knobs those scripts read.
#
# The guest runs in QEMU's icount mode (-icount shift=0,sleep=off, one vCPU):
# its clock advances exactly 1 ns per guest instruction while the vCPU runs
# and jumps ahead while it idles. CPU time measured inside (getrusage) is
# then the number of instructions a process executed, user and kernel,
# deterministic and untouched by the host's load; and idle waits for frames
# cost no real time. BENCH_GUEST_ICOUNT=0 boots a plain TCG guest (2 vCPUs,
# host-time clock) instead.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
results=${1:?usage: run_guest.sh RESULTS_DIR}
say() { printf 'bench-guest: %s\n' "$*"; }
die() { printf 'bench-guest: ERROR: %s\n' "$*" >&2; exit 1; }

command -v vng >/dev/null 2>&1 || die "vng (virtme-ng) not found; run: .ci/setup --kernel"
command -v qemu-system-x86_64 >/dev/null 2>&1 || die "qemu-system-x86_64 not found; run: .ci/setup --kernel"

# The kernel: the newest /boot/vmlinuz-* that has vivid (as Tests/kernel/run picks it).
kernel="${CAMCORE_KERNEL_IMAGE:-}"
if [ -z "$kernel" ]; then
  for k in $(ls /boot/vmlinuz-* 2>/dev/null | sort -V -r); do
    v=${k#/boot/vmlinuz-}
    if [ -n "$(find "/lib/modules/$v" -name 'vivid.ko*' 2>/dev/null | head -1)" ]; then kernel=$k; break; fi
  done
fi
[ -n "$kernel" ] && [ -r "$kernel" ] || die "no readable /boot/vmlinuz-* with the vivid module"

# The guest runs the host's own Python (the root filesystem is shared).
python=$(python3 -c 'import sys; print(sys.executable)') || die "python3 not found"

mkdir -p "$results" || die "cannot create $results"
rm -f "$results/status" "$results/guest.jsonl"

guest_cmd="CAMCORE_REPO=$(printf '%q' "$repo") BENCH_RESULTS=$(printf '%q' "$results")"
guest_cmd+=" CAMCORE_PYTHON=$(printf '%q' "$python")"
for v in BENCH_RUNS BENCH_FRAMES BENCH_MJPEG_FRAMES BENCH_QUICK BENCH_LIB_DIR BENCH_CALLGRIND BENCH_SCALE BENCH_TTFF BENCH_ROWS; do
  [ -n "${!v:-}" ] && guest_cmd+=" $v=$(printf '%q' "${!v}")"
done
guest_cmd+=" bash $(printf '%q' "$here/${BENCH_GUEST_SCRIPT:-guest_bench.sh}")"

say "kernel $kernel, python $python; booting (pure emulation) ..."
limit="${BENCH_GUEST_TIMEOUT:-1500}"
if [ "${BENCH_GUEST_ICOUNT:-1}" = 1 ]; then
  machine=(--cpus 1 --qemu-opts "-icount shift=0,sleep=off")
else
  machine=(--cpus 2)
fi
guest_cmd="BENCH_GUEST_ICOUNT=${BENCH_GUEST_ICOUNT:-1} $guest_cmd"
# What the guest really runs with, for the report's environment line.
printf 'vng --disable-kvm --force-9p %s --memory 2G\n' "${machine[*]}" > "$results/machine.txt"
timeout --kill-after=20 "$limit" \
  vng --disable-kvm --force-9p "${machine[@]}" --memory 2G --user root \
      --rwdir "$results" \
      --run "$kernel" \
      --exec "$guest_cmd" \
  </dev/null >"$results/console.log" 2>&1
rc=$?
status=$(cat "$results/status" 2>/dev/null || echo none)
say "guest finished: vng rc $rc, guest status $status; log in $results/console.log"
[ "$status" = 0 ] || { tail -n 30 "$results/console.log" >&2; exit 1; }
exit 0
