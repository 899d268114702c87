"""tests/python/meson.build: run as `python3 probe.py "$PATH"` by the
python3 found on PATH.  Prints nothing when that python3 is the interpreter
itself (or a link to it); else, for a shim, two lines: the interpreter it
started (sys.executable) and what the shim put in front of PATH for it
(pyenv exec: the version's bin directory; empty when nothing)."""
import os
import shutil
import sys

outer = sys.argv[1]
found = shutil.which("python3", path=outer)
exe = sys.executable
if found and exe and os.path.realpath(found) != os.path.realpath(exe):
    inner = os.environ.get("PATH", "")
    added = inner[: -len(outer)].rstrip(":") if inner.endswith(outer) else ""
    print(exe)
    print(added)
