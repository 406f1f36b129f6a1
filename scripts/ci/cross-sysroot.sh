#!/bin/sh
# cross-sysroot.sh DIR — put the arm64 builds of the libraries normlab links
# (Check, cJSON, the OpenCL ICD loader) into DIR, a private sysroot, so that
# `make cross-test` can link aarch64 binaries and run them under qemu.
#
# Why not Debian multiarch (dpkg --add-architecture arm64)? It changes the
# machine's apt and dpkg state for good. Here apt runs with its own state and
# cache folders inside DIR: it reads the machine's sources, fetches arm64
# package lists and .debs into DIR, and `dpkg -x` unpacks them without
# installing anything. Nothing outside DIR changes; rm -rf DIR undoes it.
#
# Needs network access on first run (apt-get update + download); later runs
# find DIR/.complete and do nothing.
set -eu
root=${1:?usage: cross-sysroot.sh DIR}
mkdir -p "$root"
root=$(cd "$root" && pwd)
[ -f "$root/.complete" ] && exit 0

# Runtime libraries and their -dev halves; the headers packages are
# architecture-independent but must sit in the sysroot too, because
# pkg-config prefixes every -I with the sysroot.
pkgs="check libsubunit0 libsubunit-dev libcjson1 libcjson-dev
      ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers"

apt_dir="$root/.apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs"
# An empty dpkg status: apt must not think the host's amd64 packages are
# installed for arm64 (it would then skip nothing we ask for anyway, but an
# empty status keeps its dependency resolver out of the host's state).
: > "$apt_dir/status"
apt_opts="-o APT::Architecture=arm64 -o APT::Architectures::=arm64
  -o Dir::State=$apt_dir -o Dir::State::Lists=$apt_dir/lists
  -o Dir::State::status=$apt_dir/status -o Dir::Cache=$apt_dir/cache
  -o Debug::NoLocking=1 -o APT::Sandbox::User=root"

echo "cross-sysroot: fetching arm64 package lists into $apt_dir"
# shellcheck disable=SC2086
apt-get $apt_opts -qq update
cd "$apt_dir/debs"
echo "cross-sysroot: downloading $(echo $pkgs)"
# shellcheck disable=SC2086
apt-get $apt_opts -qq download $(for p in $pkgs; do
    case $p in opencl-c-headers|opencl-clhpp-headers) echo "$p";; *) echo "$p:arm64";; esac
done)
for deb in ./*.deb; do
    dpkg -x "$deb" "$root"
done

# -dev packages ship absolute symlinks (libfoo.so -> /usr/lib/...); inside a
# sysroot they must point into the sysroot, or the linker finds the host's
# x86-64 library (or nothing).
find "$root/usr/lib" -type l | while read -r link; do
    target=$(readlink "$link")
    case $target in
        /*) ln -sf "$root$target" "$link" ;;
    esac
done
touch "$root/.complete"
echo "cross-sysroot: ready in $root"
