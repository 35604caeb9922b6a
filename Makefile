# Thin wrapper over CMake: `make demo` and `make test` work on a fresh Debian machine.
PYTHON := /usr/bin/python3
BUILD := build
SANITIZE_BUILD := build-sanitize
JOBS := $(shell nproc)
DEBIAN_PACKAGES := llvm-19-dev libzstd-dev libboost-context-dev pybind11-dev doctest-dev \
	python3-dev python3-numpy libreadline-dev cmake g++ python3-numba python3-pytest clang-format \
	clang-19 libclang-rt-19-dev python3-venv ccache
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build install demo test unit pytest test-ptx test-bundles test-pip fuzz-build \
	fuzz-smoke test-sanitize test-hosts format-check bench clean

deps:
	@missing=$$(for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "Installing:" $$missing; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(PYTHON)
	cmake --build $(BUILD) -j $(JOBS)

install: build
	$(SUDO) cmake --install $(BUILD)

demo: install
	@for f in examples/*.py; do echo "== $$f"; simt run $$f || exit 1; done

unit: build
	cd $(BUILD) && ctest --output-on-failure

pytest: build
	PYTHONPATH=$(CURDIR)/$(BUILD)/python $(PYTHON) -m pytest -q tests/python

test: install unit pytest fuzz-smoke

# Every example and the whole Python test suite with SIMT_PTX_CHECK=1 (python/simt/tools/ptx_check.py):
# each kernel they compile is also compiled for the GPU and its PTX assembled by ptxas for sm_75
# and sm_90. Where the CUDA toolkit is not installed the PTX is still compiled and assembly is
# skipped, as the summary says. The report (one JSON line per kernel) is $(PTX_REPORT); PTX that
# ptxas rejects is kept in $(PTX_REPORT).ptx/. Not part of `make test`: the suite runs again.
# With PTX_WITH_HOSTS=1 (CI: `make test-hosts test-ptx PTX_WITH_HOSTS=1`) the suite is not run
# again here: test-hosts' numba-cuda run, the whole suite, is the one that compiles every kernel
# for the GPU too, and this target adds the examples and checks the report.
PTX_REPORT := $(CURDIR)/$(BUILD)/ptx-check.jsonl
PTX_ENV := SIMT_PTX_CHECK=1 SIMT_PTX_CHECK_REPORT=$(PTX_REPORT) PYTHONPATH=$(CURDIR)/$(BUILD)/python
PTX_WITH_HOSTS :=
test-ptx: build
	$(if $(PTX_WITH_HOSTS),,rm -rf $(PTX_REPORT) $(PTX_REPORT).ptx)
	@status=0; log=$$(mktemp); \
	for f in examples/*.py; do echo "== $$f"; \
		$(PTX_ENV) SIMT_PTX_CHECK_QUIET=1 NUMBA_ENABLE_CUDASIM=0 $(PYTHON) -m simt run $$f \
			>$$log 2>&1 || { cat $$log; status=1; }; \
	done; rm -f $$log; \
	$(if $(PTX_WITH_HOSTS),,$(PTX_ENV) $(PYTHON) -m pytest -q tests/python || status=1;) \
	echo "== examples and tests/python:"; \
	$(PTX_ENV) $(PYTHON) -m simt.tools.ptx_check $(PTX_REPORT) || status=1; \
	exit $$status

# The GPU parity check's bundles of every example, test and benchmark launch, made and checked as
# simt-gpu-run reads them (its --dry-run; no GPU needed): what a GPU machine will be given runs.
BUNDLES := $(BUILD)/gpu-bundles
test-bundles: build
	scripts/make_gpu_bundles.sh $(BUNDLES)

# The pip route (pyproject.toml) as a user takes it: a new virtual environment of $(PYTHON) with a
# pinned Numba and numba-cuda, `pip install .` into it (scikit-build-core builds in
# build/pip-<wheel tag>, where ccache serves `make build`'s objects), then tests/install run by that
# environment's Python: the README's commands, the `simt` command and the pytest plugin.
PIP_VENV := $(CURDIR)/$(BUILD)/venv-pip
PIP_TEST_PACKAGES := numba==0.68.1 numba-cuda==0.30.4 numpy==2.4.6 pytest==9.2.0
test-pip: deps
	rm -rf $(PIP_VENV)
	$(PYTHON) -m venv $(PIP_VENV)
	$(PIP_VENV)/bin/pip install -q --disable-pip-version-check $(PIP_TEST_PACKAGES)
	$(PIP_VENV)/bin/pip install -q --disable-pip-version-check .
	$(PIP_VENV)/bin/python -m pytest -q -p no:cacheprovider tests/install

# simt's Python tests under the maintained hosts from PyPI (scripts/host_venv.sh pins them): the
# whole suite in a venv with numba-cuda, and the numba-cuda-mlir host's tests in one with it.
HOST_VENVS := $(CURDIR)/$(BUILD)/venv-hosts
test-hosts: build
	SIMT_STAGE=$(CURDIR)/$(BUILD)/python scripts/host_venv.sh numba-cuda $(HOST_VENVS)/numba-cuda
	$(if $(PTX_WITH_HOSTS),rm -rf $(PTX_REPORT) $(PTX_REPORT).ptx)
	$(if $(PTX_WITH_HOSTS),$(PTX_ENV)) $(HOST_VENVS)/numba-cuda/bin/python -m pytest -q \
		-p no:cacheprovider tests/python
	SIMT_STAGE=$(CURDIR)/$(BUILD)/python scripts/host_venv.sh numba-cuda-mlir \
		$(HOST_VENVS)/numba-cuda-mlir
	$(HOST_VENVS)/numba-cuda-mlir/bin/python -m pytest -q -p no:cacheprovider \
		tests/python/test_host_numba_cuda_mlir.py

# The fuzzers (tests/fuzz): built with clang-19's libFuzzer, ASan and UBSan in their own folder.
# The smoke run replays every input that once crashed (tests/fuzz/regressions, ptx_regressions),
# then mutates the seed corpora FUZZ_RUNS / FUZZ_PTX_RUNS times (new finds go to a scratch folder,
# not the tree): the frontend's, then the PTX path's (each run there goes through LLVM).
FUZZ_BUILD := build-fuzz
FUZZ_RUNS := 20000
FUZZ_PTX_RUNS := 5000
fuzz-build: deps
	cmake -S tests/fuzz -B $(FUZZ_BUILD) -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_BUILD_TYPE=None
	cmake --build $(FUZZ_BUILD) -j $(JOBS)

fuzz-smoke: fuzz-build
	$(FUZZ_BUILD)/frontend_fuzzer tests/fuzz/regressions/*
	$(FUZZ_BUILD)/ptx_fuzzer tests/fuzz/ptx_regressions/*
	scratch=$$(mktemp -d) && mkdir $$scratch/frontend $$scratch/ptx && \
	$(FUZZ_BUILD)/frontend_fuzzer -runs=$(FUZZ_RUNS) -seed=1 -max_len=4096 -timeout=10 \
		-rss_limit_mb=2048 $$scratch/frontend tests/fuzz/corpus && \
	$(FUZZ_BUILD)/ptx_fuzzer -runs=$(FUZZ_PTX_RUNS) -seed=1 -max_len=4096 -timeout=20 \
		-rss_limit_mb=4096 $$scratch/ptx tests/fuzz/ptx_corpus; \
	status=$$?; rm -rf $$scratch; exit $$status

# The unit tests and the whole pytest suite, in one Python process, against an ASan + UBSan build
# (not part of `make test`: it takes long). CPython is not instrumented, so the sanitizer runtime
# is preloaded, with libstdc++ (ASan finds the real __cxa_throw only in libraries loaded before
# it); CPython's deliberate leaks are not reported. Subprocesses inherit all of it.
# Reports go to files (pytest's capture would swallow a dying process's stderr) and are shown.
SANITIZE_LOG := $(CURDIR)/$(SANITIZE_BUILD)/sanitizer
SANITIZE_ENV := ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:log_path=$(SANITIZE_LOG) \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$(SANITIZE_LOG)
test-sanitize: deps
	cmake -S . -B $(SANITIZE_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIMT_SANITIZE=ON \
		-DCMAKE_CXX_COMPILER=g++ -DPython_EXECUTABLE=$(PYTHON)
	cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	rm -f $(SANITIZE_LOG).*
	cd $(SANITIZE_BUILD) && $(SANITIZE_ENV) ctest --output-on-failure; status=$$?; \
		cat $(SANITIZE_LOG).* 2>/dev/null; exit $$status
	$(SANITIZE_ENV) LD_PRELOAD="$$(g++ -print-file-name=libasan.so) $$(g++ -print-file-name=libstdc++.so)" \
		PYTHONPATH=$(CURDIR)/$(SANITIZE_BUILD)/python $(PYTHON) -m pytest -q tests/python; \
		status=$$?; cat $(SANITIZE_LOG).* 2>/dev/null; exit $$status

format-check:
	clang-format --dry-run --Werror $$(git ls-files '*.cpp' '*.h')

bench: install
	$(PYTHON) bench/run.py

clean:
	rm -rf $(BUILD) $(FUZZ_BUILD) $(SANITIZE_BUILD)
