# SPDX-License-Identifier: MIT
# camcore — build, install, run and test.
#   make             release libcamcore.so into build/prefix (a staging install)
#   make install PREFIX=/usr/local [DESTDIR=...] [LIBDIR=...] [STRIP=]
#   make docs        the API reference from include/camcore.h -> build/docs/html
#   make run         the main job: capture from the first camera (or the synthetic one)
#   make test        every test: Swift, ABI/C/C++, Python, kernel (QEMU guest)
#   make wheel       the camcore Python package as a wheel -> build/wheels/ (finds an installed libcamcore)
#   make wheel-bundled  the self-contained wheel (libcamcore and its libraries inside) -> build/wheels/bundled/
#   make bench       benchmarks vs the references -> bench/results/RESULTS.md, ratios.png
#   make bench-framepath   only the frame-path rows, in one guest boot (~2 min)
#   make bench-e2e   only the end-to-end rows (camcore vs ffmpeg, GStreamer), one guest boot
#   make bench-libcamera   only the libcamera rows (camcore vs libcamerasrc, cam on vimc), one guest boot
#   make bench-gst   only the GStreamer rows (camcoresrc vs v4l2src on vivid), one guest boot
PREFIX  ?= /usr/local
DESTDIR ?=
# Installation directories (GNU conventions); each can be set on the command
# line, e.g. Debian multiarch: LIBDIR=/usr/lib/$$(dpkg-architecture -qDEB_HOST_MULTIARCH).
EXEC_PREFIX       ?= $(PREFIX)
BINDIR            ?= $(EXEC_PREFIX)/bin
LIBDIR            ?= $(EXEC_PREFIX)/lib
INCLUDEDIR        ?= $(PREFIX)/include
DATAROOTDIR       ?= $(PREFIX)/share
MANDIR            ?= $(DATAROOTDIR)/man
BASHCOMPLETIONDIR ?= $(DATAROOTDIR)/bash-completion/completions
PKGCONFIGDIR      ?= $(LIBDIR)/pkgconfig
CMAKEDIR          ?= $(LIBDIR)/cmake/camcore
# The installed library is stripped with $(STRIP); `STRIP=` (empty) keeps
# its symbols (a -dbg package, or dh_strip doing it).
STRIP             ?= strip
# The version is the header's: CAMCORE_VERSION_MAJOR/MINOR/PATCH in
# include/camcore.h are its one source (camcore_version(), the .so name, camcore.pc).
VERSION := $(shell awk '$$1 ~ /define$$/ && $$2 ~ /^CAMCORE_VERSION_(MAJOR|MINOR|PATCH)$$/ \
	{ v[$$2] = $$3 } END { print v["CAMCORE_VERSION_MAJOR"] "." v["CAMCORE_VERSION_MINOR"] "." \
	v["CAMCORE_VERSION_PATCH"] }' include/camcore.h)
ifneq ($(words $(subst ., ,$(VERSION))),3)
$(error cannot read CAMCORE_VERSION_MAJOR/MINOR/PATCH from include/camcore.h (got "$(VERSION)"))
endif
SOVER   := 0
STAGE   := $(CURDIR)/build/prefix
SWIFT   ?= swift
LIBNAME := libcamcore.so.$(VERSION)

RELEASE_FLAGS := -c release --product camcore \
	-Xswiftc -static-stdlib \
	-Xlinker --version-script=$(CURDIR)/Sources/CamCoreCABI/exports.map \
	-Xlinker -soname=libcamcore.so.$(SOVER)

.PHONY: plugin docs wheel wheel-bundled bench-e2e bench-libcamera bench-gst bench-pipewire bench-python all lib stage install examples tools run test bench bench-framepath test-swift test-abi test-python test-kernel clean
all: stage

# SwiftPM does not track the header of the [system] module CCamCore
# (include/camcore.h): a newer header makes the file that reads its version
# macros newer too, so the library is rebuilt with it.
lib:
	@if [ include/camcore.h -nt Sources/CamCoreCABI/Exports/VersionExports.swift ]; then \
		touch Sources/CamCoreCABI/Exports/VersionExports.swift; fi
	$(SWIFT) build $(RELEASE_FLAGS)

