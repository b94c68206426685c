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
    for mode in camcore camcore-iter camcore-rgb24 camcore-iter-rgb24 cv2 cv2-bgr; do
      rec "python-$mode" "$r" "$py" "$repo/bench/py/py_capture.py" "$mode" --device "$v0" --fps 120 --frames "$frames"
    done
    rec python-c-camcore "$r" "$bin/camcore_capture" --device "$v0" --fourcc YUYV --size 640x480 --fps 120 \
        --frames "$frames" --warmup 10
  done
}
