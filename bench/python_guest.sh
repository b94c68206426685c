#!/usr/bin/env bash
# Runs inside the QEMU guest: only the Python rows of the benchmark (row 4:
# camcore.py through callbacks and through the pull iterator, the same C
# program, cv2 raw and BGR). Started by `bash bench/run_guest.sh DIR` with
# BENCH_GUEST_SCRIPT=python_guest.sh (`make bench-python`).
#
# env: CAMCORE_REPO, BENCH_RESULTS, CAMCORE_PYTHON; BENCH_RUNS (2), BENCH_FRAMES (200).
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
runs=${BENCH_RUNS:-2}
frames=${BENCH_FRAMES:-200}
cd "$repo" || exit 1
say "python: $runs runs x $frames frames on $v0"
for r in $(seq 1 "$runs"); do
  for mode in camcore camcore-iter cv2 cv2-bgr; do
    rec "python-$mode" "$r" "$py" bench/py/py_capture.py "$mode" --device "$v0" --fps 120 --frames "$frames"
  done
  rec python-c-camcore "$r" "$bin/camcore_capture" --device "$v0" --fourcc YUYV --size 640x480 --fps 120 \
      --frames "$frames" --warmup 10
done
status=0
