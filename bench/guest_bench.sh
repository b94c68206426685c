#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs inside the QEMU guest (started by bench/run_guest.sh), as root, with
# the host's root filesystem shared read-only. Every guest-side measurement
# of the benchmark, one JSON line per run appended to $BENCH_RESULTS/guest.jsonl
# as {"bench": NAME, "run": I, "result": {...}}:
#
#   1 frame path   bare_capture vs camcore_capture, vivid 640x480 YUYV at the
#                  device's top rate, CPU per frame (interleaved runs)
#   3 first frame  v4l2-ctl --stream-mmap --stream-count=1 vs camcore_capture
#                  --first-frame vs bare_capture --first-frame (process wall
#                  time, and open -> first frame inside the process)
#   4 python       camcore.py (numpy view) vs cv2.VideoCapture (raw and BGR)
#   6 scale        1, 2 and 4 vivid instances at once, camcore and bare
#   2 MJPEG        v4l2loopback fed one fixed JPEG: camcore --output I420 vs
#                  bare capture + tjDecompressToYUVPlanes (vivid has no MJPEG)
#   8 end to end   camcore_capture --output I420 vs ffmpeg -f v4l2 and
#                  gst-launch-1.0 v4l2src ! videoconvert (vivid YUYV), and vs
#                  ffmpeg on 720p MJPEG (v4l2loopback); whole-process CPU
#                  (guest_lib.sh guest_bench_e2e, guest_bench_e2e_mjpeg)
#   7 PipeWire     camcore_capture on vivid 0 through the PipeWire backend vs
#                  the V4L2 backend; the daemons' CPU recorded apart
#                  (guest_lib.sh guest_bench_pipewire)
#   9 libcamera    vimc's camera through libcamera: the camcore tool vs
#                  gst-launch-1.0 libcamerasrc ! fakesink and cam, CPU per frame
#                  of each process in the steady stream, and of the whole
#                  process (guest_lib.sh guest_bench_libcamera)
#  10 GStreamer    camcoresrc vs v4l2src on vivid 640x480 YUYV, into fakesink
#                  (sync=false and true) and to I420 (camcore converting vs
#                  videoconvert on a YUYV-only vivid), CPU of the
#                  whole process per buffer after a warm-up (bench/c/gst_capture;
#                  guest_lib.sh guest_bench_gst)
#
# env: CAMCORE_REPO, BENCH_RESULTS, CAMCORE_PYTHON; BENCH_RUNS (frame-path
# runs, default 5), BENCH_FRAMES (default 300), BENCH_QUICK=1 (fewer runs).
# No `timeout` wrappers here: in icount mode the guest clock jumps while
# the vCPU idles (e.g. waiting for 9p reads), so a guest-side timeout could
# fire early; run_guest.sh bounds the whole boot in host time instead.
set -uo pipefail
repo=${CAMCORE_REPO:?}
res=${BENCH_RESULTS:?}
py=${CAMCORE_PYTHON:-python3}
bin=$repo/build/bench
out=$res/guest.jsonl
errlog=$res/stderr.log
status=1
writer_pid=""
finish() {
  [ -n "$writer_pid" ] && kill "$writer_pid" 2>/dev/null
  echo "$status" > "$res/status"
  sync
}
trap finish EXIT

# In icount mode (the default) CPU counts repeat to within a fraction of a
# percent, so few runs are needed; a plain TCG guest needs more.
if [ "${BENCH_GUEST_ICOUNT:-1}" = 1 ]; then def_runs=3; small_runs=2; ttff_runs=5
else def_runs=7; small_runs=3; ttff_runs=7; fi
runs=${BENCH_RUNS:-$def_runs}
frames=${BENCH_FRAMES:-300}
if [ "${BENCH_QUICK:-0}" = 1 ]; then runs=2; small_runs=1; ttff_runs=3; frames=120; fi
py_frames=$(( frames * 2 / 3 ))
scale_frames=$(( frames / 2 ))
mjpeg_frames=20
e2e_mjpeg_frames=40; [ "${BENCH_QUICK:-0}" = 1 ] && e2e_mjpeg_frames=20

t_start=$(cut -d' ' -f1 /proc/uptime)
say() { printf 'guest: [%6.1f s] %s\n' "$(awk -v a="$(cut -d' ' -f1 /proc/uptime)" -v b="$t_start" 'BEGIN{print a-b}')" "$*"; }

cd "$repo" || exit 1
say "$(uname -r), $(nproc) cpus, $(awk '/MemTotal/ {print int($2/1024) " MiB"}' /proc/meminfo), icount ${BENCH_GUEST_ICOUNT:-1}"
say "root: $(awk '$2 == "/" {print $3, $4}' /proc/mounts | head -1)"

