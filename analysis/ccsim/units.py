"""Quantities as ccsim's inputs write them ("25Gbps", "4MiB", "5us"), as numbers.

The rules are src/units.c's: a decimal number (no "0x10", "inf" or "nan"),
optional spaces, then a unit; SI prefixes k/K, M, G, T, P are powers of 1000,
binary ones Ki, Mi, Gi, Ti of 1024.

    bandwidth("25Gbps")  -> 25e9     bits per second ("10GBps" -> 80e9)
    size("4MiB")         -> 4194304  bytes ("8b" -> 1)
    time("5us")          -> 5e-06    seconds ("2min" -> 120)
    quantity("25Gbps")   -> (25e9, "bit/s"); quantity("8") -> (8.0, "")

Bandwidths come out in bits per second, the unit a network is quoted in (the
simulator itself works in bytes per second).  Each raises ValueError, naming
the text, when it is not a number followed by a unit of its kind.
"""
import math
import re
import sys

_NUMBER = re.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(.*?)\s*\Z", re.S)
_PREFIXES = (("Ki", 1024.0), ("Mi", 1048576.0), ("Gi", 1073741824.0), ("Ti", 1099511627776.0),
             ("k", 1e3), ("K", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12), ("P", 1e15))
_TIMES = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12, "m": 60.0, "min": 60.0, "h": 3600.0}

# the unit each kind comes out in
BANDWIDTH, SIZE, TIME, NUMBER = "bit/s", "B", "s", ""


def _split(text, kind):
    """'1.5 GB' -> (1.5, 'GB'); ValueError when there is no decimal number first."""
    m = _NUMBER.match(text) if isinstance(text, str) else None
    if not m or len(m.group(2)) >= 32:
        raise ValueError(f'"{text}": expected a {kind} (a number and a unit, e.g. {_EXAMPLES[kind]})')
    digits = m.group(1)
    v = float(digits)
    mantissa = re.split("[eE]", digits)[0]
    # strtod's ERANGE: past the doubles, or below the normal ones ("1e-310", "1e-330")
    if not math.isfinite(v) or (v == 0 and re.search("[1-9]", mantissa)) or (v != 0 and abs(v) < sys.float_info.min):
        raise ValueError(f'"{text}": {digits} is out of the range of a double')
    return v, m.group(2)


def _prefix(unit):
    """('Gbps') -> (1e9, 'bps'): a prefix is stripped only when a unit follows it."""
    for p, f in _PREFIXES:
        if unit.startswith(p) and len(unit) > len(p):
            return f, unit[len(p):]
    return 1.0, unit


def _scaled(text, v, f):
    x = v * f
    if not math.isfinite(x) or (v != 0 and x == 0):
        raise ValueError(f'"{text}": out of the range of a double once its unit is applied')
    return x


_EXAMPLES = {"bandwidth": '"25Gbps" or "10GBps"', "size": '"4MB" or "4MiB"', "time": '"5us" or "1.5ms"'}


def bandwidth(text):
    """Bits per second: "25Gbps" (bits), "10GBps" or "10GB/s" (bytes), "1Gibps"."""
    v, unit = _split(text, "bandwidth")
    f, u = _prefix(unit)
    # bytes per second as src/units.c computes them (the same range), then bits
    if u in ("Bps", "B/s"):
        return _scaled(text, _scaled(text, v, f), 8.0)
    if u in ("bps", "b/s"):
        return _scaled(text, _scaled(text, v, f / 8.0), 8.0)
    raise ValueError(f'"{text}": expected a bandwidth (a number and a unit, e.g. {_EXAMPLES["bandwidth"]})')


def size(text):
    """Bytes: "4MB" (4e6), "4MiB" (4 * 2**20), "512B", "8b" (1)."""
    v, unit = _split(text, "size")
    f, u = _prefix(unit)
    if u == "B":
        return _scaled(text, v, f)
    if u == "b":
        return _scaled(text, v, f / 8.0)
    raise ValueError(f'"{text}": expected a size (a number and a unit, e.g. {_EXAMPLES["size"]})')


def time(text):
    """Seconds: "5us", "1.5ms", "2s", "100ns", "1ps", "2m" or "2min", "1h" (no other prefixes)."""
    v, unit = _split(text, "time")
    if unit in _TIMES:
        return _scaled(text, v, _TIMES[unit])
    raise ValueError(f'"{text}": expected a time (a number and a unit, e.g. {_EXAMPLES["time"]})')


def quantity(text):
    """(value, unit) for a bare number (unit ""), a bandwidth ("bit/s"), a size
    ("B") or a time ("s"); ValueError when it is none of them."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        if not math.isfinite(text):
            raise ValueError(f"{text}: not a finite number")
        return float(text), NUMBER
    try:
        v, unit = _split(text, "bandwidth")
    except ValueError:
        raise ValueError(f'"{text}": not a number, a bandwidth, a size or a time') from None
    if unit == "":
        return v, NUMBER
    for parse, u in ((bandwidth, BANDWIDTH), (size, SIZE), (time, TIME)):
        try:
            return parse(text), u
        except ValueError:
            pass
    raise ValueError(f'"{text}": not a number, a bandwidth, a size or a time')


def column(values):
    """The numbers of a column of labels and their common unit, or None when
    some label is no quantity or two units mix ("10Gbps" with "4MB")."""
    out, units = [], set()
    for v in values:
        try:
            x, u = quantity(v)
        except ValueError:
            return None
        out.append(x)
        units.add(u)
    if len(units) != 1:
        return None
    return out, units.pop()
