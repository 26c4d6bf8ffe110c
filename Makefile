# slicegen: `make` builds the default drops into out/; `make test` runs the whole suite;
# `make` also regenerates the tables of README.md and docs/ (python -m gen.report);
# `make vendor-check` builds every drop under every flag set of emu/vendoring/flagsets.py (test_vendoring).
# `make regen-check` rebuilds every default drop (as `make`) and fails if out/, README.md or docs/ change;
# CI runs its bounded slice instead: `make test` re-renders every header and rebuilds one drop of each kind.
# `make fuzz` runs each libFuzzer target of tests/fuzz/ FUZZ_SECONDS (on one core) and merges what
# adds coverage into tests/fuzz/corpus/ (docs/reliability.md); `make test` replays that corpus.
# `make fuzz-live` is the bounded live mode: the GCM and FACE targets, each input also run on
# emulated Cortex-M4 and M3 drops (tests/fuzz/live.py), FUZZ_SECONDS each, seed FUZZ_SEED.
# `make mbedtls-check` runs Mbed TLS 3.6's own GCM, cipher-GCM and PSA suites over the generated
# MBEDTLS_GCM_ALT adapter and the generated PSA transparent driver, on the host and on the Cortex-M4
# code, and compares cycles (docs/mbedtls.md);
# Mbed TLS's source comes from Debian at build time.
# All do their own idempotent set-up: a .venv with the pinned Python packages, and from Debian
# when missing: arm-none-eabi-gcc (with newlib's headers), the host gcc/g++, clang with its
# sanitizer and libFuzzer runtimes (the vendoring checks, tests/fuzz/), OpenSSL's libcrypto headers
# (the AES-GCM fuzz oracle), for armv8a aarch64-linux-gnu-gcc, llvm-19 (llvm-mca, the A-class
# cost model) and qemu-user; for rv32imac riscv64-unknown-elf-gcc and picolibc; for mbedtls-check
# dpkg-dev, bzip2 and the armhf Linux cross compiler.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
JOBS   ?= 2

# `make mixcolumns-bound` runs the searches behind SPEEDY's RV32 MixColumns bound (docs/riscv.md;
# single process, niced): the rotation model to cost 20 (hours), the doubling chains (the >= 9 proof)
# and the CP-SAT cross-check through 7 instructions (~30 min); tests/test_speedy_rv32_bound.py runs
# bounded forms.
# `make mixcolumns-search` runs the byte-level search behind barrel-shiftrows AES's 97-XOR MixColumns
# (gen/circuits/mixcolumns_search.py, docs/riscv.md): it finds the 97 (11 additions, 3 doublings) and
# shows that 10 additions with 3 doublings of row sums do not exist (~2 min); tests/test_mixcolumns_xor.py
# runs bounded forms.
.PHONY: mixcolumns-bound mixcolumns-search all setup toolchain test vendor-check regen-check fuzz fuzz-live mbedtls-check mbedtls-psa-m4-check clean-venv

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
	@# mbedtls-check (issue 32): dpkg-source and bzip2 unpack Debian's Mbed TLS source package; the
	@# 32-bit Arm Linux cross compiler builds the suites over the Cortex-M4 drops, run by qemu-arm
	@{ command -v dpkg-source && command -v bzip2 && command -v arm-linux-gnueabihf-gcc \
	   && command -v qemu-arm; } >/dev/null 2>&1 || { \
	  echo "installing dpkg-dev bzip2 gcc-arm-linux-gnueabihf qemu-user (apt)"; \
	  $(APT_INSTALL) dpkg-dev bzip2 gcc-arm-linux-gnueabihf libc6-dev-armhf-cross qemu-user >/dev/null; }
	@# rv32imac (issue 36): the RISC-V bare-metal gcc (rv32imac/ilp32 multilib) and picolibc's headers
	@# (hosted compiles of the vendoring matrix); clang and llvm-mca-19 come with the lines above
	@command -v riscv64-unknown-elf-gcc >/dev/null 2>&1 && test -f /usr/lib/picolibc/riscv64-unknown-elf/picolibc.specs || { \
	  echo "installing gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf (apt)"; \
	  $(APT_INSTALL) gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf >/dev/null; }

test: setup
	$(PY) -m pytest -q -n $(JOBS) -p no:cacheprovider

