"""What another ``--strictness`` or ``--profile`` would have changed, from a finished dedup output.

Every output row of ``neardup dedup`` carries the evidence of the pair its document was verified
against (``evidence.against``): the sketches' similarity and containment and, when both texts were
read, the text evidence the decision rests on (what each text adds to the other, ``chars`` of each,
the longest shared passage, repeated substitutions, ``quoted`` shared text, ``occasion``,
``leads``, ``blocks``, ``pieces``, ``alike``). The one
knob (``MatchConfig.strictness`` and ``profile``) moves only the text rule's thresholds, so each
stored pair is decided again here by the engine's own rule (``neardup.match.verify.decide_text``
with ``thresholds(MatchConfig(profile=..., strictness=...))``), without signing or matching
anything again (as semhash's ``rethreshold``).

What is exact and what is not:

- the decision of each **stored pair** at each setting is exact (the engine's function on the
  engine's numbers). The run's own setting is decided again too, and every stored pair must come
  out as the run decided it (``reproduced``); a pair that does not (another run setting than the
  one given) is left as it was;
- only **one pair per document** is stored, so the counts are estimates. A stricter setting that
  undoes a document's stored merge counts it as leaving its cluster, though the engine might have
  merged it through another candidate (``merged -> kept`` tends to count too many). A looser
  setting is seen only through the pairs stored for kept documents (their partial or layout
  relation): a document the run found unique against every candidate stores no pair, and a pair
  that was never a candidate is never read (``kept -> merged`` tends to count too few);
- knock-on effects are not followed: a document that merged at one setting and not at another
  changes which documents later ones are checked against (a document that joins a cluster is no
  longer one a later document can merge with), so neither count is a strict bound (docs/dedup.md
  compares them with real runs);
- **another profile** than the run's needs pairs the run may not have stored. The news profile
  decides a copy told on another's template (another occasion or subject on one text, or records
  dated more than ``occasion_days`` apart) before it stores a pair, and stores it only with
  ``report_templates``, where the corpus profile merges it; a corpus run's rows hold no dates,
  which the news profile reads. Those rows carry a ``caveat`` saying so. A template row whose
  texts alone relate the pair is one the run's dates made a template: it is decided again as
  the corpus profile reads it (no dates), and stays a template at news settings while the texts
  still relate the pair (``dated``).

Pairs without text evidence (exact and content copies, signatures stored without text profiles)
are decided by the sketches, whose thresholds no setting moves: they never change.

>>> r = rethreshold([{"id": "a", "cluster": "a", "duplicate_of": None, "kind": "unique"}], [0.5], ["news"])
>>> r.documents, r.outcomes[0].merged
(1, 0)
"""

from __future__ import annotations

import operator
import textwrap
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from neardup.exceptions import ConfigError, InputError
from neardup.match.config import PROFILES, MatchConfig
from neardup.match.engine import TEXT_COLS
from neardup.match.kernels import decide_text, text_evidence_rows
from neardup.match.text import EVIDENCE_SIZE, ROW_FIELDS
from neardup.match.verify import CONTAINED, KINDS, LAYOUT, NEAR, PARTIAL, TEMPLATE, thresholds

__all__ = [
    "DECISION_FIELDS",
    "Rethreshold",
    "SettingOutcome",
    "decision_rows",
    "format_rethreshold",
    "parse_strictness",
    "read_rows",
    "rethreshold",
]

#: the text evidence fields a row needs besides ``adds``, ``passage`` and ``repeated`` for the
#: text rule to be decided again exactly
DECISION_FIELDS = (
    "chars",
    "quoted",
    "occasion",
    "occasion_replaced",
    "reactions",
    "leads",
    "blocks",
    "pieces",
    "alike",
    "substitutions",
    "substituted",
)
#: row kinds of documents that joined another document's cluster
_JOINED = {"exact", "content", "near", "contained", "supersedes"}
_MERGE_CODES = (NEAR, CONTAINED)
#: the text rule's verdicts that the news profile makes a template when the records' dates are
#: more than ``occasion_days`` apart (``neardup.match.verify.occasions_apart``)
_RELATED_CODES = (NEAR, CONTAINED, PARTIAL, LAYOUT)


