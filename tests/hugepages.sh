#!/usr/bin/env bash
# tests/hugepages.sh CCSIM SRCDIR — the heap on transparent huge pages
# (src/heap.h) changes where memory lies, never a result:
#  - every result file byte for byte (summary.json aside from its host
#    fields) with CCSIM_HUGEPAGES=0 and without, on a sampled ring, Marsit
#    with its memory over buckets, and a parameter server, at 1 and 2
#    threads;
#  - where the kernel allows huge pages, the host line says so and a
#    256-worker ring of 1M elements, not sampled (its payloads and their
#    shadows are most of the heap), takes under 70% of the page faults
#    (33-41% here: 3,198-3,974 against 9,642-9,754, six runs; the rest the
#    libraries' start and the stacks; counted by the kernel: wait4's usage
#    of the child).  A sampled ring's heap is now too small to tell: at
#    65,536 elements it took 74-88% once the metrics' lane logs were gone
#    (4,580 faults without huge pages).  With CCSIM_HUGEPAGES=0 it does not say
#    so; where the kernel does not (THP "never"), or in a sanitizer build,
#    neither run says so;
#  - CCSIM_HUGEPAGES other than 0 or 1 is refused: exit 2, one line (a
#    newline in the value written as \n).
. "$(dirname "$0")/lib.sh" "$@"
check() { same_env "$1" CCSIM_HUGEPAGES=0 "${@:2}"; } # name experiment [args...]
RING=$SRC/tests/validation/ring_crossbar.json
for th in 1 2; do
  check "ring-t$th" "$RING" --set workers=256 --set 'model={"elements":262144}' --set model.sample=16384 \
    --set iterations=2 --threads $th
  check "marsit-t$th" "$SRC/workloads/walltime/resnet50.json" --set workers=64 --set iterations=3 \
    --set model.sample=16384 --set 'compressor={"name": "marsit", "memory": "marsit"}' --threads $th
  check "ps-t$th" "$RING" --set workers=32 --set 'model={"elements":65536}' --set iterations=2 \
    --set 'collective={"name": "ps", "servers": 2}' --set 'compressor={"name": "topk", "ratio": 0.01}' --threads $th
done

# the host line, and the page faults the kernel counted; a sanitizer
# build's malloc is not glibc's, and ccsim leaves it alone (as "never")
thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown)
if ldd "$CCSIM" 2>/dev/null | grep -q -E 'lib(a|t)san'; then thp="sanitizer build: [never]"; fi
faults() { # env-value -> "minor-faults<TAB>host line"
  python3 - "$1" "$CCSIM" "$RING" "$T/f$1" <<'PY'
import os, sys
env = dict(os.environ, CCSIM_HUGEPAGES=sys.argv[1])
out = sys.argv[4] + ".stdout"
argv = [sys.argv[2], "run", sys.argv[3], "--force", "--out", sys.argv[4], "--set", "workers=256",
        "--set", 'model={"elements":1048576}', "--set", "iterations=1"]
# posix_spawn and wait4: the faults of this child and what it waited for,
# not those of a fork of this interpreter
pid = os.posix_spawn(argv[0], argv, env,
                     file_actions=[(os.POSIX_SPAWN_OPEN, 1, out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)])
_, status, ru = os.wait4(pid, 0)
host = [l for l in open(out) if l.strip().startswith("host")]
print("%d\t%s\t%d" % (ru.ru_minflt, host[0].strip() if host else "", os.waitstatus_to_exitcode(status)))
PY
}
IFS=$'\t' read -r f0 h0 rc0 <<<"$(faults 0)"
IFS=$'\t' read -r f1 h1 rc1 <<<"$(faults 1)"
if [ "$rc0" != 0 ] || [ "$rc1" != 0 ]; then
  bad "the 256-worker ring failed (exit $rc0, $rc1)"
else
  case "$h0" in *"huge pages"*) bad "CCSIM_HUGEPAGES=0 says: $h0" ;; *) ok ;; esac
  case "$thp" in
    *"[never]"* | unknown)
      case "$h1" in *"huge pages"*) bad "THP is never here, yet: $h1" ;; *) ok ;; esac
      echo "hugepages: no huge pages for ccsim here ($thp): faults $f0 and $f1 not compared" ;;
    *)
      case "$h1" in *"(heap on huge pages)"*) ok ;; *) bad "THP allowed ($thp), the host line says: $h1" ;; esac
      if [ "$((10 * f1))" -lt "$((7 * f0))" ]; then ok; else bad "page faults $f1 on huge pages against $f0 without: not under 70%"; fi
      echo "hugepages: page faults of a 256-worker ring of 1M elements: $f0 without, $f1 on huge pages" ;;
  esac
fi

# a value that is neither 0 nor 1
out=$(CCSIM_HUGEPAGES=yes "$CCSIM" run "$RING" --quiet --out "$T/x" 2>&1)
rc=$?
if [ "$rc" = 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && [ "$out" = 'ccsim: environment: CCSIM_HUGEPAGES is "yes", expected "0" or "1"' ]; then
  ok
else
  bad "CCSIM_HUGEPAGES=yes: exit $rc, said: $out"
fi
[ ! -e "$T/x" ] || bad "CCSIM_HUGEPAGES=yes wrote $T/x"
# a newline in the value stays on the one line, written as \n
out=$(CCSIM_HUGEPAGES=$'1\nccsim: forged' "$CCSIM" run "$RING" --quiet --out "$T/y" 2>&1)
rc=$?
if [ "$rc" = 2 ] && [ "$out" = 'ccsim: environment: CCSIM_HUGEPAGES is "1\nccsim: forged", expected "0" or "1"' ]; then
  ok
else
  bad "CCSIM_HUGEPAGES with a newline: exit $rc, said: $out"
fi

finish hugepages
