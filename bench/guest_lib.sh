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