. "$repo/bench/guest_lib.sh"
guest_start_udevd

export PYTHONPATH="$repo/bindings/python${PYTHONPATH:+:$PYTHONPATH}"
export CAMCORE_LIBRARY="$repo/build/prefix/lib/libcamcore.so.0"
export LD_LIBRARY_PATH="$repo/build/prefix/lib"
export PYTHONDONTWRITEBYTECODE=1
unset CAMCORE_SYNTHETIC_CAMERA

# wall NAME RUN CMD...: wall and CPU time of the whole process CMD (proc_time).
wall() {
  local name=$1 run=$2
  shift 2
  rec "$name" "$run" "$fast/proc_time" "$@"
}

# --- vivid: four webcam-like capture devices ----------------------------------
guest_load_vivid4
say "vivid nodes: ${vivid[*]}"
v4l2-ctl -d "$v0" --list-frameintervals=width=640,height=480,pixelformat=YUYV 2>&1 | tr -s ' \t\n' ' ' | sed 's/^/guest: intervals 640x480: /'; echo
# vivid shows its OSD text by default; keep the default pattern, same for everyone.

common=(--fourcc YUYV --size 640x480 --fps 120)

# --- 1. frame path ------------------------------------------------------------
say "1. frame path: $runs runs x $frames frames, bare vs camcore"
for r in $(seq 1 "$runs"); do
  rec framepath-bare "$r" "$bin/bare_capture" --device "$v0" "${common[@]}" --frames "$frames" --warmup 10
  rec framepath-camcore "$r" "$bin/camcore_capture" --device "$v0" "${common[@]}" --frames "$frames" --warmup 10
done
# The breakdown: the bare loop plus what camcore's wait adds below its Swift
# code: the waker's eventfd polled beside the device (the old wait), and
# both in an epoll set registered once (camcore's wait now).
for r in $(seq 1 "$small_runs"); do
  rec framepath-bare-eventfd "$r" "$bin/bare_capture" --device "$v0" "${common[@]}" --frames "$frames" --warmup 10 --eventfd
  rec framepath-bare-epoll-eventfd "$r" "$bin/bare_capture" --device "$v0" "${common[@]}" --frames "$frames" --warmup 10 --epoll --eventfd
done

# --- 7. PipeWire backend vs V4L2 backend (issue 13) ---------------------------------
guest_bench_pipewire "$runs" "$frames" "$py"

# --- 3. time to first frame -----------------------------------------------------
# The programs and libcamcore run from a tmpfs copy here, so that reading
# them over the guest's 9p root (slow, and in icount mode a jump of the
# guest clock) is not what gets timed; shared system libraries stay where
# they are for all three.
say "3. first frame: $ttff_runs runs (+1 warm-up)"
fast=/dev/shm/bench
mkdir -p "$fast"
cp "$bin/camcore_capture_norpath" "$bin/bare_capture" "$bin/proc_time" "$(command -v v4l2-ctl)" "$fast/"
cp "$(readlink -f "$repo/build/prefix/lib/libcamcore.so.0")" "$fast/libcamcore.so.0"
for r in $(seq 0 "$ttff_runs"); do
  LD_LIBRARY_PATH= wall ttff-v4l2ctl "$r" "$fast/v4l2-ctl" -d "$v0" \
       --set-fmt-video=width=640,height=480,pixelformat=YUYV --set-parm=120 --stream-mmap --stream-count=1 --stream-to=/dev/null
  LD_LIBRARY_PATH="$fast" wall ttff-camcore-process "$r" "$fast/camcore_capture_norpath" --device "$v0" "${common[@]}" --first-frame
  LD_LIBRARY_PATH= wall ttff-bare-process "$r" "$fast/bare_capture" --device "$v0" "${common[@]}" --first-frame
  LD_LIBRARY_PATH="$fast" rec ttff-camcore "$r" "$fast/camcore_capture_norpath" --device "$v0" "${common[@]}" --first-frame
  LD_LIBRARY_PATH= rec ttff-bare "$r" "$fast/bare_capture" --device "$v0" "${common[@]}" --first-frame
done

# --- 4. python ------------------------------------------------------------------
guest_bench_python "$small_runs" "$py_frames" "$py"

# --- 8. end to end: camcore vs ffmpeg and GStreamer, YUYV -> I420 ----------------
guest_bench_e2e "$small_runs" "$frames"