def decision_rows(result: Any) -> Iterator[dict[str, Any]]:
    """The rows of a ``DedupResult`` (``DedupResult.rows()``) with the text evidence the engine
    computed for each stored pair and does not keep: ``chars`` (each text's length, in the text
    evidence's units: a CJK character is 1, another token 5), ``quoted`` (shared text each side
    sets on quoted lines), ``occasion`` (both hold a year, date or edition the other lacks),
    ``occasion_replaced`` (one such number stands in place of the other's, 第59次 / 第61次, or
    each text's lead names a session or a day of its own, the other's lead another: with
    ``occasion`` false; or the shorter text tells another phase of a visit than the longer: 将于 /
    离京 in its own words),
    ``reactions`` (one text is, in its own words, the reactions to what the other reports: 反响),
    ``leads`` (each text's own text before the first shared token), ``blocks`` (each text's
    longest run of its own), ``pieces`` (the shared runs each holds), ``alike`` (text of the
    substitutions made alike in two or more places), ``substitutions`` (short spans replaced by
    other short spans) and ``substituted`` (each side's text in them).
    They are the pass's own, kept in the result's text columns; a result without them (its text
    array of four columns) has them read again from the two texts' profiles, still in memory."""
    c = result.clusters
    sigs = result.sigs if result.sigs is not None else result.fps.sigs
    cfg = result.config
    rows = result.rows()
    start, end = result.n_prefix, result.n_prefix + len(result)

    def block(lo: int) -> tuple[list[bool], list[list[int]]]:
        # a row has text evidence ("adds") exactly when it has a partner and the engine read the
        # pair's text; the block's pairs are read in one call (C, two threads, a partner's windows
        # made once a thread)
        hi = min(lo + _ROWS_AT_ONCE, end)
        partner = np.asarray(c.partner[lo:hi], np.int64)
        has = partner >= 0
        if c.text is not None:
            has &= np.asarray(c.text[lo:hi, 0]) >= 0
        else:
            has[:] = False
        todo = np.flatnonzero(has)
        evs: list[list[int]] = []
        if todo.size and c.text is not None and c.text.shape[1] == TEXT_COLS:
            evs = np.asarray(c.text[lo:hi])[todo, 4:].tolist()  # as the pass read them
        elif todo.size:
            with np.errstate(over="ignore"):  # hash arithmetic wraps around on purpose
                evs = text_evidence_rows(
                    sigs.prof_ptr,
                    sigs.prof,
                    todo + lo,
                    partner[todo],
                    cfg.text_window_cjk,
                    cfg.text_window_latin,
                )[:, ROW_FIELDS].tolist()
        return has.tolist(), evs

    # the next block's evidence is read by a thread (the C call releases the interpreter's lock)
    # while this block's rows are made and written
    with ThreadPoolExecutor(1, thread_name_prefix="neardup-rows") as ex:
        ahead = ex.submit(block, start) if start < end else None
        for lo in range(start, end, _ROWS_AT_ONCE):
            assert ahead is not None
            flags, evs = ahead.result()
            nxt = lo + _ROWS_AT_ONCE
            ahead = ex.submit(block, nxt) if nxt < end else None
            k = 0
            for flag in flags:
                row = next(rows)
                if flag:
                    t = evs[k]
                    k += 1
                    ev = row["evidence"]
                    ev["chars"] = [t[0], t[1]]
                    ev["quoted"] = [t[2], t[3]]
                    ev["occasion"] = t[4] in (1, 2)
                    ev["occasion_replaced"] = t[4] in (2, 4)
                    ev["reactions"] = t[4] == 3
                    ev["leads"] = [t[5], t[6]]
                    ev["blocks"] = [t[7], t[8]]
                    ev["pieces"] = [t[9], t[10]]
                    ev["alike"] = t[11]
                    ev["substitutions"] = t[12]
                    ev["substituted"] = [t[13], t[14]]
                yield row


#: rows whose text evidence is read in one call (at most 160 bytes a row of int64 evidence)
_ROWS_AT_ONCE = 1 << 14


def parse_strictness(spec: str) -> list[float]:
    """``"0.2,0.5,0.8"`` -> [0.2, 0.5, 0.8], each between 0 and 1.

    >>> parse_strictness("0, .25,1")
    [0.0, 0.25, 1.0]
    """
    out: list[float] = []
    for part in spec.split(","):
        try:
            v = float(part)
        except ValueError:
            raise ConfigError(
                f"--strictness takes numbers between 0 and 1 separated by commas, got {spec!r}"
            ) from None
        if not 0.0 <= v <= 1.0:
            raise ConfigError(f"strictness must be between 0 and 1, got {v:g}")
        out.append(v)
    return sorted(set(out))


