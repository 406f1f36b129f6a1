#!/bin/sh
# deps.sh GROUP... — make sure the Debian packages a part of the course needs
# are installed. As root, installs the missing ones with apt-get; otherwise
# prints the exact command to run and exits 1.
# Groups are files scripts/setup/deps/GROUP.txt: one package per line, # comments.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 0 ] || set -- base

missing=""
for group in "$@"; do
    list="$here/deps/$group.txt"
    if [ ! -f "$list" ]; then
        echo "deps.sh: no package group '$group' (no file $list)" >&2
        exit 2
    fi
    for pkg in $(sed 's/#.*//' "$list"); do
        status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
        [ "$status" = installed ] || missing="$missing $pkg"
    done
done
[ -z "$missing" ] && exit 0

missing=$(echo $missing)   # trim
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps.sh: installing missing packages: $missing"
    export DEBIAN_FRONTEND=noninteractive
    # Refresh the package lists only when an install fails on a stale list.
    apt-get install -y --no-install-recommends $missing ||
        { apt-get update && apt-get install -y --no-install-recommends $missing; }
    exit 0
fi

cat >&2 <<MSG

normlab needs these Debian/Ubuntu packages, which are not installed:
    $missing
Install them with:

    sudo apt-get update && sudo apt-get install -y --no-install-recommends $missing

then run make again.
MSG
exit 1
