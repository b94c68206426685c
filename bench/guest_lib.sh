# SPDX-License-Identifier: MIT
# Sourced by the guest-side benchmark scripts (guest_bench.sh,
# framepath_guest.sh): what both need inside the QEMU guest. Expects `say`,
# `$out` (the JSON-lines file) and `$errlog` to be set by the script.

# Starts udevd when the guest has none running, and waits for its events.
guest_start_udevd() {
  if ! udevadm control --ping >/dev/null 2>&1; then
    for d in /lib/systemd/systemd-udevd /usr/lib/systemd/systemd-udevd; do
      [ -x "$d" ] && { "$d" --daemon; break; }
    done
    udevadm trigger --action=add >/dev/null 2>&1
  fi
  udevadm settle --timeout=30
}

# Loads vivid with four webcam-like capture devices; sets the array `vivid`
# (their nodes, instance order) and `v0`, or exits.
guest_load_vivid4() {
  modprobe vivid n_devs=4 node_types=0x1,0x1,0x1,0x1 input_types=0x0,0x0,0x0,0x0 || { say "modprobe vivid failed"; exit 1; }
  udevadm settle --timeout=30
  vivid=()
  local i n
  for i in 0 1 2 3; do
    for n in /sys/class/video4linux/video*; do
      [ "$(cat "$n/name" 2>/dev/null)" = "vivid-00$i-vid-cap" ] && vivid+=("/dev/$(basename "$n")")
    done
  done
  [ "${#vivid[@]}" = 4 ] || { say "expected 4 vivid capture nodes, got: ${vivid[*]}"; exit 1; }
  v0=${vivid[0]}
}

