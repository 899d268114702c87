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


__all__ = ["Run", "Sweep", "load_run", "load_sweep", "flatten", "shown", "MARSIT_NOTE"]
