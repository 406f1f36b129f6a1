#!/usr/bin/env bash
# setup.sh — Gradescope runs this once, as root, when it builds the
# autograder image (the zip is unpacked in /autograder/source).
# Installs what the course and its grader need (bubblewrap is the
# sandbox) and builds the library the grader links submissions against.
set -eu
cd /autograder/source
apt-get update
scripts/setup/deps.sh base
make -j"$(nproc)" build
