# slicegen: `make` builds the default drops into out/; `make test` runs the whole suite;
# `make` also regenerates the tables of README.md and docs/ (python -m gen.report);
# `make vendor-check` builds every drop under every flag set of emu/vendoring/flagsets.py (test_vendoring).
# `make fuzz` runs each libFuzzer target of tests/fuzz/ FUZZ_SECONDS (on one core) and merges what
# adds coverage into tests/fuzz/corpus/ (docs/reliability.md); `make test` replays that corpus.
# All do their own idempotent set-up: a .venv with the pinned Python packages, and from Debian
# when missing: arm-none-eabi-gcc (with newlib's headers), the host gcc/g++, clang with its
# sanitizer and libFuzzer runtimes (the vendoring checks, tests/fuzz/), OpenSSL's libcrypto headers
# (the AES-GCM fuzz oracle), and for armv8a aarch64-linux-gnu-gcc, llvm-19
# (llvm-mca, the A-class cost model) and qemu-user.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
JOBS   ?= 2

.PHONY: all setup toolchain test vendor-check fuzz clean-venv

all: setup
	$(PY) -m gen build --defaults -j $(JOBS) -o out
	$(PY) -m gen.report --out out --readme README.md --docs docs

setup: $(STAMP) toolchain

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e '.[test]'
	touch $(STAMP)

APT_INSTALL := apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq

toolchain:
	@command -v arm-none-eabi-gcc >/dev/null 2>&1 || { \
	  echo "installing gcc-arm-none-eabi (apt)"; \
	  $(APT_INSTALL) gcc-arm-none-eabi libnewlib-arm-none-eabi >/dev/null; }
	@{ command -v gcc && command -v g++; } >/dev/null 2>&1 || { \
	  echo "installing gcc g++ (apt)"; \
	  $(APT_INSTALL) gcc g++ >/dev/null; }
	@{ command -v clang >/dev/null 2>&1 && echo 'int main(void){return 0;}' | \
	   clang -x c -fsanitize=address,undefined - -o /dev/null >/dev/null 2>&1 && \
	   printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n){return (int)(n && d[0]) * 0;}\n' | \
	   clang -x c -fsanitize=fuzzer,address,undefined - -o /dev/null >/dev/null 2>&1; } || { \
	  echo "installing clang libclang-rt-dev (apt)"; \
	  $(APT_INSTALL) clang libclang-rt-dev >/dev/null; }
	@# tests/fuzz/ (issue 33): OpenSSL's libcrypto is the AES-GCM oracle
	@echo '#include <openssl/evp.h>' | cc -E -x c - >/dev/null 2>&1 || { \
	  echo "installing libssl-dev (apt)"; \
	  $(APT_INSTALL) libssl-dev >/dev/null; }
	@# armv8a (issue 17): the AArch64 cross compilers (C++ for the vendoring matrix), llvm-mca-19
	@# (the A-class cost model), qemu-aarch64
	@{ command -v aarch64-linux-gnu-gcc && command -v aarch64-linux-gnu-g++ && command -v llvm-mca-19 \
	   && command -v llvm-objdump-19 && command -v qemu-aarch64; } >/dev/null 2>&1 || { \
	  echo "installing gcc-aarch64-linux-gnu g++-aarch64-linux-gnu llvm-19 qemu-user (apt)"; \
	  $(APT_INSTALL) gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross llvm-19 qemu-user >/dev/null; }

test: setup
	$(PY) -m pytest -q -n $(JOBS) -p no:cacheprovider

vendor-check: setup
	$(PY) -m pytest -q -n $(JOBS) -p no:cacheprovider tests/test_vendoring.py --vendor-all

FUZZ_SECONDS ?= 60

fuzz: setup
	$(PY) -m tests.fuzz.run --seconds $(FUZZ_SECONDS)

clean-venv:
	rm -rf $(VENV)
