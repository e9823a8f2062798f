"""A self-contained HTML page about a dedup run: what it removed, why, and how good it is.

The page has no outside dependencies (inline CSS and JavaScript, SVG plots drawn here): summary
numbers, precision/recall curves from an evaluation (``neardup eval score|sweep --json``), the largest clusters,
and for each duplicate pair a side-by-side view with the differing passages highlighted (difflib) and
the reason (distance, kind, shared sentences). A pair opens on click, or from the address:
``report.html#pair-3``.

>>> html = build_report([{"id": "a", "cluster": "a", "duplicate_of": None, "kind": "new", "distance": None},
...                      {"id": "b", "cluster": "a", "duplicate_of": "a", "kind": "near", "distance": 2}],
...                     texts={"a": "今天天气很好。我们去公园。", "b": "今天天气不错。我们去公园。"})
>>> "pair-0" in html and "<svg" not in html.split("<body>")[0]
True
"""

from __future__ import annotations

import difflib
import html as _html
import json
import os
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from neardup.exceptions import InputError
from neardup.text.sentences import split_sentences

__all__ = ["build_report", "diff_segments", "shared_sentences", "svg_curves", "write_report"]

_TOKEN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[^\W_]+|\s+|[^\w\s]|_", re.UNICODE)
_PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")


def diff_segments(a: str, b: str, max_chars: int = 20000) -> list[list[str]]:
    """The two texts as aligned segments ``[op, text_a, text_b]``, op being equal, replace, delete or
    insert; Chinese is compared character by character, other scripts word by word.

    >>> diff_segments("我们去公园", "我们去商店")
    [['equal', '我们去', '我们去'], ['replace', '公园', '商店']]
    """
    ta, tb = _TOKEN.findall(a[:max_chars]), _TOKEN.findall(b[:max_chars])
    sm = difflib.SequenceMatcher(None, ta, tb, autojunk=False)
    return [[op, "".join(ta[i1:i2]), "".join(tb[j1:j2])] for op, i1, i2, j1, j2 in sm.get_opcodes()]


def _norm_sentence(s: str) -> str:
    return re.sub(r"[\W_]+", "", s).lower()


def shared_sentences(a: str, b: str, min_chars: int = 10, limit: int = 5) -> list[str]:
    """The longest sentences two texts share (compared without punctuation and spaces).

    >>> shared_sentences("我们今天去公园散步了。天气很好。", "天气很好。我们今天去公园散步了！", min_chars=4)
    ['我们今天去公园散步了。', '天气很好。']
    """
    other = {_norm_sentence(s) for s in split_sentences(b)}
    seen: set[str] = set()
    out = []
    for s in split_sentences(a):
        key = _norm_sentence(s)
        if len(key) >= min_chars and key in other and key not in seen:
            seen.add(key)
            out.append(s)
    return sorted(out, key=len, reverse=True)[:limit]


