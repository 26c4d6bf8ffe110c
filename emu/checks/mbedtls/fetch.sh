#!/usr/bin/env bash
# Mbed TLS 3.6's source (with its test suites and framework) from Debian's source package of the
# current stable release (trixie), pinned to one version and checked, into DEST/src. Idempotent:
# a second run with the stamp in place does nothing. Uses the machine's own Debian mirror (read
# from apt's configuration) with a private sources list and state, so the system's apt is untouched.
# Usage: emu/mbedtls/fetch.sh [DEST]   (default build/mbedtls; gitignored: nothing of Mbed TLS is committed)
set -euo pipefail
MBEDTLS_VERSION="3.6.6-0.1~deb13u1"
ORIG="mbedtls_3.6.6.orig.tar.bz2"
ORIG_SHA256="8fb65fae8dcae5840f793c0a334860a411f884cc537ea290ce1c52bb64ca007a"
SUITE="trixie"
DEST="${1:-build/mbedtls}"
mkdir -p "$DEST"
DEST="$(cd "$DEST" && pwd)"
if [ "$(cat "$DEST/src/.slicegen-version" 2>/dev/null)" = "$MBEDTLS_VERSION" ]; then exit 0; fi

codename="$(. /etc/os-release && echo "$VERSION_CODENAME")"
mirror="$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' \
          | awk -v r="$codename" '$2 == r {print $1; exit}')"
[ -n "$mirror" ] || { echo "fetch.sh: no Debian mirror for $codename in apt's sources" >&2; exit 2; }
apt_dir="$DEST/apt"
mkdir -p "$apt_dir/lists/partial" "$DEST/dl"
echo "deb-src $mirror $SUITE main" > "$apt_dir/sources.list"
opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o "Dir::State::Lists=$apt_dir/lists" -o APT::Sandbox::User=root)
apt-get "${opts[@]}" -qq update
(cd "$DEST/dl" && apt-get "${opts[@]}" -qq source --download-only "mbedtls=$MBEDTLS_VERSION")
echo "$ORIG_SHA256  $DEST/dl/$ORIG" | sha256sum -c --quiet
rm -rf "$DEST/src"
dpkg-source --skip-debianization -x "$DEST/dl/mbedtls_$MBEDTLS_VERSION.dsc" "$DEST/src" >"$DEST/dpkg-source.log" 2>&1   # the .dsc came through apt (hash-checked against the signed index)
[ -f "$DEST/src/framework/scripts/generate_test_code.py" ] && [ -f "$DEST/src/tests/suites/test_suite_gcm.function" ]
echo "$MBEDTLS_VERSION" > "$DEST/src/.slicegen-version"
echo "fetch.sh: Mbed TLS $MBEDTLS_VERSION in $DEST/src"
