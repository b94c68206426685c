#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs inside the QEMU guest: only the frame-path rows of the benchmark
# (issue 7, measurement 1), for working on camcore's frame path without the
# whole suite. Started by `bash bench/run_guest.sh DIR` with
# BENCH_GUEST_SCRIPT=framepath_guest.sh (`make bench-framepath` does both).
# Appends JSON lines to $BENCH_RESULTS/guest.jsonl like guest_bench.sh and,
# with BENCH_CALLGRIND=1, writes callgrind profiles of both loops
# ($BENCH_RESULTS/cg-*.out*) to show where user-space instructions go.
#
# env: CAMCORE_REPO, BENCH_RESULTS; BENCH_RUNS (3), BENCH_FRAMES (300),
# BENCH_LIB_DIR (a folder holding libcamcore.so.0 to measure instead of
# the staged one), BENCH_CALLGRIND (0), BENCH_SCALE (0: 1 is also the
# scale rows, 1, 2 and 4 vivid devices at once), BENCH_TTFF (0: 1 is also
# open -> first frame in process).
set -uo pipefail
repo=${CAMCORE_REPO:?}
res=${BENCH_RESULTS:?}
bin=$repo/build/bench
out=$res/guest.jsonl
errlog=$res/stderr.log
status=1
trap 'echo "$status" > "$res/status"; sync' EXIT
runs=${BENCH_RUNS:-3}
frames=${BENCH_FRAMES:-300}
say() { printf 'guest: %s\n' "$*"; }
[ -n "${BENCH_LIB_DIR:-}" ] && export LD_LIBRARY_PATH=$BENCH_LIB_DIR
unset CAMCORE_SYNTHETIC_CAMERA

. "$repo/bench/guest_lib.sh"
guest_start_udevd
guest_load_vivid4
common=(--device "$v0" --fourcc YUYV --size 640x480 --fps 120 --frames "$frames" --warmup 10)

say "frame path: $runs runs x $frames frames on $v0 (library: ${BENCH_LIB_DIR:-staged})"
for r in $(seq 1 "$runs"); do
  rec framepath-bare "$r" "$bin/bare_capture" "${common[@]}"
  rec framepath-camcore "$r" "$bin/camcore_capture" "${common[@]}"
  rec framepath-bare-eventfd "$r" "$bin/bare_capture" "${common[@]}" --eventfd
  rec framepath-bare-epoll-eventfd "$r" "$bin/bare_capture" "${common[@]}" --epoll --eventfd
done
if [ "${BENCH_TTFF:-0}" = 1 ]; then
  say "first frame: $runs runs, in process (open -> first frame)"
  for r in $(seq 1 "$runs"); do
    rec ttff-camcore "$r" "$bin/camcore_capture" --device "$v0" --fourcc YUYV --size 640x480 --fps 120 --first-frame
    rec ttff-bare "$r" "$bin/bare_capture" --device "$v0" --fourcc YUYV --size 640x480 --fps 120 --first-frame
  done
fi
if [ "${BENCH_SCALE:-0}" = 1 ]; then
  say "scale: 1, 2, 4 devices, $runs runs x $(( frames / 2 )) frames per device"
  for r in $(seq 1 "$runs"); do
    for n in 1 2 4; do
      devs=()
      for d in "${vivid[@]:0:$n}"; do devs+=(--device "$d"); done
      sc=("${devs[@]}" --fourcc YUYV --size 640x480 --fps 120 --frames $(( frames / 2 )) --warmup 10)
      rec "scale-camcore-$n" "$r" "$bin/camcore_capture" "${sc[@]}"
      rec "scale-bare-$n" "$r" "$bin/bare_capture" "${sc[@]}"
    done
  done
fi
if [ "${BENCH_CALLGRIND:-0}" = 1 ]; then
  say "callgrind: 60 measured frames each"
  cg=(--device "$v0" --fourcc YUYV --size 640x480 --fps 120 --frames 60 --warmup 10)
  valgrind --tool=callgrind --callgrind-out-file="$res/cg-camcore.out" "$bin/camcore_capture" --callgrind "${cg[@]}" \
    >"$res/cg-camcore.json" 2>>"$errlog"
  valgrind --tool=callgrind --callgrind-out-file="$res/cg-bare.out" "$bin/bare_capture" "${cg[@]}" \
    >"$res/cg-bare.json" 2>>"$errlog"
  # And the whole first-frame program (open -> first frame), for the
  # "first frame" CPU rows.
  valgrind --tool=callgrind --callgrind-out-file="$res/cg-ttff.out" "$bin/camcore_capture" --device "$v0" \
    --fourcc YUYV --size 640x480 --fps 120 --first-frame >"$res/cg-ttff.json" 2>>"$errlog"
fi
say "done: $(grep -c '"result"' "$out" 2>/dev/null) results"
status=0
