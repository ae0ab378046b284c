"""The extraction child: `python -m ingestion.pipeline.extract_child MEMORY_MB`.

It serves one file after another over its standard input and output, so that the interpreter and
the parsing libraries load once per child, not once per file. Protocol, one request at a time:

- request (stdin): one JSON line `{"kind": "docx", "use_ocr": false, "size": N, "time_limit": 60.0}`
  followed by the file's N bytes;
- reply (stdout): one JSON line, `{"text": "...", "retire": false}` or `{"error_type":
  "PARSE_ERROR", "message": "...", "retire": false}`; with `retire` true the child exits after
  replying (it ran out of memory, or came near its limit).

The child runs under an address-space limit of MEMORY_MB (`resource.RLIMIT_AS`, which programs it
starts, such as LibreOffice and Tesseract, inherit) and a CPU-time limit per file, so that even a
child whose parent died stops. The parent (`extract_process`) enforces the wall-clock limit. The
child ends at the end of its input. Only the standard library and `readers`' lazy imports load here.
"""

from __future__ import annotations

import json
import logging
import os
import resource
import sys
import warnings

from ingestion.pipeline.formats import ExtractionFailed
from ingestion.pipeline.readers import text_read


def main() -> None:
    memory_mb = int(sys.argv[1])
    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    requests, replies = _protocol_streams()
    # Parsers warn about every oddity of a file; the reply says what matters.
    logging.basicConfig(level=logging.ERROR)
    warnings.simplefilter("ignore")
    while header := requests.readline():
        request = json.loads(header)
        content = requests.read(request["size"])
        _cpu_limit(request["time_limit"])
        reply = _serve(request, content, memory_mb)
        # A child that came near its limit retires, so the next file starts far from it (and a
        # peak at the limit always belongs to the file that reached it: see _serve).
        reply["retire"] = reply.get("retire", False) or _near_limit(memory_mb)
        replies.write(json.dumps(reply, ensure_ascii=False).encode("utf-8") + b"\n")
        replies.flush()
        if reply.get("retire"):
            return


def _protocol_streams():
    """The request and reply pipes, moved off descriptors 0 and 1: whatever a library prints, or
    a program it starts reads, never mixes with the protocol."""
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    return requests, replies


def _cpu_limit(seconds: float) -> None:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = int(usage.ru_utime + usage.ru_stime + seconds) + 2
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _serve(request: dict, content: bytes, memory_mb: int) -> dict:
    try:
        text = text_read(kind=request["kind"], content=content, use_ocr=request["use_ocr"])
    except ExtractionFailed as failure:
        return _failed(failure.error_type, failure.message)
    except MemoryError:
        return _out_of_memory(memory_mb)
    except UnicodeError as error:
        return _failed("ENCODING_ERROR", f"Undecodable text: {error}")
    except Exception as error:  # a parser's own complaint: the file is corrupt or not what it claims
        cause = f"{type(error).__name__}: {error}"
        if _near_limit(memory_mb):
            return _out_of_memory(memory_mb, cause)
        return _failed("PARSE_ERROR", f"The file could not be parsed: {cause}")
    # Text that any database and JSON encoder take: no NUL characters, no lone surrogates.
    return {"text": text.replace("\x00", "").encode("utf-8", "replace").decode("utf-8")}


def _failed(error_type: str, message: str, *, retire: bool = False) -> dict:
    return {"error_type": error_type, "message": message[:500], "retire": retire}


def _out_of_memory(memory_mb: int, cause: str = "") -> dict:
    # Retired: after a refused allocation a library's state is not to be trusted.
    message = f"Extraction exceeded its memory limit ({memory_mb} MB)." + (f" {cause}" if cause else "")
    return _failed("PARSE_ERROR", message, retire=True)


def _near_limit(memory_mb: int) -> bool:
    """Whether the most address space this process has held came within 5 % of its limit. Parsers
    written in C (libxml2 under python-docx, openpyxl and BeautifulSoup) report a refused
    allocation as an error of their own, not as MemoryError; a peak at the limit tells that error
    apart from a corrupt file."""
    with open("/proc/self/status") as status:
        peak_kb = next(int(line.split()[1]) for line in status if line.startswith("VmPeak:"))
    return peak_kb / 1024 >= 0.95 * memory_mb


if __name__ == "__main__":
    main()