# --- 6. scale -------------------------------------------------------------------
say "6. scale: 1, 2, 4 devices, $small_runs runs x $scale_frames frames per device"
for r in $(seq 1 "$small_runs"); do
  for n in 1 2 4; do
    devs=()
    for d in "${vivid[@]:0:$n}"; do devs+=(--device "$d"); done
    rec "scale-camcore-$n" "$r" "$bin/camcore_capture" "${devs[@]}" "${common[@]}" --frames "$scale_frames" --warmup 10
    rec "scale-bare-$n" "$r" "$bin/bare_capture" "${devs[@]}" "${common[@]}" --frames "$scale_frames" --warmup 10
  done
done

# --- 2. MJPEG -> I420 through v4l2loopback ----------------------------------------
modprobe -r vivid 2>/dev/null
say "2. MJPEG->I420: $small_runs runs x $mjpeg_frames frames per size"
for size in 640x480 1280x720 1920x1080; do
  modprobe v4l2loopback devices=1 video_nr=10 exclusive_caps=0 max_buffers=4 card_label=camcore-bench \
    || { say "modprobe v4l2loopback failed"; break; }
  udevadm settle --timeout=30
  "$bin/loop_writer" --device /dev/video10 --size "$size" --fps 30 --seconds 300 2>"$res/writer-$size.log" &
  writer_pid=$!
  # Ready once it has set its format (it says so on stderr); the guest clock
  # runs ahead while the writer loads over 9p, so a fixed sleep is not enough.
  for _ in $(seq 1 300); do grep -q jpeg_bytes "$res/writer-$size.log" 2>/dev/null && break; sleep 0.1; done
  sleep 1
  for r in $(seq 1 "$small_runs"); do
    rec "mjpeg-bare-$size" "$r" "$bin/bare_capture" --device /dev/video10 --fourcc MJPG --size "$size" --fps 0 \
        --frames "$mjpeg_frames" --warmup 3 --convert I420
    rec "mjpeg-camcore-$size" "$r" "$bin/camcore_capture" --device /dev/video10 --fourcc MJPG --size "$size" --fps 0 \
        --frames "$mjpeg_frames" --warmup 3 --output I420 --timeout 60
  done
  kill "$writer_pid" 2>/dev/null; wait "$writer_pid" 2>/dev/null; writer_pid=""
  modprobe -r v4l2loopback 2>/dev/null
  udevadm settle --timeout=30
done

# --- 2b. MJPEG 4:2:2 -> I420 (what UVC webcams send; issue 14 bench review) -----------------
say "2b. MJPEG 4:2:2->I420: $small_runs runs x $mjpeg_frames frames per size"
for size in 640x480 1280x720 1920x1080; do
  modprobe v4l2loopback devices=1 video_nr=10 exclusive_caps=0 max_buffers=4 card_label=camcore-bench \
    || { say "modprobe v4l2loopback failed"; break; }
  udevadm settle --timeout=30
  "$bin/loop_writer" --device /dev/video10 --size "$size" --fps 30 --seconds 300 --subsamp 422 \
    2>"$res/writer422-$size.log" &
  writer_pid=$!
  for _ in $(seq 1 300); do grep -q jpeg_bytes "$res/writer422-$size.log" 2>/dev/null && break; sleep 0.1; done
  sleep 1
  for r in $(seq 1 "$small_runs"); do
    rec "mjpeg422-bare-$size" "$r" "$bin/bare_capture" --device /dev/video10 --fourcc MJPG --size "$size" --fps 0 \
        --frames "$mjpeg_frames" --warmup 3 --convert I420
    rec "mjpeg422-camcore-$size" "$r" "$bin/camcore_capture" --device /dev/video10 --fourcc MJPG --size "$size" \
        --fps 0 --frames "$mjpeg_frames" --warmup 3 --output I420 --timeout 60
  done
  kill "$writer_pid" 2>/dev/null; wait "$writer_pid" 2>/dev/null; writer_pid=""
  modprobe -r v4l2loopback 2>/dev/null
  udevadm settle --timeout=30
done

# --- 8. end to end: camcore vs ffmpeg, 720p MJPEG -> I420 (v4l2loopback) ----------
guest_bench_e2e_mjpeg "$small_runs" "$e2e_mjpeg_frames"

# --- 10. GStreamer: camcoresrc vs v4l2src on vivid (issue 33) -----------------------
guest_bench_gst "$runs" "$frames"

# --- 9. libcamera: camcore vs libcamerasrc and cam on vimc (issue 30) ---------------
guest_bench_libcamera "$runs" "$frames"

dmesg > "$res/dmesg.txt" 2>/dev/null
say "done: $(grep -c '"result"' "$out") results, $(grep -c '"error"' "$out") failures"
status=0
