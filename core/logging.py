"""One JSON object a line, with the request id, and a last pass that removes anything secret-shaped.

Code must not log secrets in the first place; the redaction below is the safety net, applied to the
whole rendered line (message, arguments and traceback alike).
"""

from __future__ import annotations

import json
import logging
import re

from core.api.request_id import current_request_id

_SECRET_PATTERNS = [
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]+"), r"\1 [redacted]"),
    (re.compile(r"\bak_(live|test)_[A-Za-z0-9_\-]+"), r"ak_\1_[redacted]"),
    (re.compile(r"\b(oat|sa_secret|cs)_[A-Za-z0-9_\-]{8,}"), r"\1_[redacted]"),
    (re.compile(r"\beyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]*"), "[redacted-jwt]"),
    (
        re.compile(
            r"(?i)([\"']?(?:authorization|x-api-key|api_?key|password|passwd|secret|client_secret|api_token|"
            r"access_?token|refresh_?token|token|private_?key|key)[\"']?\s*[:=]\s*)([\"']?)[^\s\"',}]+"
        ),
        r"\1\2[redacted]",
    ),
]


def redact(text: str) -> str:
    for pattern, replacement in _SECRET_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = current_request_id()
        return True


_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "request_id"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "msg": redact(record.getMessage()),
            "request_id": getattr(record, "request_id", None),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                plain = value if isinstance(value, int | float | bool | None) else redact(str(value))
                entry[key] = plain
        if record.exc_info:
            entry["exc"] = redact(self.formatException(record.exc_info))
        return json.dumps(entry, default=str)

    converter = __import__("time").gmtime
