"""The service side of the extraction child (`extract_child` documents the protocol).

Each process that extracts keeps one child, started on first use and replaced when it is killed at
its time limit, ends without a reply, retires after running out of memory, or was inherited over a
fork. The child is an ordinary program started with `subprocess`, so this works where
`multiprocessing` may not start children (a Celery prefork worker's process is daemonic) and in a
threaded web server (threads take turns on the one child).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
from pathlib import Path

from ingestion.pipeline.formats import ExtractionFailed

ROOT = Path(__file__).resolve().parents[2]  # where `-m ingestion.pipeline.extract_child` resolves
# The child parses files from outside: it gets what it and its programs need of the environment
# and none of the service's keys and connection strings.
CHILD_ENVIRONMENT = (
    "PATH",
    "HOME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TMPDIR",
    "TESSDATA_PREFIX",
    "OMP_THREAD_LIMIT",
)


class ExtractionChild:
    def __init__(self, *, memory_mb: int) -> None:
        self.memory_mb = memory_mb
        self.owner_pid = os.getpid()
        self.process = subprocess.Popen(  # noqa: S603 - our own module, by the running interpreter
            [sys.executable, "-m", "ingestion.pipeline.extract_child", str(memory_mb)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=ROOT,
            env={name: os.environ[name] for name in CHILD_ENVIRONMENT if name in os.environ},
            # A process group of its own: a kill at the limit takes LibreOffice and Tesseract too.
            start_new_session=True,
        )

    def serves(self, *, memory_mb: int) -> bool:
        return self.owner_pid == os.getpid() and self.memory_mb == memory_mb and self.process.poll() is None

    def exchange(self, *, request: dict, content: bytes, time_limit: float) -> dict:
        """Send one file, wait for its reply; ExtractionFailed when the child gives none in time."""
        try:
            self.process.stdin.write(json.dumps({**request, "size": len(content)}).encode() + b"\n")
            self.process.stdin.write(content)
            self.process.stdin.flush()
        except BrokenPipeError:
            raise self._lost() from None
        ready, _, _ = select.select([self.process.stdout], [], [], time_limit)
        if not ready:
            raise ExtractionFailed("PARSE_ERROR", f"Extraction exceeded its time limit ({time_limit:g} s).")
        line = self.process.stdout.readline()
        if not line:
            raise self._lost()
        return json.loads(line)

    def stop(self) -> None:
        if self.owner_pid != os.getpid():
            return  # the parent's child, inherited over a fork: the parent stops it
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                stream.close()

    def _lost(self) -> ExtractionFailed:
        code = self.process.wait()
        how = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
        return ExtractionFailed(
            "PARSE_ERROR",
            f"Extraction ended without a result ({how}): the file outgrew a limit of the extraction "
            f"process ({self.memory_mb} MB of memory, or its time in CPU seconds) or crashed its parser.",
        )


class _Slot:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.child: ExtractionChild | None = None

    def close(self) -> None:
        if self.child is not None:
            self.child.stop()
            self.child = None


_slot = _Slot()
atexit.register(_slot.close)


def extraction_run(*, kind: str, content: bytes, use_ocr: bool, time_limit: float, memory_mb: int) -> dict:
    """One file through the process's extraction child: the child's reply (see `extract_child`)."""
    with _slot.lock:
        if _slot.child is None or not _slot.child.serves(memory_mb=memory_mb):
            _slot.close()
            _slot.child = ExtractionChild(memory_mb=memory_mb)
        request = {"kind": kind, "use_ocr": use_ocr, "time_limit": time_limit}
        try:
            reply = _slot.child.exchange(request=request, content=content, time_limit=time_limit)
        except BaseException:  # a limit, a crash, or the caller's own interruption mid-exchange
            _slot.close()
            raise
        if reply.get("retire"):
            _slot.close()
        return reply
