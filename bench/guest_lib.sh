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
