"""What a live campaign costs: the HTTP service as a crowd platform calls it, and the library.

Every figure is measured on one ICB store (n = 20 workers, k = 5, an epsilon so small the run
never stops) holding ``--observations`` recorded observations, through a real
``fullbandit session serve`` process and a real HTTP client (``http.client``, one keep-alive
connection per client):

* **server ready**: from starting the server process until its first ``GET /status`` answers
  (the interpreter, the imports, opening and verifying the store);
* **open**: ``Session.open`` of the store in a fresh process, median of ``--opens``: from the
  store's checkpoint (the events after it replayed, their digests checked), and with
  ``verify="full"`` (every digest checked, the whole journal replayed, the checkpoint checked
  against it); a checkout without checkpoints replays the whole journal in both. Each is timed
  after one untimed open (which leaves a checkpoint where the build left none);
* **POST /record**: one client records ``--records`` outstanding pulls in a row; median and
  99th percentile of the latency in milliseconds (each answer follows an fsynced commit);
* **4 clients**: ``--clients`` clients record their own outstanding pulls at once; records per
  second over the wall time from the first request to the last answer;
* **GET /**: the status page, once after the records (rebuilt) and the median of 10 loads
  with nothing recorded in between;
* **library record**: ``Session.record`` in a loop in one process (no HTTP), median and p99.

``--compare PATH`` (named by its commit, or ``--compare-label``) measures another checkout of
fullbandit (e.g. the previous release, a ``git worktree`` of an older commit) side by side in
the same run, on a store of the same size built by that checkout's own library (so each reads
its own store format). A server that re-opens the store on every request is slow at this size:
``--compare-records`` bounds the records it is asked for.

Pin BLAS to one thread when comparing (``OPENBLAS_NUM_THREADS=1``); the machine's fsync
dominates the record latency, so compare checkouts in one run, not across runs.

Usage:
    python benchmarks/bench_sessions.py [--observations 50000] [--records 2000] [--clients 4]
        [--compare ../old-checkout] [--out benchmarks/results/sessions.csv]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent

# Run in a subprocess with the checkout under test first on sys.path: build a store whose
# journal holds `observations` recorded pulls and `outstanding` more handed out.
BUILD = """
import sys
from fullbandit.sessions import Session
path, observations, outstanding = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
session = Session.start(path, algorithm="icb", n=20, k=5, epsilon=1e-9, delta=0.05, noise_scale=1.0, seed=0)
recorded = 0
while recorded < observations:
    for pull in session.next(count=min(1000, observations - recorded)):
        session.record(pull.id, 2.5 + 0.25 * ((pull.id * 7919) % 13 - 6))
        recorded += 1
while outstanding > 0:
    outstanding -= len(session.next(count=min(10000, outstanding)))
session.close()
"""

OPEN = """
import sys, time
from fullbandit.sessions import Session
options = {"verify": "full"} if sys.argv[2] == "full" else {}
try:
    Session.open(sys.argv[1], **options).close()  # once, untimed: leaves a checkpoint where none was
except TypeError:  # a fullbandit before checkpoints: every open replays the whole journal
    options = {}
start = time.perf_counter()
Session.open(sys.argv[1], **options).close()
print(time.perf_counter() - start)
"""

LIBRARY = """
import json, sys, time
from fullbandit.sessions import Session
path, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
times = []
with Session.open(path) as session:
    for pull in range(first, first + count):
        start = time.perf_counter()
        session.record(pull, 2.0)
        times.append(time.perf_counter() - start)
