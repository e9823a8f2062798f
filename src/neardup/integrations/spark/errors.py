"""Spark's failures said in one line: a file Spark cannot read names the file and what is wrong
(``InputError``), a Python worker that died says so (``SparkJobError``), an error raised by neardup in
an executor comes back as its own message. Java stack traces and raw Parquet bytes stay out."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from neardup.exceptions import InputError, NeardupError

__all__ = ["SparkJobError", "spark_errors"]


class SparkJobError(NeardupError):
    """The Spark job failed for a reason that is not in the input (a worker died, a cluster
    problem); the message says what Spark reported, in one line."""


_FILE = re.compile(
    r"(?:reading file|footer for file:?|file)\s+((?:file|hdfs|s3a?|gs|abfss?|wasbs?):\S+?)\.?(?:\s|$|\])"
)
_DIED = (
    "Python worker exited unexpectedly",
    "PythonWorkerExited",
    "Python worker failed to connect back",
    "crashed",
)


def _messages(exc: BaseException) -> list[str]:
    """The messages of the exception and of its Java causes, outermost first, one line each."""
    out = [str(exc)]
    throwable = getattr(exc, "_origin", None) or getattr(exc, "java_exception", None)
    seen = 0
    while throwable is not None and seen < 20:
        try:
            out.append(str(throwable.toString()))
            throwable = throwable.getCause()
        except Exception:  # the JVM is gone: what we have is all there is
            break
        seen += 1
    return out


def _first_line(text: str) -> str:
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("JVM stacktrace", "at ", "Traceback")):
            return line
    return text.strip()


def _python_error(text: str) -> str | None:
    """The last line of a Python traceback carried by a PythonException."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for line in reversed(lines):
        m = re.match(r"^(?:[\w.]+\.)?(\w+(?:Error|Exception|Dependency|Timeout)): (.*)$", line)
        if m:
            return f"{m.group(1)}: {m.group(2)}"
    return None


def _strip_class(line: str) -> str:
    """``org.apache.spark.SparkException: message`` -> ``message``."""
    m = re.match(r"^[\w.$]+(?:Exception|Error): (.+)$", line)
    return m.group(1) if m else line


def _reason(messages: Sequence[str]) -> str:
    """The innermost cause's first line, without Java class names where a message follows."""
    for text in reversed(messages):
        line = _first_line(text)
        if line:
            return _strip_class(line)
    return "unknown error"


def translate(exc: BaseException, sources: dict[str, str]) -> NeardupError:
    """A Spark (py4j, pyspark) exception as one neardup error with a one-line message."""
    from neardup.integrations.spark.documents import file_key

    messages = _messages(exc)
    text = "\n".join(messages)
    cls = type(exc).__name__
    if cls == "PythonException" or "PythonException" in text:
        for m in messages:
            got = _python_error(m)
            if got is not None:
                name, _, msg = got.partition(": ")
                if name in ("InputError", "ConfigError", "FormatError", "StoreError", "MissingDependency"):
                    from neardup import exceptions

                    err: NeardupError = getattr(exceptions, name)(msg)
                    return err
                return SparkJobError(f"a Spark Python worker failed: {got}")
    died = next((ln.strip() for ln in text.splitlines() if any(d in ln for d in _DIED)), None)
    if died is not None:
        return SparkJobError(
            "a Spark Python worker died (killed, or out of memory: raise "
            "spark.executor.memoryOverhead or spark.executor.pyspark.memory, or use more partitions); "
            f"Spark says: {_strip_class(died)[:300]}"
        )
    found = _FILE.search(text)
    if found is not None:
        path = found.group(1)
        source = sources.get(file_key(path), file_key(path).removeprefix("file:"))
        reason = _reason(messages)
        if "Parquet" in text or source.endswith(".parquet"):
            return InputError(f"is not a readable Parquet file ({reason[:300]})", source=source)
        return InputError(f"cannot read: {reason[:300]}", source=source)
    if "CANNOT_MERGE" in text or "Failed to merge" in text:
        return InputError(
            f"the Parquet inputs' schemas do not agree ({_reason(messages)[:300]}); read them separately"
        )
    return SparkJobError(f"the Spark job failed: {_first_line(messages[0])[:300]}")


@contextmanager
def spark_errors(files: Sequence[Any] = ()) -> Iterator[None]:
    """Raise Spark's failures inside the block as one-line neardup errors (``translate``);
    ``files`` (``InputFile``) name the input files as the user gave them."""
    try:
        yield
    except NeardupError:
        raise
    except Exception as exc:
        if not _is_spark_error(exc):
            raise
        from neardup.integrations.spark.documents import file_key

        raise translate(exc, {file_key(f.uri): f.source for f in files}) from None


def _is_spark_error(exc: BaseException) -> bool:
    names = {c.__name__ for c in type(exc).__mro__}
    module = type(exc).__module__
    return bool(
        names & {"Py4JJavaError", "Py4JError", "PySparkException", "CapturedException"}
        or module.startswith(("pyspark", "py4j"))
    )
