"""How long a live session's ``record`` takes, and how many records per second the store holds.

Two measurements on a fresh ICB session (n = 20 workers, k = 5, a tiny epsilon so the run
never stops):

* **latency**: one process records ``--records`` observations in a loop through the
  library (``Session.record``: replay from the snapshot cache, tell, append, fsynced
  commit); median and 99th percentile in milliseconds.
* **throughput**: ``--processes`` processes record their own pulls at once (each opened its
  session first); records per second over the wall time from the first to the last record.
* **status page**: ``GET /`` of ``fullbandit session serve`` on the latency store (``--records``
  observations), through a real HTTP client: the first load (a replay of the whole journal, what
  every load cost before the page cache) and the median of ``--page-loads`` loads with nothing
  recorded in between (served from the cache).

The store is on the folder given by ``--folder`` (default: a temporary folder), so the
numbers are those of that disk's fsync.

Usage:
    python benchmarks/bench_sessions.py [--out benchmarks/results/sessions.csv] [--records 1000]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd

from fullbandit.sessions import Session
from fullbandit.sessions.http import make_server

WORKER = """
import sys, time
from fullbandit.sessions import Session
path, first, last, start = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
with Session.open(path) as session:
    while time.time() < start:  # every process starts recording at the same moment
        time.sleep(0.001)
    for pull in range(first, last):
        session.record(pull, 0.5)
    print(time.time())
"""


def new_session(path: Path, pulls: int) -> None:
    session = Session.start(path, algorithm="icb", n=20, k=5, epsilon=1e-6, delta=0.05, noise_scale=1.0, seed=0)
    session.next(count=pulls)
    session.close()


def latency(folder: Path, records: int) -> np.ndarray:
    path = folder / "latency.db"
    new_session(path, records)
    times = []
    with Session.open(path) as session:
        for pull in range(records):
            start = time.perf_counter()
            session.record(pull, 0.5)
            times.append(time.perf_counter() - start)
    return np.array(times) * 1000.0


def page_loads(path: Path, loads: int) -> tuple[float, float]:
    """``(first load, median of the next loads)`` of the status page, in milliseconds."""
    server = make_server(path, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    times = []
    try:
        for _ in range(loads + 1):
            start = time.perf_counter()
            with urllib.request.urlopen(url, timeout=60) as response:
                response.read()
            times.append(time.perf_counter() - start)
    finally:
        server.shutdown()
        server.server_close()
    return times[0] * 1000.0, float(np.median(times[1:])) * 1000.0


def throughput(folder: Path, processes: int, each: int) -> float:
    path = folder / "throughput.db"
    new_session(path, processes * each)
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    start = time.time() + 3.0  # time enough for every process to import and open the store
    workers = [subprocess.Popen([sys.executable, "-c", WORKER, str(path), str(i * each), str((i + 1) * each),
                                 str(start)], env=env, stdout=subprocess.PIPE, text=True)
               for i in range(processes)]
    ends = [float(worker.communicate()[0]) for worker in workers]
    return processes * each / (max(ends) - start)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="benchmarks/results/sessions.csv")
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--each", type=int, default=100)
    parser.add_argument("--page-loads", type=int, default=20)
    parser.add_argument("--folder", default=None)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=args.folder) as folder:
        times = latency(Path(folder), args.records)
        first_page, cached_page = page_loads(Path(folder) / "latency.db", args.page_loads)
        rate = throughput(Path(folder), args.processes, args.each)
    rows = [{"measure": "record latency median (ms)", "value": float(np.median(times)), "records": args.records},
            {"measure": "record latency p99 (ms)", "value": float(np.percentile(times, 99)), "records": args.records},
            {"measure": f"concurrent records per second ({args.processes} processes)", "value": rate,
             "records": args.processes * args.each},
            {"measure": "status page, first load (ms)", "value": first_page, "records": args.records},
            {"measure": f"status page, cached load (ms, median of {args.page_loads})", "value": cached_page,
             "records": args.records}]
    table = pd.DataFrame(rows)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out, index=False)
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