print(json.dumps(times))
"""


def environment(checkout: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(checkout), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1"}


def python(checkout: Path, code: str, *args) -> str:
    # cwd: not a checkout, whose fullbandit `python -c` would import before PYTHONPATH's.
    done = subprocess.run([sys.executable, "-c", code, *map(str, args)], env=environment(checkout), check=True,
                          capture_output=True, text=True, cwd=tempfile.gettempdir())
    return done.stdout


class Server:
    """``fullbandit session serve STORE --port 0`` of ``checkout`` in its own process."""

    def __init__(self, checkout: Path, store: Path):
        started = time.perf_counter()
        # The request log goes to a file: a pipe nobody reads would fill and block the server.
        self.log_path = store.with_suffix(".log")
        self.log = self.log_path.open("a")
        self.process = subprocess.Popen([sys.executable, "-m", "fullbandit", "session", "serve", str(store),
                                         "--port", "0"], env=environment(checkout), stdout=subprocess.PIPE,
                                        stderr=self.log, text=True, cwd=store.parent)  # cwd: as in python()
        line = self.process.stdout.readline() if self.process.stdout else ""
        if "http://" not in line:
            raise RuntimeError(f"the server did not start: {line!r} {self.log_path.read_text()}")
        self.port = int(line.split("http://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])
        self.request("GET", "/status")
        self.ready = time.perf_counter() - started

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)

    def request(self, method: str, route: str, body=None, connection=None) -> tuple[int, bytes]:
        own = connection is None
        connection = connection or self.connection()
        data = None if body is None else json.dumps(body).encode()
        connection.request(method, route, body=data, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        answer = response.read()
        if own:
            connection.close()
        return response.status, answer

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=120)
        self.log.close()


def record_all(server: Server, pulls: range) -> list[float]:
    """Record ``pulls`` over one keep-alive connection; the latency of each, in seconds."""
    connection = server.connection()
    times = []
    for pull in pulls:
        start = time.perf_counter()
        status, answer = server.request("POST", "/record", {"pull": pull, "reward": 2.0}, connection)
        times.append(time.perf_counter() - start)
        if status != 200:
            raise RuntimeError(f"POST /record of pull {pull}: {status} {answer[:200]!r}")
    connection.close()
    return times


def concurrent(server: Server, first: int, clients: int, each: int) -> float:
    """Records per second of ``clients`` clients recording ``each`` pulls of their own at once."""
    barrier = threading.Barrier(clients + 1)
    ends = [0.0] * clients

    def client(index: int) -> None:
        barrier.wait()
        record_all(server, range(first + index * each, first + (index + 1) * each))
        ends[index] = time.perf_counter()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    barrier.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    return clients * each / (max(ends) - start)


def page_loads(server: Server, loads: int = 10) -> tuple[float, float]:
    times = []
    for _ in range(loads + 1):
        start = time.perf_counter()
        status, _ = server.request("GET", "/")
        times.append(time.perf_counter() - start)
        if status != 200:
            raise RuntimeError(f"GET /: {status}")
    return times[0], float(np.median(times[1:]))


def measure(checkout: Path, label: str, folder: Path, args, records: int) -> list[dict]:
    clients_each = max(1, records // args.clients)
    library = min(records, 500)
    outstanding = records + args.clients * clients_each + library
    store = folder / f"{label.replace(' ', '-')}.db"  # a campaign's name: letters, digits, '-', '_'

    print(f"[{label}] building a store of {args.observations} observations ...", flush=True)
    python(checkout, BUILD, store, args.observations, outstanding)
    first = args.observations  # the pulls handed out after the recorded ones
    opens = [float(python(checkout, OPEN, store, "resume")) for _ in range(args.opens)]
    full_opens = [float(python(checkout, OPEN, store, "full")) for _ in range(args.opens)]
    print(f"[{label}] open {np.median(opens):.3f} s (whole journal verified {np.median(full_opens):.3f} s); "
          "serving ...", flush=True)
    server = Server(checkout, store)
    try:
        latencies = np.array(record_all(server, range(first, first + records))) * 1000
        rate = concurrent(server, first + records, args.clients, clients_each)
        first_page, cached_page = page_loads(server)
    finally:
        server.close()
    start = first + records + args.clients * clients_each
    library_times = np.array(json.loads(python(checkout, LIBRARY, store, start, library))) * 1000
    at = args.observations
    rows = [("server ready (s)", server.ready), ("open (s, median)", float(np.median(opens))),
            ("open, whole journal verified (s, median)", float(np.median(full_opens))),
            ("POST /record median (ms)", float(np.median(latencies))),
            ("POST /record p99 (ms)", float(np.percentile(latencies, 99))),
            (f"{args.clients} clients (records/s)", rate),
            ("GET / after records (ms)", first_page * 1000), ("GET / unchanged (ms, median)", cached_page * 1000),
            ("library record median (ms)", float(np.median(library_times))),
            ("library record p99 (ms)", float(np.percentile(library_times, 99)))]
    for measure_name, value in rows:
        print(f"[{label}] {measure_name:<32} {value:10.3f}", flush=True)
    return [{"checkout": label, "measure": name, "value": value, "observations": at, "records": records}
            for name, value in rows]


def checkout_label(checkout: Path) -> str:
    """``"commit abc1234"`` for a git checkout, else its folder's name."""
    done = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return f"commit {done.stdout.strip()}" if done.returncode == 0 else checkout.name


def figure(table: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    wide = table.pivot(index="measure", columns="checkout", values="value")
    wide = wide.loc[[m for m in table["measure"].unique()]]
    axes = wide.plot.barh(figsize=(9, 5), logx=True)
    axes.set_xlabel("value (log scale; units in each label)")
    axes.set_ylabel("")
    axes.set_title(f"Live session costs at {int(table['observations'].iloc[0]):,} observations")
    axes.invert_yaxis()
    plt.tight_layout()
    plt.savefig(path, dpi=120)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="benchmarks/results/sessions.csv")
    parser.add_argument("--observations", type=int, default=50_000)
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--opens", type=int, default=3)
    parser.add_argument("--compare", default=None, metavar="CHECKOUT",
                        help="another checkout of fullbandit to measure side by side (its repository root)")
    parser.add_argument("--compare-records", type=int, default=20)
    parser.add_argument("--compare-label", default=None,
                        help="the compared checkout's name in the table (default: its short commit)")
    parser.add_argument("--folder", default=None, help="where the stores are written (default: a temporary folder)")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(dir=args.folder) as folder:
        if args.compare:
            compared = Path(args.compare).resolve()
            rows += measure(compared, args.compare_label or checkout_label(compared), Path(folder), args,
                            args.compare_records)
        rows += measure(ROOT, "this checkout", Path(folder), args, args.records)
    table = pd.DataFrame(rows)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(out, index=False)
    figure(table, out.with_suffix(".png"))
    print(table.pivot(index="measure", columns="checkout", values="value").to_string())


if __name__ == "__main__":
    main()
