# Thin front end over CMake. `make run` and `make test` each do their own setup on a fresh
# Debian 12 machine (tools/setup.sh: apt packages as root, npm tools into tests/noble).

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
TSAN_BUILD ?= build-tsan
FUZZ_SECONDS ?= 60

.PHONY: all setup build run test bench format clean

all: build

setup:
	@./tools/setup.sh

build: setup
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release \
	    -DCZK_ASAN_BUILD=$(CURDIR)/$(ASAN_BUILD) -DCZK_FUZZ_BUILD=$(CURDIR)/$(FUZZ_BUILD) \
	    -DCZK_TSAN_BUILD=$(CURDIR)/$(TSAN_BUILD) \
	    -DCZK_FUZZ_SECONDS=$(FUZZ_SECONDS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

# The main job on an embedded default: check the arithmetic; synthesize a PoRep-shaped circuit
# of 2^16 constraints, make development keys, prove, verify, and time every step; then start
# the daemon, run `czk bench` with 10-partition PoRep-shaped jobs against it, print the
# throughput, and stop the daemon cleanly.
run: build
	./$(BUILD)/czk self-check
	./$(BUILD)/czk demo --k 16
	./tools/run_daemon_demo.sh ./$(BUILD)/czk 12 20 4 10

# The whole suite: release unit tests, the @noble/curves cross-check, snarkjs interop, the
# daemon over gRPC, the unit tests again under ASan+UBSan and under TSan, every fuzz target
# for FUZZ_SECONDS, and the lint checks; ends with ctest's summary.
test: build
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g" \
	    -DCZK_SANITIZE=ON >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target czk_tests czk_xcheck
	cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    -DCMAKE_C_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread >/dev/null
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target czk_tests
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Release -DCZK_FUZZ=ON >/dev/null
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	cmake --build $(BUILD) -j $(JOBS) --target bench

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cu' '*.cuh' | grep -v '_tests\.h$$' | grep -v 'tests/test_list\.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(TSAN_BUILD)
