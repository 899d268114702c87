"""Read ccsim results into pandas.

    import ccsim
    run = ccsim.load_run("results/quickstart")
    run.summary["iteration_time_s"]      # summary.json as a dict
    run.experiment["workers"]            # the resolved experiment that ran
    run.iterations                       # iterations.csv as a DataFrame
    run.hops                             # hops.csv (empty where a collective has no hops)
    run.timeline                         # timeline.csv, or None when not recorded

    sweep = ccsim.load_sweep("results/cascade")
    sweep.axes                           # ["workers", "method"]
    sweep.points                         # sweep.csv: one row per point, the axes as columns
    sweep.summaries()                    # every done point's summary.json, flattened, with its axes
    sweep.run("workers=4,method=marsit") # one point as a Run

Columns and units: docs/outputs.md.  See docs/python.md.
"""
from .results import Run, Sweep, load_run, load_sweep, flatten

MARSIT_NOTE = "reconstructed compensation"


def shown(label):
    """A method's label as a table or a legend shows it: a Marsit method is
    labelled "(reconstructed compensation)", since the paper's full text was
    not available and ccsim's global compensation is a reconstruction
    (docs/algorithms.md).  Other labels are returned unchanged."""
    label = str(label)
    if "marsit" in label.lower() and MARSIT_NOTE not in label:
        return f"{label} ({MARSIT_NOTE})"
    return label


def run_main(main, prog):
    """Run a script's main() under ccsim's exit contract: a result directory
    or file that is missing, damaged or not ccsim's is bad input (one line,
    exit 2); a file that cannot be read or written otherwise is a failed run
    (one line, exit 1); never a traceback for either."""
    import sys
    try:
        main()
    except SystemExit as e:  # SystemExit("message"): the scripts' own refusals of their input
        if isinstance(e.code, str):
            print(f"{prog}: {' '.join(e.code.split())}", file=sys.stderr)
            sys.exit(2)
        raise
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError, ValueError, KeyError) as e:
        text = e.args[0] if isinstance(e, KeyError) and e.args else e
        if isinstance(e, OSError) and e.filename and e.strerror:
            text = f"{e.filename}: {e.strerror}"
        print(f"{prog}: {' '.join(str(text).split())}", file=sys.stderr)
        sys.exit(2)
    except OSError as e:
        print(f"{prog}: {e.filename + ': ' if e.filename else ''}{e.strerror or e}", file=sys.stderr)
        sys.exit(1)


__all__ = ["Run", "Sweep", "load_run", "load_sweep", "flatten", "shown", "run_main", "MARSIT_NOTE"]
