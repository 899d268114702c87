#!/usr/bin/env bash
# tests/fault_inject.sh CCSIM FAULTLIB SRCDIR — the CI sample of the fault
# injection (docs/testing.md): 40 allocation failures spread over every
# allocation of a small run, and 12 failing write/fsync/rename calls for
# each of EIO, ENOSPC and EFBIG, each checked against the contract by
# scripts/fault_inject.sh (which, without --sample, tries them all).
exec bash "$3/scripts/fault_inject.sh" "$1" "$2" "$3" --sample 40 --io-sample 12