mixcolumns-bound: setup
	nice $(PY) -m gen.circuits.shiftxor_bound
	nice $(PY) -m gen.circuits.shiftxor_min --upto 7
	nice $(PY) -m gen.circuits.rotxor_cost --budget 20

mixcolumns-search: setup
	nice $(PY) -m gen.circuits.mixcolumns_search --adds 11 --doublings 3
	! nice $(PY) -m gen.circuits.mixcolumns_search --adds 10 --doublings 3

vendor-check: setup
	$(PY) -m pytest -q -n $(JOBS) -p no:cacheprovider tests/test_vendoring.py --vendor-all

regen-check: all
	@changed=$$(git status --porcelain -- out README.md docs); \
	if [ -n "$$changed" ]; then echo "regenerating out/, README.md and docs/ changed them:"; \
	  echo "$$changed"; git diff --stat -- out README.md docs; exit 1; fi; \
	echo "make: every default drop, README.md and docs/ regenerated byte-identical"

FUZZ_SECONDS ?= 60
FUZZ_SEED    ?= 1

fuzz: setup
	$(PY) -m tests.fuzz.run --seconds $(FUZZ_SECONDS)

fuzz-live: setup
	$(PY) -m tests.fuzz.run --live --seconds $(FUZZ_SECONDS) --seed $(FUZZ_SEED)

# Mbed TLS 3.6 (pinned, from Debian's source package) in build/mbedtls/src (gitignored), built in
# copies beside it; the adapter over the multi-key (AES-128/192/256) portable drop (host) and
# Cortex-M4 drop (static armhf Linux programs under qemu-arm, the drop compiled -mcpu=cortex-m4); the PSA
# transparent driver over the single-key drops, wired into Mbed TLS's AEAD dispatch in its own build copy
# (emu/checks/psa_driver.py); then the cycles on the M4 model: crypt_and_tag over the drop within
# 1.05x of its own encrypt at 4 KiB.
MBEDTLS_DIR      := build/mbedtls
MBEDTLS_DROPS    := aesgcm-portable
MBEDTLS_M4_DROPS := aesgcm-m4-ffs

mbedtls-check: setup
	emu/checks/mbedtls/fetch.sh $(MBEDTLS_DIR)
	$(PY) -m gen.integrations.mbedtls $(MBEDTLS_DROPS) -o $(MBEDTLS_DIR)/alt
	$(PY) -m emu.checks.mbedtls_suites --src $(MBEDTLS_DIR)/src --alt $(MBEDTLS_DIR)/alt -j $(JOBS)
	$(PY) -m gen.integrations.mbedtls $(MBEDTLS_M4_DROPS) -o $(MBEDTLS_DIR)/alt-m4
	$(PY) -m emu.checks.mbedtls_suites --src $(MBEDTLS_DIR)/src --alt $(MBEDTLS_DIR)/alt-m4 --place m4 -j $(JOBS)
	$(PY) -m gen.integrations.psa_driver $(MBEDTLS_DROPS) -o $(MBEDTLS_DIR)/psa
	$(PY) -m emu.checks.psa_driver --src $(MBEDTLS_DIR)/src --driver $(MBEDTLS_DIR)/psa -j $(JOBS)
	$(PY) -m emu.bench.mbedtls --src $(MBEDTLS_DIR)/src --alt $(MBEDTLS_DIR)/alt-m4 --max-ratio 1.05

# The PSA driver over the Cortex-M4 drop (its own Mbed TLS build copy, ~3 min cold) and its cycles:
# a long check beside mbedtls-check, outside CI's 25-minute budget (CI runs the host PSA check).
mbedtls-psa-m4-check: setup
	emu/checks/mbedtls/fetch.sh $(MBEDTLS_DIR)
	$(PY) -m gen.integrations.psa_driver $(MBEDTLS_M4_DROPS) -o $(MBEDTLS_DIR)/psa-m4
	$(PY) -m emu.checks.psa_driver --src $(MBEDTLS_DIR)/src --driver $(MBEDTLS_DIR)/psa-m4 --place m4 -j $(JOBS)
	$(PY) -m emu.bench.psa_driver --src $(MBEDTLS_DIR)/src --driver $(MBEDTLS_DIR)/psa-m4

clean-venv:
	rm -rf $(VENV)