@dataclass
class SettingOutcome:
    """The documents at one setting: merged into another's cluster or kept, and what changed."""

    profile: str
    strictness: float
    merged: int
    kept: int
    merged_to_kept: int = 0  # estimates (see the module's notes): this one tends to count too many,
    kept_to_merged: int = 0  # ... this one too few
    changes: dict[str, int] = field(default_factory=dict)  # "near -> partial": documents
    run: bool = False  # the run's own setting
    # why the output cannot support this setting's counts within docs/dedup.md's figures (another
    # profile than the run's: the pairs it needs were never stored, or read what the rows lack);
    # None when it can
    caveat: str | None = None


@dataclass
class Rethreshold:
    """What each setting would change: counts of the stored pairs, then one outcome per setting."""

    source: str
    documents: int
    run_profile: str
    run_strictness: float
    pairs: int = 0  # documents with a stored pair
    text_pairs: int = 0  # ... decided by the text rule, decided again here
    fixed_pairs: int = 0  # ... decided by keys or sketches (no setting moves them)
    incomplete: int = 0  # ... text pairs without the decision fields (an older output): left as they are
    reproduced: int = 0  # text pairs the run's setting decides as the run did
    dated: int = 0  # ... of them templates only by their records' dates (news), which corpus does not read
    held: int = 0  # ... the text rule merges them, the cluster rules did not (left as they are)
    not_reproduced: int = 0  # ... decided otherwise than the run did (left as they are)
    templates: int = 0  # rows of kind template: the run reported templates (--report-templates)
    outcomes: list[SettingOutcome] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class _Pair:
    joined: bool
    kind: str  # the engine's kind for the document at the run's setting
    ev: np.ndarray | None = None
    same_layout: bool = False
    partner_rep: bool = True
    cmax: float = 0.0
    state: str = "fixed"  # fixed, incomplete, reproduced, dated, held, not_reproduced


#: counts the text rule reads are below this (its arithmetic is on int64; a text's units, 5 a word,
#: stay far below it)
_COUNT_LIMIT = 2**31
#: the evidence fields the text rule needs (the two flags may be absent: false); a row without one
#: of them (null in Parquet) is an older output's, left as it is
_REQUIRED = (
    "adds",
    "passage",
    "repeated",
    *(f for f in DECISION_FIELDS if f not in ("occasion_replaced", "reactions")),
)


class _BadField(Exception):
    """A field of a row's evidence holds what no dedup output writes."""

    def __init__(self, name: str, expected: str, got: Any) -> None:
        super().__init__(name)
        self.name = name
        self.expected = expected
        self.got = got


def _as_count(v: Any) -> int | None:
    """``v`` as a count the text rule reads, or None when it is not one."""
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    try:
        n = operator.index(v)
    except TypeError:
        return None
    return n if 0 <= n < _COUNT_LIMIT else None


def _count(ev: dict[str, Any], name: str) -> int:
    n = _as_count(ev[name])
    if n is None:
        raise _BadField(name, "a non-negative integer below 2**31", ev[name])
    return n


def _counts(ev: dict[str, Any], name: str) -> tuple[int, int]:
    v = ev[name]
    if isinstance(v, list | tuple) and len(v) == 2:
        a, b = _as_count(v[0]), _as_count(v[1])
        if a is not None and b is not None:
            return a, b
    raise _BadField(name, "two non-negative integers below 2**31", v)


def _flag(ev: dict[str, Any], name: str) -> bool:
    v = ev.get(name)
    if v is None or isinstance(v, bool):
        return bool(v)
    raise _BadField(name, "true or false", v)


def _shares(ev: dict[str, Any], name: str) -> float:
    """The larger of two shares (0 when the field is absent)."""
    v = ev.get(name)
    if v is None:
        return 0.0
    if isinstance(v, list | tuple) and len(v) == 2 and all(_is_share(x) for x in v):
        return float(max(v))
    raise _BadField(name, "two numbers between 0 and 1", v)


