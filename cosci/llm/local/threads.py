"""How many threads llama.cpp gets: the cores actually free for this process (design.md#local-threads).

With a fixed two threads on two cores, one other CPU-bound job made llama.cpp's threads wait for each other at every
matrix product: the demo's wall went 273 s -> 420 s while its CPU stayed ~450 s. With ``models.local.n_threads:
auto`` the embedded model uses the cores this process may run on (``os.sched_getaffinity``) minus the cores other
processes kept busy, rounded, at least one. "Busy" is read from ``/proc/stat``: all CPUs' non-idle time over an
interval minus this process's own CPU time over the same interval (its own threads are not competition). The first
reading, when the model loads, samples :data:`FIRST_WINDOW_SECONDS`; after that each call's own duration is the
interval (no waiting), so a competitor that starts or stops is followed from the next call. Without ``/proc/stat``
the 1-minute load average minus one (this process) stands in.
"""

from __future__ import annotations

import os
import resource
import time
from dataclasses import dataclass

FIRST_WINDOW_SECONDS = 0.25
"""Sampling window of the first reading (seconds): long enough for 25 scheduler ticks at 100 Hz."""
MIN_INTERVAL_SECONDS = 0.1
"""A later reading over a shorter interval (calls back to back) keeps the previous answer: too few ticks to tell."""


def own_cpu_seconds() -> float:
    """CPU time of this process so far (user + system, every thread), seconds."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def machine_times(path: str = "/proc/stat") -> tuple[float, float]:
    """``(busy, total)`` CPU seconds of the whole machine since boot, summed over CPUs, from ``/proc/stat``.

    Raises:
        OSError: no ``/proc/stat`` (not Linux).
    """
    with open(path) as fh:
        fields = [int(v) for v in fh.readline().split()[1:]]
    tick = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    total = sum(fields[:8])  # guest time is already counted in user
    return (total - idle) / tick, total / tick


def usable_cores() -> int:
    """Cores this process may run on (its affinity mask)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def free_threads(cores: int, other_busy_cores: float) -> int:
    """The rule: ``cores`` minus the cores others keep busy, rounded to the nearest whole core, between 1 and
    ``cores``."""
    return max(1, min(cores, int(cores - other_busy_cores + 0.5)))


@dataclass
class Snapshot:
    """Machine busy/total and own CPU seconds at one moment."""

    busy: float
    total: float
    own: float

    @classmethod
    def now(cls) -> Snapshot:
        busy, total = machine_times()
        return cls(busy, total, own_cpu_seconds())


def other_busy_cores(before: Snapshot, after: Snapshot) -> float:
    """Cores kept busy by other processes between two snapshots (the machine's busy CPUs minus this process)."""
    elapsed = (after.total - before.total) / max(os.cpu_count() or 1, 1)
    if elapsed <= 0:
        return 0.0
    return max(0.0, (after.busy - before.busy) - (after.own - before.own)) / elapsed


class ThreadRule:
    """Follows the free cores across calls: :meth:`first` when the model loads, :meth:`next` before each call."""

    def __init__(self, cores: int | None = None) -> None:
        self.cores = cores or usable_cores()
        self.last: Snapshot | None = None
        self.threads = self.cores

    def first(self, window: float = FIRST_WINDOW_SECONDS) -> int:
        try:
            before = Snapshot.now()
            time.sleep(window)
            self.last = Snapshot.now()
            self.threads = free_threads(self.cores, other_busy_cores(before, self.last))
        except OSError:
            self.threads = free_threads(self.cores, max(0.0, os.getloadavg()[0] - 1.0))
        return self.threads

    def next(self) -> int:
        """Threads for the next call, from the interval since the previous reading."""
        if self.last is None:
            return self.first()
        now = Snapshot.now()
        if (now.total - self.last.total) / max(os.cpu_count() or 1, 1) < MIN_INTERVAL_SECONDS:
            return self.threads
        busy = other_busy_cores(self.last, now)
        self.last = now
        self.threads = free_threads(self.cores, busy)
        return self.threads
