# slicegen: `make` builds the default drops into out/; `make test` runs the whole suite.
# Both do their own idempotent set-up: a .venv with the pinned Python packages, and
# arm-none-eabi-gcc (and for armv8a aarch64-linux-gnu-gcc, llvm-19, qemu-user) from Debian when missing.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
JOBS   ?= 2

.PHONY: all setup toolchain test clean-venv

all: setup
	$(PY) -m gen build --defaults -o out
	$(PY) -m gen.report --out out --readme README.md

setup: $(STAMP) toolchain

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e '.[test]'
	touch $(STAMP)

toolchain:
	@command -v arm-none-eabi-gcc >/dev/null 2>&1 || { \
	  echo "installing gcc-arm-none-eabi (apt)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-arm-none-eabi libnewlib-arm-none-eabi >/dev/null; }
	@# armv8a (issue 17): the AArch64 cross compiler, llvm-mca-19 (the A-class cost model), qemu-aarch64
	@command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 && command -v llvm-mca-19 >/dev/null 2>&1 \
	  && command -v llvm-objdump-19 >/dev/null 2>&1 && command -v qemu-aarch64 >/dev/null 2>&1 || { \
	  echo "installing gcc-aarch64-linux-gnu llvm-19 qemu-user (apt)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-aarch64-linux-gnu libc6-dev-arm64-cross llvm-19 qemu-user >/dev/null; }

test: setup
	$(PY) -m pytest -q -n $(JOBS) -p no:cacheprovider

clean-venv:
	rm -rf $(VENV)