def _is_share(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and 0 <= x <= 1


def _ev_array(ev: dict[str, Any]) -> np.ndarray | None:
    """The text evidence array (``neardup.match.text.text_evidence``'s layout) of a row's
    evidence, or None when it lacks a field the rule reads; _BadField when a field holds what
    no dedup output writes."""
    if any(ev.get(name) is None for name in _REQUIRED):
        return None
    # 3: the reactions to what the other reports; 2: an occasion named in the other's place;
    # 1: each holds an occasion the other lacks; 4: each lead names an occasion of its own
    replaced = _flag(ev, "occasion_replaced")
    if _flag(ev, "reactions"):
        occasion = 3
    elif _flag(ev, "occasion"):
        occasion = 2 if replaced else 1
    else:
        occasion = 4 if replaced else 0
    out = np.array(
        [
            *_counts(ev, "adds"),  # 0, 1
            *_counts(ev, "chars"),  # 2, 3
            _count(ev, "passage"),  # 4
            _count(ev, "substitutions"),  # 5
            _count(ev, "repeated"),  # 6
            0,  # 7: not kept in the rows (the rule does not read it)
            occasion,  # 8
            *_counts(ev, "quoted"),  # 9, 10
            *_counts(ev, "leads"),  # 11, 12
            *_counts(ev, "blocks"),  # 13, 14
            *_counts(ev, "pieces"),  # 15, 16
            _count(ev, "alike"),  # 17
            *_counts(ev, "substituted"),  # 18, 19
        ],
        np.int64,
    )
    assert out.shape[0] == EVIDENCE_SIZE
    return out


def _shown(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


def _observed_kind(row: dict[str, Any]) -> str:
    kind = str(row.get("kind"))
    if kind == "supersedes":
        return "contained"
    if kind in _JOINED or kind in ("partial", "layout", "template"):
        return kind
    if kind == "first" and row.get("evidence") and not row.get("related_to"):
        return "near"  # a merged copy the keep rule kept: near or contained (decided below)
    if kind == "superseded" and row.get("related_to"):
        return "partial"
    return "unique"


def _joined(row: dict[str, Any]) -> bool:
    kind = row.get("kind")
    return kind in _JOINED or (kind == "first" and bool(row.get("evidence")) and not row.get("related_to"))


def _joins(p: _Pair, code: int) -> bool:
    """Whether a document whose stored pair is decided ``code`` joins the partner's cluster: through
    a representative (a kept document, or a corpus one) on any merging verdict; through a member of
    the cluster (the partner itself joined one) on a near verdict or a contained copy that adds no
    more than the member; a relation to a member that the run did not merge never merges."""
    if code not in _MERGE_CODES:
        return False
    if p.partner_rep:
        return True
    assert p.ev is not None
    return p.joined and (code == NEAR or p.ev[0] <= p.ev[1])


def _unmerged(code: int, p: _Pair, th: np.ndarray) -> str:
    """The kind of a pair that cannot merge: a merging verdict is only a partial relation then."""
    if code in _MERGE_CODES:
        if p.cmax < th[3]:
            return "unique"
        return "layout" if p.same_layout else "partial"
    return KINDS[code]


def rethreshold(
    rows: Iterable[dict[str, Any]],
    strictness: Sequence[float],
    profiles: Sequence[str] = PROFILES,
    *,
    run_profile: str = "news",
    run_strictness: float = 0.5,
    source: str = "",
) -> Rethreshold:
    """Decide each stored pair of a dedup output (rows of ``neardup dedup --out``) again at every
    ``profile`` x ``strictness`` and count the documents that would change (see the module's notes
    for what is exact). ``run_*``: the setting the output was made with."""
    for name in (*profiles, run_profile):
        if name not in PROFILES:
            raise ConfigError(f"profile must be one of {', '.join(PROFILES)}, got {name!r}")
    MatchConfig(profile=run_profile, strictness=run_strictness)  # type: ignore[arg-type]  # checks them
    docs: list[dict[str, Any]] = [r for r in rows if r.get("kind") != "indexed"]
    # templates are reported only when the run asked for it; a template row says it did
    templates = sum(r.get("kind") == "template" for r in docs)
    report = templates > 0

    def th_of(profile: str, s: float) -> np.ndarray:
        return thresholds(
            MatchConfig(profile=profile, strictness=s, report_templates=report)  # type: ignore[arg-type]
        )

    base_th = th_of(run_profile, run_strictness)
    dated = bool(base_th[24] > 0)  # the run read the records' dates (news): occasions_apart
    joined = {str(r.get("id")): _joined(r) for r in docs}
    out = Rethreshold(
        source=source,
        documents=len(docs),
        run_profile=run_profile,
        run_strictness=run_strictness,
        templates=templates,
    )
    pairs: list[_Pair] = []
    for r in docs:
        ev = r.get("evidence")
        p = _Pair(joined=_joined(r), kind=_observed_kind(r))
        pairs.append(p)
        if ev is None:
            continue
        if not isinstance(ev, dict):
            raise InputError(
                f"row {str(r.get('id'))!r}: 'evidence' must be an object, got {type(ev).__name__}",
                source=source or None,
                field="evidence",
            )
        out.pairs += 1
        if ev.get("adds") is None:
            out.fixed_pairs += 1
            continue
        out.text_pairs += 1
        try:
            arr = _ev_array(ev)
            if arr is not None:
                p.same_layout = _flag(ev, "same_layout")
                p.cmax = _shares(ev, "containment")
        except _BadField as bad:
            raise InputError(
                f"row {str(r.get('id'))!r}: evidence.{bad.name} must hold {bad.expected} (as neardup "
                f"dedup writes it), got {_shown(bad.got)}; run neardup dedup again to remake the file",
                source=source or None,
                field=f"evidence.{bad.name}",
            ) from None
        if arr is None:
            p.state = "incomplete"
            out.incomplete += 1
            continue
        p.ev = arr
        p.partner_rep = not joined.get(str(ev.get("against")), False)  # a corpus document is a representative
        code = int(decide_text(NEAR, arr, p.same_layout, base_th))
        if dated and p.kind == "template" and code in _RELATED_CODES:
            # the texts alone relate the pair and the run made it a template: only the records'
            # dates, more than occasion_days apart, do that (the run's profile reads them)
            p.state = "dated"
            out.reproduced += 1
            out.dated += 1
        elif _joins(p, code) == p.joined:
            p.state = "reproduced"
            out.reproduced += 1
            p.kind = KINDS[code] if p.joined else _unmerged(code, p, base_th)
        elif code == CONTAINED and arr[0] > arr[1] and not p.joined:
            # a fuller copy the engine did not merge: another fuller copy already held the
            # partner's cluster (the engine's state, not the pair); no setting changes that
            p.state = "held"
            out.held += 1
        else:
            p.state = "not_reproduced"
            out.not_reproduced += 1
    settings = sorted(
        {(pr, float(s)) for pr in profiles for s in strictness} | {(run_profile, run_strictness)}
    )
    for profile, s in settings:
        th = th_of(profile, s)
        merged = 0
        m2k = k2m = 0
        changes: Counter[str] = Counter()
        for p in pairs:
            now_joined, now_kind = p.joined, p.kind
            if p.state in ("reproduced", "dated"):
                assert p.ev is not None
                code = int(decide_text(NEAR, p.ev, p.same_layout, th))
                if p.state == "dated" and th[24] > 0 and code in _RELATED_CODES:
                    code = TEMPLATE  # the dates still part them (reported: this output holds templates)
                now_joined = _joins(p, code)
                now_kind = KINDS[code] if now_joined else _unmerged(code, p, th)
            merged += now_joined
            if now_joined != p.joined:
                if p.joined:
                    m2k += 1
                else:
                    k2m += 1
            if now_kind != p.kind:
                changes[f"{p.kind} -> {now_kind}"] += 1
        out.outcomes.append(
            SettingOutcome(
                profile=profile,
                strictness=s,
                merged=merged,
                kept=len(pairs) - merged,
                merged_to_kept=m2k,
                kept_to_merged=k2m,
                changes=dict(changes.most_common()),
                run=(profile, s) == (run_profile, run_strictness),
                caveat=_caveat(run_profile, profile, report),
            )
        )
    return out


def _caveat(run_profile: str, profile: str, report: bool) -> str | None:
    """Why a run at ``run_profile`` cannot estimate ``profile``'s counts as closely as its own
    (docs/dedup.md measures both), or None. The news profile decides a template (another occasion
    or subject told on one text, or records dated more than ``occasion_days`` apart) before any
    pair is stored, and stores it only with ``report_templates``; the corpus profile merges those
    pairs, and its rows carry no dates for the news profile to read."""
    if profile == run_profile:
        return None
    if run_profile == "news" and not report:
        return (
            "a news run without --report-templates (this output has no template rows) stores no pair "
            "for a copy told on another's template, which corpus merges: merged can be far too low "
            "(measured in docs/dedup.md); run neardup dedup --report-templates to store those pairs"
        )
    if run_profile == "news":
        return (
            "one pair per document, the one news reported: corpus merges some documents through "
            "another, or through a pair news decides unique (a quote, a reaction): merged tends to be "
            "low (measured in docs/dedup.md)"
        )
    return (
        "the rows hold no dates: records dated more than occasion_days apart, which news never "
        "merges, count as merged: merged can be far too high when the records carry dates "
        "(measured in docs/dedup.md)"
    )


_NOTES = (
    "Each stored pair is decided again exactly, but only one pair per document is stored and "
    "knock-on effects on later documents are not followed: merged -> kept tends to count too many "
    "(another candidate may still merge the document), kept -> merged too few (a document found "
    "unique stores no pair; pairs that were never candidates are never read). docs/dedup.md "
    "compares both with real runs."
)


def format_rethreshold(r: Rethreshold) -> str:
    """The table ``neardup rethreshold`` prints."""
    run = f"{r.run_profile}, strictness {r.run_strictness:g}"
    lines = [
        f"neardup rethreshold: {r.source + ': ' if r.source else ''}{r.documents:,} documents, "
        f"{r.pairs:,} with a stored pair ({r.text_pairs:,} decided by the text rule, "
        f"{r.fixed_pairs:,} by keys or sketches, which no setting moves)",
        f"  the run's setting ({run}) decides {r.reproduced:,} of {r.text_pairs:,} text pairs as the run did"
        + (
            f" ({r.dated:,} of them templates by their records' dates, which corpus does not read)"
            if r.dated
            else ""
        )
        + (
            f"; {r.held:,} fuller {'copy' if r.held == 1 else 'copies'} held apart because the cluster had one "
            "(left as they are)"
            if r.held
            else ""
        ),
    ]
    if r.incomplete:
        lines.append(
            f"  {r.incomplete:,} pairs lack the decision fields ({', '.join(DECISION_FIELDS)}: an output of "
            "an older neardup or of Spark) and are left as they are; run neardup dedup again to decide them"
        )
    if r.not_reproduced:
        lines.append(
            f"  {r.not_reproduced:,} pairs come out otherwise than the run decided them (was the run made "
            "with another --profile or --strictness? pass --run-profile / --run-strictness); left as they are"
        )
    header = (
        "profile",
        "strictness",
        "merged",
        "kept",
        "merged->kept",
        "kept->merged",
        "changes (documents)",
    )
    table = [header]
    for o in r.outcomes:
        changes = ", ".join(f"{k} {v:,}" for k, v in o.changes.items()) or "-"
        table.append(
            (
                o.profile,
                f"{o.strictness:g}" + (" (run)" if o.run else ""),
                f"{o.merged:,}" + ("*" if o.caveat else ""),
                f"{o.kept:,}",
                f"{o.merged_to_kept:,}",
                f"{o.kept_to_merged:,}",
                changes,
            )
        )
    widths = [max(len(row[i]) for row in table) for i in range(len(header) - 1)]
    for row in table:
        lines.append("  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=False)) + "  " + row[-1])
    caveats = {o.profile: o.caveat for o in r.outcomes if o.caveat}
    for profile, caveat in caveats.items():
        lines.append(f"  * {profile} from a {r.run_profile} run: {caveat}")
    lines.append(textwrap.fill(_NOTES, 100, initial_indent="  ", subsequent_indent="  "))
    return "\n".join(lines)


def read_rows(path: str) -> Iterator[dict[str, Any]]:
    """The rows of a ``neardup dedup --out`` file (JSONL, JSONL.gz or Parquet); a row without
    ``id`` and ``kind``, or a file that is not one, is an InputError naming it."""
    from neardup.exceptions import InputError
    from neardup.io import iter_json_objects

    if str(path).endswith((".parquet", ".pq")):
        from neardup._deps import require

        pq = require("pyarrow.parquet", "parquet", purpose="reading Parquet")
        try:
            batches = pq.ParquetFile(path).iter_batches()
            n = 0
            for batch in batches:
                for row in batch.to_pylist():
                    n += 1
                    _check_row(row, path, n)
                    yield row
        except OSError:
            raise
        except InputError:
            raise
        except Exception as exc:  # pyarrow raises several unrelated types for a bad file
            raise InputError(
                f"not a readable Parquet file ({type(exc).__name__}: {exc})", source=path
            ) from None
        return
    for lineno, row in iter_json_objects(path):
        _check_row(row, path, lineno)
        yield row


def _check_row(row: dict[str, Any], path: str, line: int) -> None:
    from neardup.exceptions import InputError

    if "id" not in row or "kind" not in row:
        raise InputError(
            "not a neardup dedup output row (it needs 'id' and 'kind'; pass the file of dedup --out)",
            source=path,
            line=line,
        )
    ev = row.get("evidence")
    if ev is not None and not isinstance(ev, dict):
        raise InputError(f"'evidence' must be an object, got {type(ev).__name__}", source=path, line=line)
