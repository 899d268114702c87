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

__all__ = ["Run", "Sweep", "load_run", "load_sweep", "flatten"]
