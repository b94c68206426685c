#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs inside the QEMU guest: one group of the benchmark's rows alone, as
# BENCH_ROWS says: "pipewire" (row 7, guest_bench_pipewire), "python"
# (row 4, guest_bench_python), "e2e" (row 8, guest_bench_e2e and
# guest_bench_e2e_mjpeg), "libcamera" (row 9, guest_bench_libcamera, on
# vimc; vivid is loaded only for the others) or "gst" (row 10,
# guest_bench_gst: camcoresrc vs v4l2src). Started by `bash
# bench/run_guest.sh DIR` with BENCH_GUEST_SCRIPT=rows_guest.sh (`make
# bench-pipewire`, `make bench-e2e`, `make bench-python`, `make
# bench-libcamera`, `make bench-gst`). Appends JSON lines to
# $BENCH_RESULTS/guest.jsonl.
#
# env: CAMCORE_REPO, BENCH_RESULTS, CAMCORE_PYTHON, BENCH_ROWS; BENCH_RUNS
# (pipewire 3, python 2, e2e 2, libcamera 3, gst 3), BENCH_FRAMES (pipewire
# 300, python 200, e2e 300, libcamera 300, gst 300), BENCH_MJPEG_FRAMES
# (e2e MJPEG, 60).
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
export PYTHONPATH="$repo/bindings/python${PYTHONPATH:+:$PYTHONPATH}"
export LD_LIBRARY_PATH="$repo/build/prefix/lib"
export PYTHONDONTWRITEBYTECODE=1

. "$repo/bench/guest_lib.sh"
guest_start_udevd
case " ${BENCH_ROWS:-} " in *" pipewire "*|*" python "*|*" e2e "*|*" gst "*) guest_load_vivid4 ;; esac
for rows in ${BENCH_ROWS:-none}; do
  case "$rows" in
    pipewire) guest_bench_pipewire "${BENCH_RUNS:-3}" "${BENCH_FRAMES:-300}" "$py" ;;
    python) guest_bench_python "${BENCH_RUNS:-2}" "${BENCH_FRAMES:-200}" "$py" ;;
    e2e) guest_bench_e2e "${BENCH_RUNS:-2}" "${BENCH_FRAMES:-300}"
         guest_bench_e2e_mjpeg "${BENCH_RUNS:-2}" "${BENCH_MJPEG_FRAMES:-60}" ;;
    libcamera) guest_bench_libcamera "${BENCH_RUNS:-3}" "${BENCH_FRAMES:-300}" ;;
    gst) guest_bench_gst "${BENCH_RUNS:-3}" "${BENCH_FRAMES:-300}" ;;
    *) say "BENCH_ROWS='${BENCH_ROWS:-}': pipewire, python, e2e, libcamera or gst (or several, space-separated)"; exit 1 ;;
  esac
done
status=0
