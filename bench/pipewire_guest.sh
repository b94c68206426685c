#!/usr/bin/env bash
# Runs inside the QEMU guest: only the PipeWire rows of the benchmark
# (issue 13). Started by `bash bench/run_guest.sh DIR` with
# BENCH_GUEST_SCRIPT=pipewire_guest.sh (`make bench-pipewire` does both and
# prints the rows). Appends JSON lines to $BENCH_RESULTS/guest.jsonl.
#
# env: CAMCORE_REPO, BENCH_RESULTS, CAMCORE_PYTHON; BENCH_RUNS (3), BENCH_FRAMES (300).
set -uo pipefail
repo=${CAMCORE_REPO:?}
res=${BENCH_RESULTS:?}
py=${CAMCORE_PYTHON:-python3}
bin=$repo/build/bench
out=$res/guest.jsonl
errlog=$res/stderr.log
status=1
trap 'echo "$status" > "$res/status"; sync' EXIT
say() { printf 'guest: %s\n' "$*"; }
unset CAMCORE_SYNTHETIC_CAMERA
export PYTHONPATH="$repo/examples/python${PYTHONPATH:+:$PYTHONPATH}"
export LD_LIBRARY_PATH="$repo/build/prefix/lib"
export PYTHONDONTWRITEBYTECODE=1

. "$repo/bench/guest_lib.sh"
guest_start_udevd
guest_load_vivid4
guest_bench_pipewire "${BENCH_RUNS:-3}" "${BENCH_FRAMES:-300}" "$py"
status=0
