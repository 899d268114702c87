#!/usr/bin/env bash
# tests/fault_inject.sh CCSIM FAULTLIB SRCDIR — the CI sample of the fault
# injection (docs/testing.md), each run checked against the contract by
# scripts/fault_inject.sh (which, without --sample, tries every site):
#   a small run: 40 allocation failures spread over every allocation, and
#   12 failing write/fsync/rename calls for each of EIO, ENOSPC and EFBIG;
#   the same on two threads, 3 allocation failures on the second lane;
#   a three-point sweep, 3 allocation failures and one failing I/O call per
#   errno in the sweep process, and as many in its second point's run, each
#   sweep then resumed.
set -u
bash "$3/scripts/fault_inject.sh" "$1" "$2" "$3" --sample 40 --io-sample 12 || exit 1
exec bash "$3/scripts/fault_inject.sh" "$1" "$2" "$3" --target threads,sweep,point --sample 3 --io-sample 1