# rec NAME RUN CMD...: runs CMD, keeps its last stdout line (a JSON object)
# as {"bench": NAME, "run": RUN, "result": ...}; a failed run is recorded
# as {"bench": NAME, "run": RUN, "error": true}.
rec() {
  local name=$1 run=$2 line
  shift 2
  line=$("$@" 2>>"$errlog" | tail -n 1)
  if [[ $line == \{* ]]; then
    printf '{"bench": "%s", "run": %s, "result": %s}\n' "$name" "$run" "$line" >> "$out"
  else
    say "FAILED: $name run $run: $*"
    printf '{"bench": "%s", "run": %s, "error": true}\n' "$name" "$run" >> "$out"
  fi
}

# CPU time (ns) spent so far by every thread of the processes given.
cpu_ns_of() {
  local pid t sum=0
  for pid in "$@"; do
    for t in /proc/"$pid"/task/*/schedstat; do
      read -r ns _ < "$t" 2>/dev/null && sum=$(( sum + ns ))
    done
  done
  echo "$sum"
}

# guest_bench_pipewire RUNS FRAMES PYTHON: the PipeWire rows (issue 13). A
# private session bus, pipewire and wireplumber, then interleaved runs of
# camcore_capture on vivid 0 through the V4L2 backend and through the
# PipeWire backend (its node over the same device, same format and rate).
# Each PipeWire run also records the CPU the daemons (pipewire +
# wireplumber) spent during it ("daemon_cpu_ns"), kept apart from the app's.
guest_bench_pipewire() {
  local runs=$1 frames=$2 py=$3 r run pw wp dbus id i before line
  for p in pipewire wireplumber dbus-daemon; do
    command -v "$p" >/dev/null 2>&1 || { say "PipeWire rows skipped: $p not installed (.ci/setup --kernel)"; return 0; }
  done
  run=$(mktemp -d /tmp/camcore-pwbench-XXXXXX) && chmod 700 "$run"
  (
    export XDG_RUNTIME_DIR=$run DBUS_SESSION_BUS_ADDRESS=unix:path=$run/bus
    dbus-daemon --session --address="$DBUS_SESSION_BUS_ADDRESS" --nofork --nopidfile >"$run/daemons.log" 2>&1 &
    dbus=$!
    for i in $(seq 1 300); do [ -S "$run/bus" ] && break; sleep 0.1; done
    pipewire >>"$run/daemons.log" 2>&1 &
    pw=$!
    for i in $(seq 1 300); do [ -S "$run/pipewire-0" ] && break; sleep 0.1; done
    wireplumber >>"$run/daemons.log" 2>&1 &
    wp=$!
    # The PipeWire node over vivid 0, once WirePlumber made it.
    id=""
    for i in $(seq 1 120); do
      id=$("$py" - "$v0" 2>>"$errlog" <<'PY'
import sys, camcore
with camcore.Manager(backend="v4l2") as m:
    want = next((d.id for d in m.devices() if d.node == sys.argv[1]), None)
with camcore.Manager(backend="pipewire") as m:
    print(next((d.id for d in m.devices() if d.v4l2_id == want), ""))
PY
)
      [ -n "$id" ] && break
      sleep 0.5
    done
    if [ -z "$id" ]; then
      say "PipeWire rows: no node over $v0 appeared"; tail -5 "$run/daemons.log" >&2
    else
      say "7. PipeWire: $runs runs x $frames frames, $v0 through V4L2 and as $id"
      local args=(--fourcc YUYV --size 640x480 --fps 120 --frames "$frames" --warmup 10)
      for r in $(seq 1 "$runs"); do
        CAMCORE_BACKEND=v4l2 rec pipewire-v4l2-backend "$r" "$bin/camcore_capture" --device "$v0" "${args[@]}"
        before=$(cpu_ns_of "$pw" "$wp")
        line=$(CAMCORE_BACKEND=pipewire "$bin/camcore_capture" --device "$id" "${args[@]}" 2>>"$errlog" | tail -n 1)
        if [[ $line == \{* ]]; then
          printf '{"bench": "pipewire-backend", "run": %s, "result": %s, "daemon_cpu_ns": %s}}\n' \
            "$r" "${line%\}}" "$(( $(cpu_ns_of "$pw" "$wp") - before ))" >> "$out"
        else
          say "FAILED: pipewire-backend run $r"
          printf '{"bench": "pipewire-backend", "run": %s, "error": true}\n' "$r" >> "$out"
        fi
      done
    fi
    kill "$wp" "$pw" 2>/dev/null; wait "$wp" "$pw" 2>/dev/null
    kill "$dbus" 2>/dev/null; wait "$dbus" 2>/dev/null
  )
  rm -rf "$run"
}

# guest_bench_python RUNS FRAMES PYTHON: the Python rows (row 4) on vivid 0,
# 640x480 YUYV at its top rate: camcore.py through callbacks and through the
# pull iterator, native and with RGB24 output (camcore converts, as cv2's
# default BGR does), cv2 raw and BGR, and the same frames through the C program.
guest_bench_python() {
  local runs=$1 frames=$2 py=$3 r mode
  say "4. python: $runs runs x $frames frames: camcore.py (callbacks, iterator; native, RGB24), cv2 raw, cv2 BGR"
  for r in $(seq 1 "$runs"); do
    for mode in camcore camcore-iter camcore-rgb24 camcore-iter-rgb24 camcore-rawpull cv2 cv2-bgr; do
      rec "python-$mode" "$r" "$py" "$repo/bench/py/py_capture.py" "$mode" --device "$v0" --fps 120 --frames "$frames"
    done
    rec python-c-camcore "$r" "$bin/camcore_capture" --device "$v0" --fourcc YUYV --size 640x480 --fps 120 \
        --frames "$frames" --warmup 10
    rec python-c-camcore-pull "$r" "$bin/camcore_capture" --device "$v0" --fourcc YUYV --size 640x480 --fps 120 \
        --frames "$frames" --warmup 10 --pull
  done
}

# e2e_rec NAME RUN FRAMES CMD...: the whole process CMD under proc_time (wall,
# and user+sys CPU of the process from wait4), recorded with the frames it
# was asked for; a run that exits non-zero is recorded as failed.
e2e_rec() {
  local name=$1 run=$2 n=$3 line
  shift 3
  line=$("$bin/proc_time" "$@" 2>>"$errlog" | tail -n 1)
  if [[ $line == \{* ]] && [[ $line == *'"rc": 0'* ]]; then
    printf '{"bench": "%s", "run": %s, "result": %s, "frames": %s}}\n' "$name" "$run" "${line%\}}" "$n" >> "$out"
  else
    say "FAILED: $name run $run: $* ($line)"
    printf '{"bench": "%s", "run": %s, "error": true}\n' "$name" "$run" >> "$out"
  fi
}

# e2e_warm CMD...: runs CMD once, unrecorded: the first run of a program in a
# boot reads it and its libraries over 9p (kernel CPU charged to it), which
# later runs find in the page cache.
e2e_warm() { "$bin/proc_time" "$@" >/dev/null 2>>"$errlog"; }

# What the end-to-end rows can run: sets have_ffmpeg / have_gst (1 or 0) and says why not.
e2e_tools() {
  have_ffmpeg=1 have_gst=1
  command -v ffmpeg >/dev/null 2>&1 || { have_ffmpeg=0; say "8. end to end: ffmpeg not installed: its rows skipped"; }
  # A registry the guest can write (the root filesystem is the host's), built once here.
  export GST_REGISTRY=/tmp/camcore-bench-gst-registry.bin
  if ! command -v gst-launch-1.0 >/dev/null 2>&1; then
    have_gst=0; say "8. end to end: gst-launch-1.0 not installed: GStreamer rows skipped"
  else
    local e
    for e in v4l2src videoconvert jpegdec fakesink; do
      gst-inspect-1.0 "$e" >/dev/null 2>&1 || { have_gst=0; say "8. end to end: GStreamer element $e not installed: GStreamer rows skipped"; }
    done
  fi
}

# guest_bench_e2e RUNS FRAMES: row 8 on vivid 0, 640x480 YUYV at 25 fps (its
# top rate there, set by each tool: the driver keeps the last rate set, and
# CPU per frame depends on the rate), FRAMES frames to I420 by each tool as users run it: camcore_capture
# --output I420, ffmpeg -f v4l2 ... -pix_fmt yuv420p -f null -, gst-launch-1.0
# v4l2src ! videoconvert ! I420 ! fakesink. CPU of the whole process each
# time (start-up included, nothing subtracted), interleaved runs, after one
# unrecorded warm-up run of each (e2e_warm); a run of one frame each records
# the start-up alone (run 0). camcore_capture takes
# one warm-up frame and FRAMES-1 more: FRAMES frames in all, as the others.
guest_bench_e2e() {
  local runs=$1 frames=$2 r n
  e2e_tools
  say "8. end to end: $runs runs x $frames frames, vivid $v0 640x480 YUYV -> I420: camcore, ffmpeg, GStreamer"
  e2e_warm "$bin/camcore_capture" --device "$v0" --fourcc YUYV --size 640x480 --fps 25 --frames 1 --warmup 1 --output I420
  [ "$have_ffmpeg" = 1 ] && e2e_warm ffmpeg -nostdin -hide_banner -loglevel error -f v4l2 -input_format yuyv422 \
      -video_size 640x480 -framerate 25 -i "$v0" -frames:v 1 -pix_fmt yuv420p -f null -
  [ "$have_gst" = 1 ] && e2e_warm gst-launch-1.0 -q v4l2src device="$v0" num-buffers=1 \
      ! video/x-raw,format=YUY2,width=640,height=480,framerate=25/1 ! videoconvert ! video/x-raw,format=I420 ! fakesink
  for r in $(seq 0 "$runs"); do
    n=$frames; [ "$r" = 0 ] && n=1
    e2e_rec e2e-camcore-yuyv "$r" "$n" "$bin/camcore_capture" --device "$v0" --fourcc YUYV --size 640x480 --fps 25 \
        --frames "$(( n > 1 ? n - 1 : 1 ))" --warmup 1 --output I420 --timeout 120
    [ "$have_ffmpeg" = 1 ] && e2e_rec e2e-ffmpeg-yuyv "$r" "$n" ffmpeg -nostdin -hide_banner -loglevel error \
        -f v4l2 -input_format yuyv422 -video_size 640x480 -framerate 25 -i "$v0" -frames:v "$n" -pix_fmt yuv420p -f null -
    [ "$have_gst" = 1 ] && e2e_rec e2e-gst-yuyv "$r" "$n" gst-launch-1.0 -q v4l2src device="$v0" num-buffers="$n" \
        ! video/x-raw,format=YUY2,width=640,height=480,framerate=25/1 ! videoconvert ! video/x-raw,format=I420 ! fakesink
  done
}

# gst_cmd SOURCE KIND: sets gst_argv to row 10's pipeline (gst_capture's
# argument list, the sink named "sink", the source "src") on vivid 0 ($v0),
# 640x480 at 25 fps (vivid's top rate there; vivid keeps the last rate set):
#   camcore native  camcoresrc device=… ! YUY2 caps ! fakesink
#   v4l2 native     v4l2src device=… ! YUY2 caps ! fakesink
#   camcore i420    camcoresrc device=… ! I420 caps ! fakesink (camcore converts)
#   v4l2 i420       v4l2src device=… ! YUY2 caps ! videoconvert ! I420 ! fakesink
#   camcore|v4l2 sync   as native, fakesink sync=true (it waits for each
#                       buffer's time, as display and network sinks do)
gst_cmd() {
  local yuy2=video/x-raw,format=YUY2,width=640,height=480,framerate=25/1
  local i420=video/x-raw,format=I420,width=640,height=480,framerate=25/1
  case "$1 $2" in
    "camcore native") gst_argv=(camcoresrc name=src device="$v0" ! "$yuy2" ! fakesink name=sink) ;;
    "v4l2 native") gst_argv=(v4l2src name=src device="$v0" ! "$yuy2" ! fakesink name=sink) ;;
    "camcore i420") gst_argv=(camcoresrc name=src device="$v0" ! "$i420" ! fakesink name=sink) ;;
    "v4l2 i420") gst_argv=(v4l2src name=src device="$v0" ! "$yuy2" ! videoconvert ! video/x-raw,format=I420 ! fakesink name=sink) ;;
    "camcore sync") gst_argv=(camcoresrc name=src device="$v0" ! "$yuy2" ! fakesink name=sink sync=true) ;;
    "v4l2 sync") gst_argv=(v4l2src name=src device="$v0" ! "$yuy2" ! fakesink name=sink sync=true) ;;
  esac
}

# gst_run SOURCE KIND FRAMES [NAME RUN]: runs gst_cmd's pipeline under
# bench/c/gst_capture for FRAMES buffers after gst_warm of them; with NAME
# and RUN recorded (rec), without them a warm-up run whose output is
# dropped. The converting pipelines run with bench/c/v4l2_fmt_filter.so
# preloaded, vivid listing only YUYV (BENCH_V4L2_FORMATS=YUYV): a YUYV
# webcam, so that camcore converts (vivid's own I420 would be taken
# instead, no conversion) and v4l2src captures what videoconvert converts.
gst_run() {
  local src=$1 kind=$2 n=$3 pre=()
  gst_cmd "$src" "$kind"
  [ "$kind" = i420 ] && pre=(env BENCH_V4L2_FORMATS=YUYV LD_PRELOAD="$bin/v4l2_fmt_filter.so")
  if [ $# -ge 5 ]; then
    rec "$4" "$5" "${pre[@]}" "$bin/gst_capture" --frames "$n" --warmup "$gst_warm" --timeout 600 -- "${gst_argv[@]}"
  else
    "${pre[@]}" "$bin/gst_capture" --frames "$n" --warmup "$gst_warm" --timeout 600 -- "${gst_argv[@]}" >/dev/null 2>>"$errlog" \
      || say "10. GStreamer: warm-up run of $src $kind failed"
  fi
}

# guest_bench_gst RUNS FRAMES: row 10 (issue 33): camcoresrc against
# GStreamer's own v4l2src on vivid 0, 640x480 YUYV at 25 fps (gst_cmd):
# straight into fakesink (as gst-launch-1.0 runs it: sync=false, and with
# sync=true), and to I420 (camcore converting against videoconvert, on a
# YUYV-only vivid: gst_run). Each run is one process,
# bench/c/gst_capture, which measures the CPU of the whole process (every
# thread, getrusage) from the gst_warm-th buffer reaching fakesink over the
# next FRAMES. Every pipeline first runs once unrecorded (its first run in a
# boot reads the plugins over 9p), then RUNS rounds with the six
# interleaved; beside them camcore_capture (the C program, native and
# --output I420) on the same device, format and rate: the frame path under
# camcoresrc. The staged plugin (build/prefix/lib/gstreamer-1.0, `make
# stage` ends with `make gst`) and its own registry in the guest's /tmp.
guest_bench_gst() {
  local runs=$1 frames=$2 r src kind e
  gst_warm=25
  (
    export GST_PLUGIN_PATH=$repo/build/prefix/lib/gstreamer-1.0
    export GST_REGISTRY=/tmp/camcore-bench-gst10-registry.bin
    [ -x "$bin/gst_capture" ] && [ -e "$bin/v4l2_fmt_filter.so" ] \
      || { say "10. GStreamer: no $bin/gst_capture or v4l2_fmt_filter.so (bench/run builds them): rows skipped"; exit 0; }
    for e in camcoresrc v4l2src videoconvert fakesink; do
      gst-inspect-1.0 "$e" >/dev/null 2>&1 || { say "10. GStreamer: element $e not found (make gst; gstreamer1.0-plugins-good): rows skipped"; exit 0; }
    done
    say "10. GStreamer: $runs runs x $frames buffers (after $gst_warm), vivid $v0 640x480 YUYV @ 25 fps: camcoresrc vs v4l2src, into fakesink (sync=false, true) and to I420"
    for kind in native i420 sync; do for src in camcore v4l2; do gst_run "$src" "$kind" 10; done; done
    "$bin/camcore_capture" --device "$v0" --fourcc YUYV --size 640x480 --fps 25 --frames 10 --warmup 1 >/dev/null 2>>"$errlog"
    for r in $(seq 1 "$runs"); do
      for kind in native i420 sync; do
        for src in camcore v4l2; do gst_run "$src" "$kind" "$frames" "gst-$src-$kind" "$r"; done
      done
      rec gst-capture-native "$r" "$bin/camcore_capture" --device "$v0" --fourcc YUYV --size 640x480 --fps 25 \
          --frames "$frames" --warmup "$gst_warm" --timeout 600
      rec gst-capture-i420 "$r" "$bin/camcore_capture" --device "$v0" --fourcc YUYV --size 640x480 --fps 25 \
          --frames "$frames" --warmup "$gst_warm" --output I420 --timeout 600
    done
  )
}

# guest_bench_e2e_mjpeg RUNS FRAMES: row 8 on MJPEG, 1280x720 from
# v4l2loopback (bench/c/loop_writer.c feeding one fixed 4:2:0 JPEG, as row 2's
# MJPEG rows), to I420: camcore_capture --output I420 vs ffmpeg -input_format
# mjpeg ... -pix_fmt yuv420p. No GStreamer row: vivid has no MJPEG, and
# v4l2src could not allocate buffers on v4l2loopback 0.12.7 when tried by hand.
guest_bench_e2e_mjpeg() {
  local runs=$1 frames=$2 r n writer dev=/dev/video11
  e2e_tools
  modprobe v4l2loopback devices=1 video_nr=11 exclusive_caps=0 max_buffers=4 card_label=camcore-e2e \
    || { say "8. end to end MJPEG: modprobe v4l2loopback failed"; return 0; }
  udevadm settle --timeout=30
  "$bin/loop_writer" --device "$dev" --size 1280x720 --fps 30 --seconds 600 2>"$res/writer-e2e.log" &
  writer=$!
  for _ in $(seq 1 300); do grep -q jpeg_bytes "$res/writer-e2e.log" 2>/dev/null && break; sleep 0.1; done
  sleep 1
  say "8. end to end MJPEG: $runs runs x $frames frames, v4l2loopback 1280x720 MJPEG -> I420: camcore, ffmpeg"
  e2e_warm "$bin/camcore_capture" --device "$dev" --fourcc MJPG --size 1280x720 --fps 0 --frames 1 --warmup 1 --output I420 --timeout 120
  [ "$have_ffmpeg" = 1 ] && e2e_warm ffmpeg -nostdin -hide_banner -loglevel error -f v4l2 -input_format mjpeg \
      -video_size 1280x720 -i "$dev" -frames:v 1 -pix_fmt yuv420p -f null -
  for r in $(seq 0 "$runs"); do
    n=$frames; [ "$r" = 0 ] && n=1
    e2e_rec e2e-camcore-mjpeg "$r" "$n" "$bin/camcore_capture" --device "$dev" --fourcc MJPG --size 1280x720 --fps 0 \
        --frames "$(( n > 1 ? n - 1 : 1 ))" --warmup 1 --output I420 --timeout 120
    [ "$have_ffmpeg" = 1 ] && e2e_rec e2e-ffmpeg-mjpeg "$r" "$n" ffmpeg -nostdin -hide_banner -loglevel error \
        -f v4l2 -input_format mjpeg -video_size 1280x720 -i "$dev" -frames:v "$n" -pix_fmt yuv420p -f null -
  done
  kill "$writer" 2>/dev/null; wait "$writer" 2>/dev/null
  modprobe -r v4l2loopback 2>/dev/null
  udevadm settle --timeout=30
}

# guest_load_vimc: loads the kernel's vimc driver (a media-pipeline camera,
# built out of tree by Tests/kernel/vimc/build as build/vimc/<kver>/vimc.ko;
# shared TESTBED.md "vimc") as Tests/kernel/test_media_pipeline.py's fixture
# does: its dependencies by modprobe, the module by insmod (no depmod: 100 s
# under emulation), then waits for its three capture nodes. Returns 1 and
# says why when it cannot.
guest_load_vimc() {
  local ko="$repo/build/vimc/$(uname -r)/vimc.ko" n i
  [ -e "$ko" ] || { say "no $ko: run bash Tests/kernel/vimc/build on the host (.ci/setup --kernel does)"; return 1; }
  modprobe -a videodev mc v4l2-tpg videobuf2-common videobuf2-v4l2 videobuf2-vmalloc videobuf2-dma-contig \
    || { say "modprobe of vimc's dependencies failed"; return 1; }
  [ -d /sys/module/vimc ] || insmod "$ko" || { say "insmod $ko failed"; return 1; }
  udevadm settle --timeout=30
  for i in $(seq 1 300); do
    n=0
    for d in /sys/class/video4linux/video*; do
      [ "$(basename "$(readlink -f "$d/device/driver")")" = vimc ] && n=$(( n + 1 ))
    done
    [ "$n" -ge 3 ] && return 0
    sleep 0.1
  done
  say "vimc gave $n capture nodes, not 3"
  return 1
}

# lc_cmd TOOL N: sets the array lc_argv to TOOL's command capturing N frames
# from vimc's libcamera camera ($lc_cam), 636x480, libcamera's BGR888 (bytes
# R, G, B: V4L2's and camcore's RGB3, GStreamer's RGB), VideoRecording role,
# 4 buffers (vimc's handler sets 4; lc_warm records what each tool got):
#   camcore  the camcore tool (make stage): camcore capture --backend libcamera
#   gst      gst-launch-1.0 libcamerasrc ! RGB caps ! fakesink num-buffers=N
#            (libcamerasrc 0.0.3 has no num-buffers of its own)
#   cam      libcamera's cam: no frame sink (no --file/--sdl/--display), a line per frame on stdout
lc_cmd() {
  case "$1" in
    camcore) lc_argv=("$repo/build/prefix/bin/camcore" capture --backend libcamera "libcamera:$lc_cam"
                      --size 636x480 --format RGB3 --frames "$2") ;;
    gst) lc_argv=(gst-launch-1.0 -q libcamerasrc camera-name="$lc_cam"
                  ! video/x-raw,format=RGB,width=636,height=480 ! fakesink num-buffers="$2") ;;
    cam) lc_argv=(cam -c "$lc_cam" --capture="$2" -s role=video,width=636,height=480,pixelformat=BGR888) ;;
  esac
}

# lc_warm TOOL: the unrecorded first run of TOOL (lc_argv; its first run in
# a boot reads it and its libraries over 9p, kernel CPU charged to it that
# later runs do not pay), with libcamera's log on: records what libcamera
# configured for it, {"bench": "libcamera-config", "result": {"tool",
# "streams" (e.g. "636x480-BGR888"), "buffers" (imported at start)}}, so
# that the rows show that every tool captured the same stream.
lc_warm() {
  local log=/tmp/camcore-bench-lc-$1.log streams buffers
  LIBCAMERA_LOG_LEVELS='Camera:INFO,V4L2:DEBUG' "$bin/proc_time" "${lc_argv[@]}" >/dev/null 2>"$log"
  streams=$(sed -n 's/.*configuring streams: (0) \([^ ]*\).*/\1/p' "$log" | tail -n 1)
  buffers=$(sed -n 's/.*Prepared to import \([0-9]*\) buffers.*/\1/p' "$log" | tail -n 1)
  say "9. libcamera: $1 configured ${streams:-?} with ${buffers:-?} buffers"
  printf '{"bench": "libcamera-config", "run": 0, "result": {"tool": "%s", "streams": "%s", "buffers": %s}}\n' \
    "$1" "${streams:-?}" "${buffers:-null}" >> "$out"
}

# lc_streamer: the pid of vimc's streamer kthread ("vimc-streamer thread",
# started at stream on, stopped at stream off; /proc shows kthreads' full
# names since Linux 5.18, "vimc-streamer t" before), or nothing. Bash
# builtins only: it is polled while a tool starts.
lc_streamer() {
  local c n
  for c in /proc/[0-9]*/comm; do
    read -r n < "$c" 2>/dev/null && [[ $n == vimc-streamer* ]] && { c=${c#/proc/}; echo "${c%/comm}"; return; }
  done
}

# lc_frames KTHREAD: frames vimc has produced so far in this stream: the
# streamer sleeps once a frame (schedule_timeout(HZ/60) after each pass of
# its pipeline), so its voluntary context switches count them.
lc_frames() {
  local k v
  while read -r k v; do [ "$k" = voluntary_ctxt_switches: ] && { echo "$v"; return; }; done < "/proc/$1/status"
}

# lc_window PID SKIP WINDOW: once vimc streams, SKIP s (guest clock) later,
# takes PID's CPU (all its threads' schedstat run time, ns) with vimc's frame
# count and the clock, and again WINDOW s later: the CPU of PID's frames in
# the steady stream, start-up and stop outside the window. Prints the JSON
# fields (no braces), or nothing when PID ended or the stream stopped first.
lc_window() {
  local pid=$1 skip=$2 win=$3 kt="" i f0 f1 c0 c1 u0 u1
  for i in $(seq 1 3000); do
    kt=$(lc_streamer)
    [ -n "$kt" ] && break
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  [ -n "$kt" ] || return 1
  sleep "$skip"
  f0=$(lc_frames "$kt"); c0=$(cpu_ns_of "$pid"); read -r u0 _ < /proc/uptime
  sleep "$win"
  f1=$(lc_frames "$kt"); c1=$(cpu_ns_of "$pid"); read -r u1 _ < /proc/uptime
  kill -0 "$pid" 2>/dev/null && [ -n "$f0" ] && [ -n "$f1" ] && [ "$f1" -gt "$f0" ] && [ "$(lc_streamer)" = "$kt" ] \
    || return 1
  printf '"window_frames": %s, "window_cpu_ns": %s, "window_s": %s, "cpu_ns_per_frame": %s' \
    "$(( f1 - f0 ))" "$(( c1 - c0 ))" "$(awk -v a="$u0" -v b="$u1" 'BEGIN {printf "%.2f", b - a}')" \
    "$(awk -v c="$(( c1 - c0 ))" -v f="$(( f1 - f0 ))" 'BEGIN {printf "%.1f", c / f}')"
}

# lc_rec NAME RUN FRAMES: runs lc_argv (FRAMES frames) under proc_time
# (whole-process user+sys from wait4) and, while it streams, lc_window
# samples its steady-state CPU per frame; records both, or the run as failed.
lc_rec() {
  local name=$1 run=$2 n=$3 tmp=/tmp/camcore-bench-lc.out ptpid pid="" i win line
  "$bin/proc_time" "${lc_argv[@]}" > "$tmp" 2>>"$errlog" &
  ptpid=$!
  for i in $(seq 1 500); do
    pid=$(cat "/proc/$ptpid/task/$ptpid/children" 2>/dev/null)
    pid=${pid%% *}
    [ -n "$pid" ] && break
    sleep 0.02
  done
  win=$([ -n "$pid" ] && lc_window "$pid" "$lc_skip" "$lc_win")
  wait "$ptpid"
  line=$(tail -n 1 "$tmp")
  if [[ $line == \{* ]] && [[ $line == *'"rc": 0'* ]] && [ -n "$win" ]; then
    printf '{"bench": "%s", "run": %s, "result": %s, "frames": %s, %s}}\n' "$name" "$run" "${line%\}}" "$n" "$win" >> "$out"
  else
    say "FAILED: $name run $run: ${lc_argv[*]} ($line; window: ${win:-none})"
    printf '{"bench": "%s", "run": %s, "error": true}\n' "$name" "$run" >> "$out"
  fi
}

# guest_bench_libcamera RUNS FRAMES: row 9 (issue 30): camcore's libcamera
# backend against libcamera's own clients on vimc's camera (lc_cmd): the
# camcore tool, gst-launch-1.0 libcamerasrc ! fakesink and cam, the same
# camera, size, format and frame count, RUNS rounds, the tools interleaved.
# Each run is a whole process under proc_time (its user+sys CPU, start-up
# included), and lc_window samples its CPU over a window of the steady
# stream (from 1.5 s after vimc starts streaming, for FRAMES/25 - 2 s: about
# 60% of the frames at vimc's 20.8 fps, guest clock), divided by the frames
# vimc produced in it: the CPU of a frame, start-up and stop left out. Every
# tool first runs once unrecorded (lc_warm). Beside them,
# bench/c/camcore_capture through the same backend, with its own in-process
# CPU per frame (from its 10th frame to the last; it reads one byte of each
# frame) and the same window: a check of the window. libcamera logs only
# errors (LIBCAMERA_LOG_LEVELS=*:ERROR) in every tool: cam and libcamerasrc
# log INFO lines by default, camcore's plugin none.
guest_bench_libcamera() {
  local runs=$1 frames=$2 r t have_gst=1 have_cam=1 tools=() pid win line tmp=/tmp/camcore-bench-lc-cc.out
  lc_cam="platform/vimc.0 Sensor B"
  lc_skip=1.5
  lc_win=$(awk -v n="$frames" 'BEGIN {w = n / 25 - 2; printf "%.1f", w < 1 ? 1 : w}')
  if ! guest_load_vimc; then say "9. libcamera: vimc not loaded: rows skipped"; return 0; fi
  (
    export LIBCAMERA_LOG_LEVELS='*:ERROR'
    export GST_REGISTRY=/tmp/camcore-bench-gst-registry.bin
    command -v cam >/dev/null 2>&1 || { have_cam=0; say "9. libcamera: cam not installed (libcamera-tools): its rows skipped"; }
    if ! command -v gst-launch-1.0 >/dev/null 2>&1 || ! gst-inspect-1.0 libcamerasrc >/dev/null 2>&1 \
       || ! gst-inspect-1.0 fakesink >/dev/null 2>&1; then
      have_gst=0; say "9. libcamera: gst-launch-1.0 or libcamerasrc not installed (gstreamer1.0-tools, gstreamer1.0-libcamera): its rows skipped"
    fi
    tools=(camcore); [ "$have_gst" = 1 ] && tools+=(gst); [ "$have_cam" = 1 ] && tools+=(cam)
    if ! "$repo/build/prefix/bin/camcore" list --backend libcamera 2>>"$errlog" | grep -qF "libcamera:$lc_cam"; then
      say "9. libcamera: camcore lists no libcamera:$lc_cam: rows skipped"
      "$repo/build/prefix/bin/camcore" list --backend libcamera >&2
      exit 0
    fi
    say "9. libcamera: $runs runs x $frames frames (window ${lc_win} s), '$lc_cam' 636x480 BGR888 (RGB3): ${tools[*]}"
    for t in "${tools[@]}"; do lc_cmd "$t" 10; lc_warm "$t"; done
    for r in $(seq 1 "$runs"); do
      for t in "${tools[@]}"; do lc_cmd "$t" "$frames"; lc_rec "libcamera-$t" "$r" "$frames"; done
      CAMCORE_BACKEND=libcamera "$bin/camcore_capture" --device "libcamera:$lc_cam" --fourcc RGB3 --size 636x480 \
          --fps 0 --buffers 4 --frames "$(( frames - 10 ))" --warmup 10 --timeout 600 > "$tmp" 2>>"$errlog" &
      pid=$!
      win=$(lc_window "$pid" "$lc_skip" "$lc_win")
      wait "$pid"
      line=$(tail -n 1 "$tmp")
      if [[ $line == \{* ]] && [ -n "$win" ]; then
        printf '{"bench": "libcamera-camcore-inproc", "run": %s, "result": %s, "window": {%s}}\n' "$r" "$line" "$win" >> "$out"
      else
        say "FAILED: libcamera-camcore-inproc run $r ($line; window: ${win:-none})"
        printf '{"bench": "libcamera-camcore-inproc", "run": %s, "error": true}\n' "$r" >> "$out"
      fi
    done
  )
  rmmod vimc 2>/dev/null
  udevadm settle --timeout=30
}
