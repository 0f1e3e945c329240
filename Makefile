# Thin front end over CMake. `make run` and `make test` each do their own setup on a fresh
# Debian 12 machine (tools/setup.sh: apt packages as root; for `make test` also the npm tools
# into tests/noble and tests/snarkjs).

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
TSAN_BUILD ?= build-tsan
FUZZ_SECONDS ?= 60
# `make install`: where, and an optional staging root (packages): $(DESTDIR)$(PREFIX)/bin/czk.
PREFIX ?= /usr/local
DESTDIR ?=

# nvcc where CMake looks for it (CZK_NVCC): /usr/local/cuda/bin, $CUDA_PATH/bin, PATH. The
# kernels take 5-10 minutes of a 2-core machine: `make run` leaves the choice to CMake
# (CZK_CUDA=auto builds them only where a GPU is), while `make test` and `make bench` build
# them wherever nvcc is, so that CI, which has nvcc and no GPU, still compiles every kernel.
NVCC ?= $(firstword $(wildcard /usr/local/cuda/bin/nvcc $(CUDA_PATH)/bin/nvcc) \
    $(shell command -v nvcc 2>/dev/null))
CUDA_ON := $(if $(NVCC),-DCZK_CUDA=on)

# Configures $(BUILD) with the extra arguments $(1); prints only czk's own lines (which
# backend, and why), the rest goes to $(BUILD)/configure.log.
configure = @mkdir -p $(BUILD) && cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release \
	    -DCZK_ASAN_BUILD=$(CURDIR)/$(ASAN_BUILD) -DCZK_FUZZ_BUILD=$(CURDIR)/$(FUZZ_BUILD) \
	    -DCZK_TSAN_BUILD=$(CURDIR)/$(TSAN_BUILD) \
	    -DCZK_FUZZ_SECONDS=$(FUZZ_SECONDS) $(1) >$(BUILD)/configure.log || \
	    { cat $(BUILD)/configure.log; exit 1; }; grep '^-- czk:' $(BUILD)/configure.log || true

# CMake's own makefiles are sub-makes of this one: without this each would print its
# "Entering directory" lines between the progress lines.
MAKEFLAGS += --no-print-directory

.PHONY: all setup setup-run build run test bench install format clean

all: build

setup:
	@./tools/setup.sh

setup-run:
	@./tools/setup.sh run

build: setup
	$(call configure,)
	cmake --build $(BUILD) -j $(JOBS)

# The main job on an embedded default: check the arithmetic; synthesize a PoRep-shaped circuit
# of 2^16 constraints, make development keys, prove, verify, and time every step; then start
# the daemon, run `czk bench` with 10-partition PoRep-shaped jobs against it, print the
# throughput, and stop the daemon cleanly; then prove Filecoin's own requests through a daemon
# as Curio sends them (tools/run_filecoin_demo.sh), each verified. It builds the czk command
# alone: no test programs and, without a GPU, no CUDA kernels (CZK_CUDA=auto). The times quoted
# are those of the 2-vCPU development machine (BENCHMARKS.md, runs 70 and 93).
run: setup-run
	@echo "make run: configuring $(BUILD) (under a minute)"
	$(call configure,)
	@echo "make run: building czk (about a minute on 2 cores; where a GPU is, the CUDA" \
	    "kernels add 5-10)"
	@cmake --build $(BUILD) -j $(JOBS) --target czk_cli
	@echo "make run: czk self-check (seconds)"
	./$(BUILD)/czk self-check
	@echo "make run: czk demo, a 2^16 proof (seconds)"
	./$(BUILD)/czk demo --k 16
	@echo "make run: czk daemon and czk bench (under a minute)"
	./tools/run_daemon_demo.sh ./$(BUILD)/czk 12 20 4 10 $(BUILD)/daemon-demo.log
	@echo "make run: Filecoin through the daemon, as Curio sends it: WinningPoSt, WindowPoSt," \
	    "PoRep C2 and SnapDeals on 2 KiB sectors, each verified (the first run makes the" \
	    "keys: about three minutes; later runs reuse $(BUILD)/filecoin-keys)"
	./tools/run_filecoin_demo.sh ./$(BUILD)/czk $(BUILD)/filecoin-keys $(BUILD)/filecoin-demo.log
	@echo "make run: done. czk is at $(BUILD)/czk ($(BUILD)/czk --help lists its commands);" \
	    "the demos wrote no files but the keys in $(BUILD)/filecoin-keys, their results are" \
	    "above; the daemons' logs are $(BUILD)/daemon-demo.log and $(BUILD)/filecoin-demo.log."

# The whole suite: release unit tests, the @noble/curves cross-check, snarkjs interop, the
# daemon over gRPC, the unit tests again under ASan+UBSan and under TSan, every fuzz target
# for FUZZ_SECONDS, and the lint checks; ends with ctest's summary.
test: setup
	$(call configure,$(CUDA_ON))
	cmake --build $(BUILD) -j $(JOBS)
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g" \
	    -DCZK_SANITIZE=ON >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target czk_tests czk_xcheck
	cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    -DCMAKE_C_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread >/dev/null
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target czk_tests
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Release -DCZK_FUZZ=ON >/dev/null
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: setup-run
	$(call configure,$(CUDA_ON))
	cmake --build $(BUILD) -j $(JOBS) --target bench

# czk in $(DESTDIR)$(PREFIX)/bin, with the daemon the sample systemd unit, its sysusers.d
# entry and an example config (dist/; CMakeLists.txt's install block says where).
install: setup-run
	$(call configure,)
	cmake --build $(BUILD) -j $(JOBS) --target czk_cli
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cu' '*.cuh' | grep -v '_tests\.h$$' | grep -v 'tests/test_list\.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(TSAN_BUILD)