# Installs into $(DESTDIR) + the directories above: the .so (stripped
# unless STRIP=) with its symlinks, camcore.h and camcore.hpp, camcore.pc,
# the CMake package (camcoreConfig.cmake, camcoreConfigVersion.cmake:
# find_package(camcore), target camcore::camcore), and the `camcore` tool
# with its man page and bash completion. In camcore.pc and the CMake files a
# directory under PREFIX is written relative to it, so a DESTDIR tree or a
# moved prefix still works.
REL = $$(realpath -m -s --relative-to='$(1)' '$(2)')
install: lib plugin
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(CMAKEDIR)
	install -m 0755 .build/release/libcamcore.so $(DESTDIR)$(LIBDIR)/$(LIBNAME)
	if [ -f $(PLUGIN) ]; then install -d $(DESTDIR)$(LIBDIR)/camcore && \
		install -m 0755 $(PLUGIN) $(DESTDIR)$(LIBDIR)/camcore/libcamcore-libcamera.so; fi
	if [ -f $(GST_PLUGIN) ]; then install -d $(DESTDIR)$(LIBDIR)/gstreamer-1.0 && \
		install -m 0755 $(GST_PLUGIN) $(DESTDIR)$(LIBDIR)/gstreamer-1.0/libgstcamcore.so; fi
	$(if $(STRIP),$(STRIP) --strip-unneeded $(DESTDIR)$(LIBDIR)/$(LIBNAME))
	ln -sf $(LIBNAME) $(DESTDIR)$(LIBDIR)/libcamcore.so.$(SOVER)
	ln -sf libcamcore.so.$(SOVER) $(DESTDIR)$(LIBDIR)/libcamcore.so
	install -m 0644 include/camcore.h include/camcore.hpp $(DESTDIR)$(INCLUDEDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
		-e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|g' \
		-e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|g' \
		pkgconfig/camcore.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/camcore.pc
	sed -e "s|@PREFIX_FROM_CMAKEDIR@|$(call REL,$(CMAKEDIR),$(PREFIX))|g" \
		-e "s|@LIBDIR_FROM_PREFIX@|$(call REL,$(PREFIX),$(LIBDIR))|g" \
		-e "s|@INCLUDEDIR_FROM_PREFIX@|$(call REL,$(PREFIX),$(INCLUDEDIR))|g" \
		-e 's|@VERSION@|$(VERSION)|g' -e 's|@SOVER@|$(SOVER)|g' \
		cmake/camcoreConfig.cmake.in > $(DESTDIR)$(CMAKEDIR)/camcoreConfig.cmake
	sed -e 's|@VERSION@|$(VERSION)|g' cmake/camcoreConfigVersion.cmake.in \
		> $(DESTDIR)$(CMAKEDIR)/camcoreConfigVersion.cmake
	$(MAKE) -C tools/camcore install DESTDIR=$(DESTDIR) BINDIR=$(BINDIR) MANDIR=$(MANDIR) \
		BASHCOMPLETIONDIR=$(BASHCOMPLETIONDIR) \
		PKG_CONFIG_PATH=$(DESTDIR)$(PKGCONFIGDIR) PKG_CONFIG_SYSROOT_DIR=$(DESTDIR)

# The libcamera plugin (SPEC S41): camcore's C++ glue over the system's
# libcamera (libcamera-dev; its API changes with every release, so it is
# built here against the one installed), installed as
# $(LIBDIR)/camcore/libcamcore-libcamera.so and loaded by libcamcore at run
# time. Without libcamera-dev it is skipped with a note, and libcamcore's
# libcamera backend says the plugin is missing.
PLUGIN_SRC := Sources/CLibcamera/plugin/cclc_plugin.cpp Sources/CLibcamera/include/cclc.h
PLUGIN     := build/plugin/libcamcore-libcamera.so
plugin:
	@if pkg-config --exists libcamera; then $(MAKE) --no-print-directory $(PLUGIN); else \
		echo "note: libcamera-dev not found: the libcamera plugin (S41) is not built"; rm -f $(PLUGIN); fi
$(PLUGIN): $(PLUGIN_SRC)
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -g -fPIC -shared -fvisibility=hidden -Wall -Wextra -ISources/CLibcamera/include \
		$$(pkg-config --cflags libcamera) Sources/CLibcamera/plugin/cclc_plugin.cpp -o $@ \
		$$(pkg-config --libs libcamera libudev) -Wl,-soname,libcamcore-libcamera.so

# A staging install inside the tree, used by the examples and tests.
stage:
	$(MAKE) install PREFIX=$(STAGE) DESTDIR= EXEC_PREFIX=$(STAGE) BINDIR=$(STAGE)/bin \
		LIBDIR=$(STAGE)/lib INCLUDEDIR=$(STAGE)/include DATAROOTDIR=$(STAGE)/share \
		MANDIR=$(STAGE)/share/man BASHCOMPLETIONDIR=$(STAGE)/share/bash-completion/completions \
		PKGCONFIGDIR=$(STAGE)/lib/pkgconfig CMAKEDIR=$(STAGE)/lib/cmake/camcore
	$(MAKE) --no-print-directory gst

# The GStreamer plugin (bindings/gstreamer: camcoresrc, camcoredeviceprovider;
# README "camcore in a call: GStreamer"), C built against the staged camcore
# (build/prefix/lib/pkgconfig/camcore.pc) and GStreamer's dev packages
# (libgstreamer1.0-dev, libgstreamer-plugins-base1.0-dev), staged as
# build/prefix/lib/gstreamer-1.0/libgstcamcore.so: use it with
# GST_PLUGIN_PATH=build/prefix/lib/gstreamer-1.0. It only compiles C (never
# the Swift library); `make stage` ends with it. Without GStreamer's dev
# packages, or before camcore is staged, it is skipped with a note.
GST_PKGS     := gstreamer-1.0 gstreamer-base-1.0 gstreamer-video-1.0
GST_SRC      := $(wildcard bindings/gstreamer/*.c bindings/gstreamer/*.h)
GST_PLUGIN   := build/gst/libgstcamcore.so
GST_STAGED   := $(STAGE)/lib/gstreamer-1.0/libgstcamcore.so
GST_PKG_PATH := $(STAGE)/lib/pkgconfig$${PKG_CONFIG_PATH:+:$$PKG_CONFIG_PATH}
.PHONY: gst
gst:
	@if ! pkg-config --exists $(GST_PKGS); then \
		echo "note: GStreamer's dev packages (libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev) not found: the GStreamer plugin is not built"; \
	elif [ ! -f $(STAGE)/lib/pkgconfig/camcore.pc ]; then \
		echo "note: camcore is not staged (make stage): the GStreamer plugin is not built"; \
	else $(MAKE) --no-print-directory $(GST_STAGED); fi
$(GST_PLUGIN): $(GST_SRC) $(STAGE)/include/camcore.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -fPIC -shared -fvisibility=hidden -Wall -Wextra -Wno-unused-parameter \
		$$(PKG_CONFIG_PATH=$(GST_PKG_PATH) pkg-config --cflags $(GST_PKGS) camcore) \
		$(filter %.c,$(GST_SRC)) -o $@ \
		$$(PKG_CONFIG_PATH=$(GST_PKG_PATH) pkg-config --libs $(GST_PKGS) camcore) \
		-Wl,--no-undefined -Wl,-rpath,'$$ORIGIN/..'
$(GST_STAGED): $(GST_PLUGIN)
	install -d $(dir $@)
	install -m 0755 $< $@

examples: stage
	$(MAKE) -C examples/c PKG_CONFIG_PATH=$(STAGE)/lib/pkgconfig
	$(MAKE) -C examples/cpp PKG_CONFIG_PATH=$(STAGE)/lib/pkgconfig

# The `camcore` command-line tool (tools/camcore), against the staged library.
tools: stage
	$(MAKE) -C tools/camcore PKG_CONFIG_PATH=$(STAGE)/lib/pkgconfig

# The API reference (Doxygen, docs/Doxyfile): HTML in build/docs/html.
# Warnings are errors: an undocumented symbol, field or parameter fails.
docs:
	@command -v doxygen >/dev/null || { echo "make docs needs doxygen (apt-get install doxygen)" >&2; exit 1; }
	rm -rf build/docs && mkdir -p build/docs
	CAMCORE_VERSION=$(VERSION) CAMCORE_DOCS_DIR=$(CURDIR)/build/docs doxygen docs/Doxyfile
	@echo "API reference: build/docs/html/index.html"

# The Python package (bindings/python): a pure wheel that finds libcamcore
# through CAMCORE_LIBRARY, pkg-config or the loader path, and a
# self-contained one that carries it (bundle_wheel.py says what it bundles).
PYTHON ?= python3
WHEELS := $(CURDIR)/build/wheels
wheel:
	$(PYTHON) -m pip wheel --no-index --no-deps --no-build-isolation -q -w $(WHEELS) bindings/python
	@ls $(WHEELS)/camcore-*-py3-none-any.whl

wheel-bundled: stage
	$(PYTHON) bindings/python/bundle_wheel.py $(STAGE)/lib/libcamcore.so.0 $(WHEELS)/bundled

run: examples
	LD_LIBRARY_PATH=$(STAGE)/lib ./examples/c/camcore-capture --frames 60 --snapshot snapshot.png

test: examples tools
	bash Tests/run-all

# Benchmarks (bench/run): camcore vs bare V4L2, libyuv/TurboJPEG and OpenCV, as ratios.
bench: stage
	bash bench/run

# The frame-path rows alone (bare loop vs camcore, breakdown; BENCH_CALLGRIND=1
# adds callgrind profiles, BENCH_SCALE=1 the scale rows, BENCH_TTFF=1 open ->
# first frame): JSON lines in
# build/bench/framepath/guest.jsonl, no report.
bench-framepath: stage
	BENCH_SKIP_GUEST=1 BENCH_ONLY_BUILD=1 bash bench/run
	BENCH_GUEST_SCRIPT=framepath_guest.sh bash bench/run_guest.sh $(CURDIR)/build/bench/framepath
	@python3 -c 'import json,sys,collections; d=collections.defaultdict(list); [d[j["bench"]].append(j["result"]["cpu_ns_per_frame"]) for j in map(json.loads, open(sys.argv[1])) if "result" in j]; [print(f"{k:32s} {sorted(v)[len(v)//2]:10.1f} ns/frame (guest CPU)") for k,v in d.items()]' build/bench/framepath/guest.jsonl

# The PipeWire rows alone (one guest boot): app CPU per frame through the
# PipeWire backend vs the V4L2 backend, and the daemons' share.
bench-pipewire: stage
	BENCH_SKIP_GUEST=1 BENCH_ONLY_BUILD=1 bash bench/run
	BENCH_ROWS=pipewire BENCH_GUEST_SCRIPT=rows_guest.sh bash bench/run_guest.sh $(CURDIR)/build/bench/pipewire
	@python3 -c 'import json,sys,statistics as st; rs=[json.loads(l) for l in open(sys.argv[1])]; rs=[r for r in rs if "result" in r]; g=lambda b,k: [r["result"][k] for r in rs if r["bench"]==b and k in r["result"]]; v,p=st.median(g("pipewire-v4l2-backend","cpu_ns_per_frame")),st.median(g("pipewire-backend","cpu_ns_per_frame")); d=st.median([r["result"]["daemon_cpu_ns"]/(r["result"]["frames"]+10) for r in rs if r["bench"]=="pipewire-backend"]); print(f"V4L2 backend {v/1e3:9.1f} us/frame (app)\nPipeWire     {p/1e3:9.1f} us/frame (app)  ratio {p/v:.2f}\n  daemons    {d/1e3:9.1f} us/frame  (app+daemons)/V4L2 {(p+d)/v:.2f}")' build/bench/pipewire/guest.jsonl

# The Python rows alone (one guest boot): camcore.py callbacks and pull
# iterator vs the C program and cv2, CPU per frame.
bench-python: stage
	BENCH_SKIP_GUEST=1 BENCH_ONLY_BUILD=1 bash bench/run
	BENCH_ROWS=python BENCH_GUEST_SCRIPT=rows_guest.sh bash bench/run_guest.sh $(CURDIR)/build/bench/python
	@python3 -c 'import json,sys,statistics as st,collections as co; d=co.defaultdict(list); [d[j["bench"]].append(j["result"]["cpu_ns_per_frame"]) for j in map(json.loads, open(sys.argv[1])) if "result" in j]; c=st.median(d["python-c-camcore"]); [print(f"{k:22s} {st.median(v)/1e3:9.1f} us/frame  {st.median(v)/c:6.2f}x C") for k,v in sorted(d.items())]' build/bench/python/guest.jsonl

# The end-to-end rows alone (one guest boot): camcore --output I420 vs
# ffmpeg -f v4l2 and GStreamer v4l2src ! videoconvert on vivid 640x480 YUYV,
# and vs ffmpeg on 720p MJPEG through v4l2loopback; CPU per frame of the
# whole process. Needs ffmpeg and GStreamer (bench/run installs them).
bench-e2e: stage
	BENCH_SKIP_GUEST=1 BENCH_ONLY_BUILD=1 bash bench/run
	BENCH_ROWS=e2e BENCH_GUEST_SCRIPT=rows_guest.sh bash bench/run_guest.sh $(CURDIR)/build/bench/e2e
	@python3 -c 'import json,sys,statistics as st,collections as co; d=co.defaultdict(list); [d[j["bench"]].append(j["result"]["process_cpu_ms"]*1e3/j["result"]["frames"]) for j in map(json.loads, open(sys.argv[1])) if "result" in j and j["run"] != 0 and j["bench"].startswith("e2e-")]; m={k: st.median(v) for k,v in d.items()}; [print("%-20s %9.1f us/frame (whole process)" % (k, v)) for k,v in sorted(m.items())]; [print("camcore / %-6s %-5s %.2f" % (t, k, m["e2e-camcore-"+k] / m["e2e-"+t+"-"+k])) for k in ("yuyv","mjpeg") for t in ("ffmpeg","gst") if "e2e-camcore-"+k in m and "e2e-"+t+"-"+k in m]' build/bench/e2e/guest.jsonl

# The libcamera rows alone (issue 30; one guest boot, ~2.5 min): camcore's
# libcamera backend (the camcore tool) vs GStreamer's libcamerasrc ! fakesink
# and libcamera's cam on vimc's camera, 636x480 RGB3, CPU per frame of each
# process in the steady stream and of the whole process. Needs vimc.ko
# (bench/run builds it with Tests/kernel/vimc/build), gstreamer1.0-libcamera
# and libcamera-tools. Puts rows 9 into bench/results/RESULTS.md (raw lines:
# bench/results/raw/libcamera.jsonl).
bench-libcamera: stage
	BENCH_SKIP_GUEST=1 BENCH_ONLY_BUILD=1 bash bench/run
	BENCH_ROWS=libcamera BENCH_GUEST_SCRIPT=rows_guest.sh bash bench/run_guest.sh $(CURDIR)/build/bench/libcamera
	@mkdir -p bench/results/raw && cp build/bench/libcamera/guest.jsonl bench/results/raw/libcamera.jsonl
	@python3 bench/report.py --libcamera bench/results build/bench/libcamera/machine.txt

# The GStreamer rows alone (issue 33; one guest boot, ~2 min): camcoresrc vs
# GStreamer's v4l2src on vivid 640x480 YUYV at 25 fps, straight into
# fakesink (sync=false as gst-launch-1.0 runs it, and sync=true) and to I420
# (camcore converting vs videoconvert), the CPU of the whole process per
# buffer after a warm-up (bench/c/gst_capture). It uses the staged library
# and plugin as they are (make stage, which ends with make gst, builds them;
# not a prerequisite here, so that measuring never rebuilds them), and
# gstreamer1.0-tools, -plugins-base, -plugins-good. Prints the rows and puts
# rows 10 into bench/results/RESULTS.md (raw lines: bench/results/raw/gst.jsonl).
bench-gst:
	@[ -e $(STAGE)/lib/libcamcore.so.0 ] && [ -e $(GST_STAGED) ] || \
		{ echo "bench-gst: needs the staged library and GStreamer plugin ($(GST_STAGED)): make stage" >&2; exit 1; }
	BENCH_SKIP_GUEST=1 BENCH_ONLY_BUILD=1 bash bench/run
	BENCH_ROWS=gst BENCH_GUEST_SCRIPT=rows_guest.sh bash bench/run_guest.sh $(CURDIR)/build/bench/gst
	@mkdir -p bench/results/raw && cp build/bench/gst/guest.jsonl bench/results/raw/gst.jsonl
	@python3 bench/report.py --gst bench/results build/bench/gst/machine.txt

clean:
	rm -rf .build build
	$(MAKE) -C examples/c clean
	$(MAKE) -C examples/cpp clean
	$(MAKE) -C tools/camcore clean
