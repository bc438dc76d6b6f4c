"""How the benchmarks send timed requests to two servers side by side.

The servers take turns, so that a shared machine's load falls on both
alike. A turn is a batch: one untimed request that wakes the server,
then ``--batch`` timed requests in a row (default 3). ``--batch 1
--no-wake`` is the one-by-one interleaving the benchmarks used before.

Why the waking request. On the machines these benchmarks run on
(Firecracker VMs with nested paging), memory a process has left
untouched for a while costs about 2 microseconds per 4 KiB page at its
next touch, whatever else the machine does (measured with plain
Python, no server: 6,000 random lookups in a 300,000-entry dict take
1.4 ms back to back and 3.6 / 7.8 / 11.6 / 14.8 ms after sleeping 20 /
50 / 170 / 300 ms; a spinning process at idle priority on both CPUs
changes nothing). One by one, each server's request follows the other
server's: ours idles through upstream's answer (170 ms for the nested
gate) and pays about 8 ms on its next one (the gate alone: 14.2 ms
back to back, 22-23 ms after a 170 ms sleep), while upstream idles
through ours (20 ms) and pays about 3 ms (161 and 164 ms). The penalty
is a fixed cost of the machine, not of either server's work, and a
service in steady use (a scheduler's stream of requests) does not pay
it. A batch's first request does, untimed; the server CPU counted is
that of the timed requests only.
"""
import time
import typing

from tools.benchlib import procstat


# Timed requests per turn, by default.
BATCH = 3


class Pace(typing.NamedTuple):
    batch: int = BATCH
    wake: bool = True

    def argv(self) -> list:
        """The command-line arguments that give this pace."""
        return ['--batch', str(self.batch)] + (
            [] if self.wake else ['--no-wake'])

    def describe(self) -> str:
        return '%d timed request(s) per turn, %s' % (
            self.batch, 'after an untimed one' if self.wake
            else 'no untimed request')


def add_arguments(parser):
    parser.add_argument('--batch', type=int, default=BATCH,
                        help='timed requests per turn (default %(default)s)')
    parser.add_argument('--no-wake', dest='wake', action='store_false',
                        help='no untimed request before a turn '
                             '(--batch 1 --no-wake: one by one)')


def of(args) -> Pace:
    return Pace(max(1, args.batch), args.wake)


class Timing(typing.NamedTuple):
    """One server's timed requests: latencies (ms), its CPU over them
    (seconds; None without pids) and this client's CPU (seconds)."""

    samples: list
    cpu: typing.Optional[float]
    client: float


def take_turns(servers, repeats, pace: Pace, call, pids=None) -> list:
    """A Timing per server of ``servers`` (in their order): ``repeats``
    (one count per server) timed requests each, the servers taking
    turns batch by batch. ``call(server)`` sends one request;
    ``pids(server)``, when given, lists the processes whose CPU counts.
    """
    samples = [[] for _ in servers]
    cpu = [0.0 for _ in servers]
    client = [0.0 for _ in servers]
    ids_of = [pids(server) if pids else None for server in servers]
    turns = max(-(-repeat // pace.batch) for repeat in repeats)
    for turn in range(turns):
        for i, server in enumerate(servers):
            count = min(pace.batch, repeats[i] - turn * pace.batch)
            if count <= 0:
                continue
            if pace.wake:
                call(server)
            ids = ids_of[i]
            before = procstat.cpu_seconds(ids) if ids else 0.0
            for _ in range(count):
                start, own = time.perf_counter(), time.process_time()
                call(server)
                samples[i].append((time.perf_counter() - start) * 1000)
                client[i] += time.process_time() - own
            if ids:
                cpu[i] += procstat.cpu_seconds(ids) - before
    return [Timing(found, cpu[i] if ids_of[i] else None, client[i])
            for i, found in enumerate(samples)]
