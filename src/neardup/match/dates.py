"""Record dates as day numbers, what the engine compares to tell two occasions apart.

A record's date (the field ``MatchConfig.keep_field``, ``date`` by default) is read from its
text form: an ISO date or date-time (``2020-02-01``, ``2020-02-01T08:00:00Z``), the same with
``/`` or ``.``, a compact ``20200201``, ``2020年2月1日``, or Unix time in seconds (10 digits) or
milliseconds (13 digits). Anything else is an unknown date, which never decides anything.

>>> day_number("2020-02-01") - day_number("20200131")
1
>>> day_number("2020年2月1日") == day_number("2020/2/1 08:00")
True
>>> day_number("yesterday") == NO_DAY, day_number(None) == NO_DAY
(True, True)
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup.match.config import MatchConfig

__all__ = ["NO_DAY", "day_date", "day_number", "days_of", "reads_dates"]

#: the day number of a record without a readable date
NO_DAY = int(np.iinfo(np.int32).min)

_EPOCH = _dt.date(1970, 1, 1).toordinal()
_SEPARATED = re.compile(r"\s*(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})(?!\d)")
_COMPACT = re.compile(r"\s*(\d{4})(\d{2})(\d{2})(?!\d)")
_UNIX = re.compile(r"\s*(\d{10}|\d{13})(?:\.\d*)?\s*")


def day_date(day: int) -> str | None:
    """The ISO date of a day number, None for ``NO_DAY`` (or a day no calendar date holds).

    >>> day_date(day_number("2024-03-05")), day_date(NO_DAY)
    ('2024-03-05', None)
    """
    try:
        return _dt.date.fromordinal(day + _EPOCH).isoformat()
    except (ValueError, OverflowError):
        return None


def day_number(value: Any) -> int:
    """Days since 1970-01-01 of a record's date value, ``NO_DAY`` when it is not a date."""
    if value is None or isinstance(value, bool):
        return NO_DAY
    if isinstance(value, _dt.datetime):
        return value.date().toordinal() - _EPOCH
    if isinstance(value, _dt.date):
        return value.toordinal() - _EPOCH
    text = str(value)
    m = _SEPARATED.match(text) or _COMPACT.match(text)
    if m:
        try:
            return _dt.date(int(m[1]), int(m[2]), int(m[3])).toordinal() - _EPOCH
        except ValueError:
            return NO_DAY
    m = _UNIX.fullmatch(text)
    if m:
        seconds = int(m[1]) // (1000 if len(m[1]) == 13 else 1)
        return seconds // 86400
    return NO_DAY


def days_of(values: Sequence[Any] | None, n: int) -> npt.NDArray[np.int32]:
    """The day numbers of ``n`` records' date values (``None``: no dates, all unknown)."""
    if values is None:
        return np.full(n, NO_DAY, np.int32)
    return np.fromiter((day_number(v) for v in values), np.int32, count=n)


def reads_dates(config: MatchConfig) -> bool:
    """Whether the engine compares records' dates under ``config`` (the news profile, with
    ``occasion_days`` set): what readers of the records must then collect."""
    return config.profile == "news" and config.occasion_days > 0
