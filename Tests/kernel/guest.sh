#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs inside the QEMU guest (started by Tests/kernel/run), as root, with the
# host's root filesystem shared read-only. Makes sure udevd runs, then runs the
# kernel pytest suite once; the tests load and reload vivid themselves
# (Tests/kernel/conftest.py). Results go to $CAMCORE_RESULTS (a --rwdir).
#   env: CAMCORE_REPO, CAMCORE_RESULTS, CAMCORE_PYTHON, CAMCORE_KERNEL_TESTS
#   args: passed on to pytest
set -uo pipefail
repo=${CAMCORE_REPO:?}
res=${CAMCORE_RESULTS:?}
py=${CAMCORE_PYTHON:-python3}
tests=${CAMCORE_KERNEL_TESTS:-Tests/kernel}
status=1
finish() {
  echo "$status" > "$res/status"
  sync
}
trap finish EXIT

cd "$repo" || exit 1
echo "guest: $(uname -r), $(nproc) cpus, $(awk '/MemTotal/ {print int($2/1024) " MiB"}' /proc/meminfo), up $(cut -d' ' -f1 /proc/uptime) s"

# udevd: virtme-ng normally starts it; libudev enumeration needs its /run/udev data.
if ! udevadm control --ping >/dev/null 2>&1; then
  echo "guest: starting systemd-udevd"
  for d in /lib/systemd/systemd-udevd /usr/lib/systemd/systemd-udevd; do
    [ -x "$d" ] && { "$d" --daemon; break; }
  done
  udevadm trigger --action=add >/dev/null 2>&1
fi
udevadm settle --timeout=30
udevadm control --ping >/dev/null 2>&1 || { echo "guest: ERROR: udevd is not running"; exit 1; }

export CAMCORE_KERNEL_GUEST=1
export PYTHONPATH="$repo/bindings/python${PYTHONPATH:+:$PYTHONPATH}"
export CAMCORE_LIBRARY="$repo/build/prefix/lib/libcamcore.so.0"
export LD_LIBRARY_PATH="$repo/build/prefix/lib"
export PYTHONDONTWRITEBYTECODE=1   # the shared root is read-only
export PYTHONUNBUFFERED=1
unset CAMCORE_SYNTHETIC_CAMERA

# A crash leaves a core in the results folder; its threads' backtraces are
# written beside it after the run (gdb from the shared root, when present).
ulimit -c unlimited
echo "$res/core.%e.%p" > /proc/sys/kernel/core_pattern 2>/dev/null || true

# No cache (read-only tree); no hypothesis/benchmark plugins (slow to import, unused here).
"$py" -m pytest -p no:cacheprovider -p no:hypothesispytest -p no:benchmark -rA -v --color=no --durations=6 \
    --junitxml="$res/junit.xml" "$tests" "$@" 2>&1 | tee "$res/pytest.log"
status=${PIPESTATUS[0]}

# A short summary for the host: the per-test outcome lines and pytest's last line.
if grep -q 'short test summary info' "$res/pytest.log"; then
  {
    sed -n '/short test summary info/,$p' "$res/pytest.log" | grep -E '^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)'
    tail -n 1 "$res/pytest.log"
  } > "$res/summary.txt"
else
  {
    echo "pytest did not finish (exit $status); its last lines:"
    tail -n 5 "$res/pytest.log"
    [ -s "$res/hang-traceback.txt" ] && head -n 40 "$res/hang-traceback.txt"
  } > "$res/summary.txt"
  [ "$status" = 0 ] && status=1
fi

for core in "$res"/core.*; do
  [ -e "$core" ] || continue
  exe=$(file -b "$core" 2>/dev/null | sed -n "s/.*execfn: '\([^']*\)'.*/\1/p")
  [ -n "$exe" ] || exe=$(command -v "$py")
  if command -v gdb >/dev/null 2>&1; then
    gdb -batch -nx -ex 'thread apply all bt 30' "$exe" "$core" > "$core.backtrace.txt" 2>&1
    echo "guest: a crash: $core (backtraces in ${core##*/}.backtrace.txt)"
    grep -m1 -A30 'Program terminated' "$core.backtrace.txt" >> "$res/summary.txt"
  fi
done

dmesg > "$res/dmesg.txt" 2>/dev/null
modprobe -r vivid 2>/dev/null
echo "guest: done, up $(cut -d' ' -f1 /proc/uptime) s"
exit "$status"
