"""Run one command and report its wall time and peak RSS: ``spawn.py OUT ARGV...``.

The command's standard output goes to the file OUT (created or emptied); its standard error is
this process's. One JSON line on this process's standard output says
``{"wall_s": ..., "maxrss_kb": ..., "exit_code": ...}``.

run.py starts every measured command through this small launcher instead of starting it itself:
on Linux a new process's peak RSS (``ru_maxrss``) starts at the peak of the process that started
it, so a command started by run.py (which has built the corpora and holds the results) would
never report less than run.py's own size. Started from here, with ``python -I -S``, the floor
is about that of ``python -c pass``. For the same reason this file imports only ``os``, ``sys``,
``time`` and ``threading`` and calls ``os.posix_spawn`` rather than importing ``subprocess``.
While the command runs, a thread sums the resident memory of the command and its worker
processes every 50 ms: with ``-j`` the memory of the whole run, which ``ru_maxrss`` (one
process) does not give.
"""

import os
import sys
import threading
import time

#: how often the resident memory of the command and its workers is summed
SAMPLE_S = 0.05


def tree_rss_kb(root: int) -> int:
    """The resident memory of ``root`` and every process below it, in KB (Linux /proc)."""
    parent: dict[int, int] = {}
    rss: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        pid = int(name)
        parent[pid] = int(fields[1])  # field 4, ppid
        rss[pid] = int(fields[21])  # field 24, rss in pages
    total = 0
    for pid, pages in rss.items():
        at = pid
        while at > 1 and at != root:
            at = parent.get(at, 0)
        if at == root:
            total += pages
    return total * (os.sysconf("SC_PAGE_SIZE") // 1024)


def main() -> int:
    out, *argv = sys.argv[1:]
    actions = [(os.POSIX_SPAWN_OPEN, 1, out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)]
    started = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
    done = threading.Event()
    highest = [0]

    def sample() -> None:
        while not done.wait(SAMPLE_S):
            highest[0] = max(highest[0], tree_rss_kb(pid))

    if os.path.isdir("/proc"):
        threading.Thread(target=sample, daemon=True).start()
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - started
    done.set()
    code = os.waitstatus_to_exitcode(status)
    # ru_maxrss: kilobytes on Linux, the largest of the process and the children it waited for;
    # tree: the largest sum over the process and its workers, sampled (0 if it ended first)
    sys.stdout.write(
        f'{{"wall_s": {wall!r}, "maxrss_kb": {usage.ru_maxrss}, "tree_kb": {highest[0]}, '
        f'"exit_code": {code}}}\n'
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