def svg_curves(
    series: Mapping[str, Sequence[tuple[float, float]]],
    *,
    title: str,
    xlabel: str,
    ylabel: str = "",
    y_range: tuple[float, float] = (0.0, 1.0),
    width: int = 420,
    height: int = 260,
) -> str:
    """A line plot as an inline SVG string: one polyline with markers per series, axes and a legend.

    >>> svg_curves({"precision": [(0, 1.0), (3, 0.9)]}, title="t", xlabel="k").startswith("<svg")
    True
    """
    # the legend sits right of the plot: its column is as wide as the longest label (CJK characters
    # count double) and the chart grows to hold every entry, so no label is cut off
    label = max((sum(2 if ord(c) > 0x2E7F else 1 for c in name) for name in series), default=0)
    y0, y1 = y_range
    yticks = [y0 + (y1 - y0) * t / 5 for t in range(6)]
    # counts whole ("1,200"), shares in two digits ("0.8"); the left margin holds the widest tick
    # beside the rotated y label
    ylabels = [f"{y:,.0f}" if abs(y) >= 10 else f"{y:.2g}" for y in yticks]
    left = max(44, (18 if ylabel else 4) + int(6.6 * max(len(t) for t in ylabels)) + 4)
    top, bottom = 26, 36
    right = max(60, 34 + int(label * 6.6) + 8)
    pw = max(120, width - left - 150)
    width = left + pw + right
    height = max(height, top + 10 + 16 * len(series) + bottom)
    ph = height - top - bottom
    xs = [x for pts in series.values() for x, _ in pts]
    x0, x1 = (min(xs), max(xs)) if xs else (0.0, 1.0)
    if x1 == x0:
        x1 = x0 + 1

    def sx(x: float) -> float:
        return left + (x - x0) / (x1 - x0) * pw

    def sy(y: float) -> float:
        y = min(max(y, y0), y1)
        return top + ph - (y - y0) / (y1 - y0) * ph

    esc = _html.escape
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="{_html.escape(FONT_STACK, quote=True)}" '
        'font-size="11" role="img">',
        f'<text x="{left}" y="16" font-size="13" font-weight="bold">{esc(title)}</text>',
        f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="#fff" stroke="#888"/>',
    ]
    for y, tick in zip(yticks, ylabels, strict=True):
        parts.append(f'<line x1="{left}" x2="{left + pw}" y1="{sy(y):.1f}" y2="{sy(y):.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{left - 4}" y="{sy(y) + 4:.1f}" text-anchor="end">{tick}</text>')
    xticks = sorted(set(xs)) if len(set(xs)) <= 12 else [x0 + (x1 - x0) * t / 6 for t in range(7)]
    for x in xticks:
        parts.append(
            f'<text x="{sx(x):.1f}" y="{top + ph + 14}" text-anchor="middle">{float(f"{x:.3g}"):g}</text>'
        )
    parts.append(f'<text x="{left + pw / 2}" y="{height - 4}" text-anchor="middle">{esc(xlabel)}</text>')
    if ylabel:
        parts.append(
            f'<text x="12" y="{top + ph / 2}" transform="rotate(-90 12 {top + ph / 2})" '
            f'text-anchor="middle">{esc(ylabel)}</text>'
        )
    for n, (name, pts) in enumerate(series.items()):
        color = _PALETTE[n % len(_PALETTE)]
        pts = sorted(pts)
        if pts:
            path = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in pts)
            parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{path}"/>')
            parts += [f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="2.5" fill="{color}"/>' for x, y in pts]
        ly = top + 10 + 16 * n
        parts.append(
            f'<line x1="{left + pw + 8}" x2="{left + pw + 24}" y1="{ly}" y2="{ly}" stroke="{color}" '
            f'stroke-width="2"/><text x="{left + pw + 28}" y="{ly + 4}">{esc(name)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


_EVAL_WRITERS = "neardup eval score|sweep --json"
_JSON_TYPES = {list: "an array", str: "a string", bool: "true or false", int: "a number", float: "a number"}


def _eval_sections(settings: Mapping[str, Any] | None, eval_data: Any, source: str | None) -> tuple[str, str]:
    """The settings and quality sections; InputError naming ``source`` (the ``--eval`` file) when
    ``eval_data`` is not what ``neardup eval score|sweep --json`` writes."""
    what = "the evaluation" if source else "the evaluation given with --eval"
    if eval_data is not None and not isinstance(eval_data, Mapping):
        got = _JSON_TYPES.get(type(eval_data), type(eval_data).__name__)
        raise InputError(f"{what} must be a JSON object as {_EVAL_WRITERS} writes, got {got}", source=source)
    if eval_data is not None and _scored_nothing(eval_data):
        raise InputError(
            f"{what} scored no document (its truth was empty, or its documents were); score the run "
            "again with neardup eval score --json, which refuses such input",
            source=source,
        )
    try:
        return _settings_html(settings, eval_data), _curves_html(eval_data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        why = f"no field {exc}" if isinstance(exc, KeyError) else str(exc)
        raise InputError(
            f"{what} does not hold the fields {_EVAL_WRITERS} writes ({why}); pass the JSON it writes",
            source=source,
        ) from None


def _scored_nothing(eval_data: Mapping[str, Any]) -> bool:
    """True for an evaluation of no document (written before ``neardup eval`` refused an empty
    truth or input): its perfect scores would be shown as this run's quality.

    >>> _scored_nothing({"clusters": {"overall": {"docs": 0}}}), _scored_nothing({"documents": 3})
    (True, False)
    """
    scored = eval_data.get("clusters")
    overall = scored.get("overall") if isinstance(scored, Mapping) else None
    if isinstance(overall, Mapping) and overall.get("docs") == 0:
        return True
    return eval_data.get("documents") == 0


def _curves_html(eval_data: Mapping[str, Any] | None) -> str:
    if not eval_data:
        return (
            '<p class="muted">No evaluation given (run <code>neardup eval score|sweep --json</code> and pass '
            "<code>--eval</code>).</p>"
        )
    out = []
    rows = eval_data.get("rows") or []
    by_method: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        by_method[str(r["method"])].append(r)
    for method, rs in by_method.items():
        xlabel = (
            "n (sentences)"
            if method == "nshash"
            else "cosine threshold"
            if method == "cosine"
            else "k (bits)"
        )
        series = {
            name: [(float(r["param"]), float(r[key] if r[key] is not None else 0)) for r in rs]
            for name, key in (
                ("precision", "precision"),
                ("recall", "recall"),
                ("F1", "f1"),
                ("P on hard neg.", "hn_precision"),
            )
        }
        out.append(f'<figure class="plot">{svg_curves(series, title=method, xlabel=xlabel)}</figure>')
    if by_method:
        pr = {m: [(float(r["recall"]), float(r["precision"])) for r in rs] for m, rs in by_method.items()}
        out.append(
            f'<figure class="plot">{svg_curves(pr, title="precision against recall", xlabel="recall", width=560)}'
            "</figure>"
        )
    scored = eval_data.get("clusters")
    if scored:
        dup = scored["duplicates"]
        out.insert(
            0,
            "<p>This run against the truth file: precision <b>{:.4f}</b>, recall <b>{:.4f}</b>, F1 "
            "<b>{:.4f}</b> on duplicate pairs; precision on hard negatives <b>{:.4f}</b>.</p>".format(
                dup["precision"], dup["recall"], dup["f1"], scored.get("hn_precision", 1.0)
            ),
        )
    default = eval_data.get("default")
    if default:
        out.insert(
            0,
            f"<p>Best setting by F1 with precision on hard negatives &ge; 0.99: "
            f"<b>{_html.escape(str(default['method']))}</b> at {default['param']:g} "
            f"(F1 {default['f1']:.4f}).</p>",
        )
    text = "".join(x for x in out if x.startswith("<p>"))
    plots = "".join(x for x in out if not x.startswith("<p>"))
    return text + (
        f'<div class="plots">{plots}</div>'
        if plots
        else '<p class="muted">The evaluation holds no curves.</p>'
    )


#: fonts with Chinese glyphs first after the system UI font (Debian: fonts-noto-cjk), so Chinese
#: text is never drawn as empty boxes where a CJK font is installed
FONT_STACK = (
    'system-ui,-apple-system,"Segoe UI","Noto Sans CJK SC","Noto Sans SC","Source Han Sans SC",'
    '"PingFang SC","Microsoft YaHei","WenQuanYi Micro Hei",sans-serif'
)


def _settings_html(settings: Mapping[str, Any] | None, eval_data: Mapping[str, Any] | None) -> str:
    """The run's settings as a two-column table, or a note saying where they would come from.

    >>> "<td>max_distance</td><td>8</td>" in _settings_html({"max_distance": 8}, None)
    True
    >>> "pass <code>--eval</code>" in _settings_html(None, {"clusters": {}})  # given: never asked for
    False
    """
    esc = _html.escape
    note = ""
    if settings is None and eval_data and isinstance(eval_data.get("engine"), Mapping):
        settings = eval_data["engine"]
        note = '<p class="muted">Settings of the evaluated run (from <code>--eval</code>).</p>'
    if not settings and eval_data:
        return (
            '<p class="muted">The evaluation given with <code>--eval</code> records no engine settings '
            "(it scored a dedup output or single-signal methods); the dedup output does not record its "
            "own. <code>neardup eval score --documents</code> runs the engine and records them.</p>"
        )
    if not settings:
        return (
            '<p class="muted">The dedup output does not record its settings; pass <code>--eval</code> '
            "with the JSON of <code>neardup eval score --documents</code> to print the evaluated run's.</p>"
        )
    rows = "".join(
        f"<tr><td>{esc(str(k))}</td><td>{esc(json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v)}</td></tr>"
        for k, v in settings.items()
    )
    return f'{note}<table class="settings">{rows}</table>'


_CSS = """
body{font:14px/1.45 FONTS;margin:0;color:#222;background:#fafafa}"""
_CSS_REST = """
header{background:#263238;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}
main{padding:8px 24px 40px;max-width:1400px}
section{background:#fff;border:1px solid #ddd;border-radius:6px;margin:16px 0;padding:10px 16px}
h2{font-size:16px;margin:6px 0 10px}.muted{color:#777}
.cards{display:flex;flex-wrap:wrap;gap:10px}.card{border:1px solid #ddd;border-radius:6px;padding:8px 14px;min-width:110px}
.card b{display:block;font-size:20px}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #eee;padding:3px 8px;text-align:left;vertical-align:top}
tr.pair{cursor:pointer}tr.pair:hover{background:#eef5ff}tr.sel{background:#dcebff}
.plots{display:flex;flex-wrap:wrap;gap:8px}figure.plot{margin:0}
#pairview .cols{display:grid;grid-template-columns:1fr 1fr;gap:12px}
#pairview .doc{white-space:pre-wrap;border:1px solid #ddd;border-radius:4px;padding:8px;max-height:520px;overflow:auto;background:#fcfcfc}
.del{background:#ffd7d5;text-decoration:none}.ins{background:#d4f7d4}.chg{background:#fff1b8}
.reason li{margin:2px 0}code{background:#f2f2f2;padding:0 3px;border-radius:3px}
.scroll{max-height:420px;overflow:auto}
table.settings{width:auto}table.settings td:first-child{color:#555}
"""
_CSS = (_CSS + _CSS_REST).replace("FONTS", FONT_STACK)

_JS = r"""
(function(){
  "use strict";
  var data = JSON.parse(document.getElementById("neardup-data").textContent);
  function el(tag, cls, text){var e=document.createElement(tag); if(cls) e.className=cls; if(text!==undefined&&text!==null) e.textContent=String(text); return e;}
  function showPair(idx){
    var view=document.getElementById("pairview"); var p=data.pairs[idx];
    var rows=document.querySelectorAll("tr.pair");
    for(var r=0;r<rows.length;r++){rows[r].classList.toggle("sel", rows[r].getAttribute("data-pair")===String(idx));}
    view.innerHTML="";
    if(!p){view.appendChild(el("p","muted","No pair number "+idx+".")); return;}
    view.appendChild(el("h2",null,"Pair "+idx+": "+p.a+"  \u2194  "+p.b));
    var ul=el("ul","reason");
    ul.appendChild(el("li",null,"kind: "+(p.kind||"?")+(p.distance!==null&&p.distance!==undefined?", distance: "+p.distance+" bits":"")));
    if(p.similarity!==null&&p.similarity!==undefined) ul.appendChild(el("li",null,"text similarity (difflib ratio): "+p.similarity.toFixed(3)));
    if(p.shared && p.shared.length){var li=el("li",null,"shared sentences ("+p.shared.length+"): "); var inner=el("ul"); p.shared.forEach(function(s){inner.appendChild(el("li",null,s));}); li.appendChild(inner); ul.appendChild(li);}
    else ul.appendChild(el("li",null,"shared sentences: none of 10+ characters"));
    view.appendChild(ul);
    if(!p.segments){view.appendChild(el("p","muted","Texts not included (pass --texts INPUT to neardup report).")); return;}
    var cols=el("div","cols"); var left=el("div","doc"); var right=el("div","doc");
    left.id="pair-left"; right.id="pair-right";
    p.segments.forEach(function(s){
      var op=s[0];
      if(op==="equal"){left.appendChild(document.createTextNode(s[1])); right.appendChild(document.createTextNode(s[2]));}
      else{ if(s[1]) left.appendChild(el("span", op==="replace"?"chg":"del", s[1])); if(s[2]) right.appendChild(el("span", op==="replace"?"chg":"ins", s[2])); }
    });
    var la=el("div"); la.appendChild(el("h3",null,p.a+" (kept)")); la.appendChild(left);
    var rb=el("div"); rb.appendChild(el("h3",null,p.b+" (duplicate)")); rb.appendChild(right);
    cols.appendChild(la); cols.appendChild(rb); view.appendChild(cols);
    view.setAttribute("data-shown", String(idx));
  }
  function fromHash(){var m=/^#pair-(\d+)$/.exec(window.location.hash); if(m){showPair(parseInt(m[1],10)); var v=document.getElementById("pairview"); if(v.scrollIntoView) v.scrollIntoView();}}
  var rows=document.querySelectorAll("tr.pair");
  for(var i=0;i<rows.length;i++){rows[i].addEventListener("click", function(ev){var n=this.getAttribute("data-pair"); if(window.location.hash!=="#pair-"+n){window.location.hash="pair-"+n;} else {showPair(parseInt(n,10));} ev.preventDefault();});}
  window.addEventListener("hashchange", fromHash);
  fromHash();
  document.body.setAttribute("data-ready","1");
})();
"""


def _summary(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    clusters = Counter(str(r.get("cluster")) for r in records)
    kinds = Counter(str(r.get("kind") or "?") for r in records if r.get("duplicate_of") is not None)
    return {
        "documents": len(records),
        "clusters": len(clusters),
        "duplicates": sum(1 for r in records if r.get("duplicate_of") is not None),
        "multi_clusters": sum(1 for c in clusters.values() if c > 1),
        "largest_cluster": max(clusters.values()) if clusters else 0,
        "by_kind": dict(kinds.most_common()),
    }


def _pairs(
    recs: Sequence[Mapping[str, Any]], texts: Mapping[str, str] | None, max_pairs: int, max_chars: int
) -> list[dict[str, Any]]:
    """One pair per duplicate (kept, duplicate); the first ``max_pairs`` carry their diff."""
    pairs: list[dict[str, Any]] = []
    for r in recs:
        if r.get("duplicate_of") is None:
            continue
        a, b = str(r["duplicate_of"]), str(r["id"])
        p: dict[str, Any] = {
            "a": a,
            "b": b,
            "kind": r.get("kind"),
            "distance": r.get("distance"),
            "cluster": str(r.get("cluster")),
        }
        if texts is not None and len(pairs) < max_pairs and a in texts and b in texts:
            ta, tb = texts[a][:max_chars], texts[b][:max_chars]
            p["segments"] = diff_segments(ta, tb, max_chars)
            p["shared"] = shared_sentences(ta, tb)
            equal = sum(len(s[1]) for s in p["segments"] if s[0] == "equal")
            p["similarity"] = 2 * equal / max(1, len(ta) + len(tb))
        pairs.append(p)
    return pairs


def _clusters_html(
    recs: Sequence[Mapping[str, Any]], texts: Mapping[str, str] | None, max_clusters: int
) -> str:
    """The largest clusters: size, members and the start of the first document's text."""
    esc = _html.escape
    members: dict[str, list[str]] = defaultdict(list)
    for r in recs:
        members[str(r.get("cluster"))].append(str(r["id"]))
    top = sorted(members.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:max_clusters]
    top = [kv for kv in top if len(kv[1]) > 1]
    crow = []
    for cid, ids in top:
        snippet = esc((texts or {}).get(cid, "")[:80].replace("\n", " "))
        shown = ", ".join(esc(i) for i in ids[:12]) + (f" … (+{len(ids) - 12})" if len(ids) > 12 else "")
        crow.append(f"<tr><td>{esc(cid)}</td><td>{len(ids)}</td><td>{shown}</td><td>{snippet}</td></tr>")
    if not crow:
        return '<p class="muted">No cluster has more than one document.</p>'
    return (
        "<table><tr><th>cluster</th><th>size</th><th>members</th><th>text of the first</th></tr>"
        + "".join(crow)
        + "</table>"
    )


def _pairs_html(pairs: Sequence[Mapping[str, Any]], max_pairs: int) -> str:
    """The table of duplicate pairs; a row opens the side-by-side view."""
    esc = _html.escape
    prow = []
    for n, p in enumerate(pairs[:max_pairs]):
        dist = "" if p["distance"] is None else str(p["distance"])
        prow.append(
            f'<tr class="pair" data-pair="{n}" id="row-{n}"><td><a href="#pair-{n}">pair-{n}</a></td>'
            f"<td>{esc(p['a'])}</td><td>{esc(p['b'])}</td><td>{esc(str(p['kind']))}</td><td>{esc(dist)}</td></tr>"
        )
    if not prow:
        return '<p class="muted">No duplicates in this run.</p>'
    more = (
        f'<p class="muted">{len(pairs) - max_pairs} more pairs not listed.</p>'
        if len(pairs) > max_pairs
        else ""
    )
    return (
        '<div class="scroll"><table><tr><th>pair</th><th>kept</th><th>duplicate</th><th>kind</th>'
        "<th>distance</th></tr>" + "".join(prow) + "</table></div>" + more
    )


def _settings_changes_html(changes: Any) -> str:
    """What each --strictness / --profile would change (``neardup.dedup.rethreshold``): a plot of the
    documents merged against strictness, one line per profile, and the table ``neardup rethreshold``
    prints."""
    if changes is None:
        return (
            '<p class="muted">Not computed: <code>neardup report</code> decides the stored pairs again '
            "at each setting (<code>--strictness</code>); <code>neardup rethreshold</code> prints the same.</p>"
        )
    d = changes.to_dict() if hasattr(changes, "to_dict") else dict(changes)
    esc = _html.escape
    outcomes = d.get("outcomes") or []
    series: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for o in outcomes:
        # another profile's counts a run cannot support (a caveat) are plotted apart, marked
        name = f"merged, {o['profile']}" + (" (*: see below)" if o.get("caveat") else "")
        series[name].append((float(o["strictness"]), float(o["merged"])))
    top = max((o["merged"] for o in outcomes), default=1) or 1
    step = 10 ** max(0, len(str(int(top * 1.1))) - 1)
    top = -(-int(top * 1.1) // step) * step  # a round top: 484 -> 500
    plot = ""
    if any(len(v) > 1 for v in series.values()):
        plot = svg_curves(
            series,
            title="documents merged at each strictness",
            xlabel="strictness (0 loosest, 1 strictest)",
            y_range=(0.0, float(top)),
        )
    rows = "".join(
        f"<tr><td>{esc(str(o['profile']))}</td><td>{o['strictness']:g}{' (run)' if o.get('run') else ''}</td>"
        f"<td>{o['merged']:,}{'*' if o.get('caveat') else ''}</td><td>{o['kept']:,}</td><td>{o['merged_to_kept']:,}</td>"
        f"<td>{o['kept_to_merged']:,}</td><td>"
        + esc(", ".join(f"{k} {v:,}" for k, v in (o.get("changes") or {}).items()) or "-")
        + "</td></tr>"
        for o in outcomes
    )
    note = (
        f'<p class="muted">{d.get("text_pairs", 0):,} stored pairs decided by the text rule were decided '
        f"again at each setting ({d.get('reproduced', 0):,} of them as the run did at its own setting, "
        f"{esc(str(d.get('run_profile')))} {d.get('run_strictness', 0.5):g}); "
        f"{d.get('fixed_pairs', 0):,} exact or content copies no setting moves"
        + (
            f"; {d['incomplete']:,} pairs lack the decision fields and are left as they are"
            if d.get("incomplete")
            else ""
        )
        + ". Only one pair per document is stored and knock-on effects are not followed: "
        "merged&rarr;kept tends to count too many, kept&rarr;merged too few (docs/dedup.md).</p>"
    )
    caveats = {o["profile"]: o["caveat"] for o in outcomes if o.get("caveat")}
    note += "".join(
        f'<p class="muted">* {esc(str(profile))} from a {esc(str(d.get("run_profile")))} run: {esc(str(c))}</p>'
        for profile, c in caveats.items()
    )
    return (
        plot
        + "<table><tr><th>profile</th><th>strictness</th><th>merged</th><th>kept</th><th>merged&rarr;kept</th>"
        "<th>kept&rarr;merged</th><th>changes (documents)</th></tr>" + rows + "</table>" + note
    )


def build_report(
    records: Iterable[Mapping[str, Any]],
    texts: Mapping[str, str] | None = None,
    eval_data: Mapping[str, Any] | None = None,
    *,
    title: str = "neardup report",
    max_pairs: int = 500,
    max_clusters: int = 20,
    max_chars: int = 20000,
    settings: Mapping[str, Any] | None = None,
    settings_changes: Any = None,
    eval_source: str | None = None,
) -> str:
    """The HTML page for dedup output ``records`` (id, cluster, duplicate_of, kind, distance).

    ``texts`` (id -> text) enables the side-by-side pair view; ``eval_data`` (the JSON object of
    ``neardup eval score|sweep --json``, read from ``eval_source``, which an InputError about it
    names) adds the curves. Only the first ``max_pairs`` pairs carry their texts.
    ``settings`` (the run's engine settings) are printed; without them, those of the evaluated run
    in ``eval_data`` (its ``engine``). ``settings_changes`` (a ``neardup.dedup.rethreshold.Rethreshold``
    or its ``to_dict()``) adds what each --strictness and --profile would change.
    """
    settings_html, curves_html = _eval_sections(settings, eval_data, eval_source)
    recs = list(records)
    summ = _summary(recs)
    esc = _html.escape
    pairs = _pairs(recs, texts, max_pairs, max_chars)
    cards = "".join(
        f'<div class="card"><b>{v}</b>{esc(k.replace("_", " "))}</div>'
        for k, v in summ.items()
        if k != "by_kind"
    )
    kinds = ", ".join(f"{esc(k)}: {v}" for k, v in summ["by_kind"].items()) or "none"
    clusters_html = _clusters_html(recs, texts, max_clusters)
    pairs_html = _pairs_html(pairs, max_pairs)
    payload = json.dumps({"pairs": pairs[:max_pairs], "summary": summ}, ensure_ascii=False)
    payload = payload.replace("<", "\\u003c")  # nothing in the data can close or open a tag
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)}</title><style>{_CSS}</style></head>
<body>
<header><h1>{esc(title)}</h1><div>generated {when} by neardup</div></header>
<main>
<section id="summary"><h2>Summary</h2><div class="cards">{cards}</div><p>Duplicates by kind: {kinds}</p></section>
<section id="settings"><h2>Settings</h2>{settings_html}</section>
<section id="strictness"><h2>What each setting would change</h2>{_settings_changes_html(settings_changes)}</section>
<section id="quality"><h2>Quality</h2>{curves_html}</section>
<section id="clusters"><h2>Largest clusters</h2>{clusters_html}</section>
<section id="pairs"><h2>Duplicate pairs</h2><p class="muted">Click a pair to compare the two texts; changed
passages are yellow, removed red, added green.</p>{pairs_html}</section>
<section id="pairview"><p class="muted">No pair selected.</p></section>
</main>
<script type="application/json" id="neardup-data">{payload}</script>
<script>{_JS}</script>
</body></html>
"""


def write_report(
    path: str | os.PathLike[str],
    records: Iterable[Mapping[str, Any]],
    texts: Mapping[str, str] | None = None,
    eval_data: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> None:
    """Build the page (see :func:`build_report`) and write it atomically."""
    from neardup.io import atomic_write

    page = build_report(records, texts, eval_data, **kwargs)
    with atomic_write(path, "w") as fh:
        fh.write(page)
