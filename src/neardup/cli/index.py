"""``neardup index``: build and inspect the corpus index that ``neardup dedup --against`` reads.

neardup index build corpus/ -o corpus.idx
neardup index info corpus.idx
"""

from __future__ import annotations

import time
from typing import Any

import click
import numpy as np
import orjson

from neardup.cli._common import (
    Feedback,
    InputFields,
    feedback_options,
    input_fields,
    inputs_argument,
    min_chars_option,
    output_option,
    plural,
    printable,
)
from neardup.cli.dedup import build_config, engine_options, format_summary
from neardup.io import ReadStats

__all__ = ["index_group"]


@click.group("index")
def index_group() -> None:
    """Build and inspect a corpus index (ids and match-engine signatures, config header)."""


@index_group.command("build")
@inputs_argument
@output_option("The index directory to create.", name="output", type=click.Path(file_okay=False))
@input_fields
@min_chars_option
@engine_options
@click.option(
    "--dedup",
    "dedup_first",
    is_flag=True,
    help="Keep only each cluster's kept copy (the match engine, as neardup dedup).",
)
@click.option("--force", is_flag=True, help="Replace an existing index at --output.")
@feedback_options
def build_cmd(
    inputs: tuple[str, ...],
    output: str,
    fields: InputFields,
    engine: dict[str, Any],
    dedup_first: bool,
    force: bool,
    feedback: Feedback,
) -> None:
    """Sign a corpus into a new index directory (the match engine's signature of every document)."""
    from neardup.dedup.fingerprints import fingerprint_records
    from neardup.dedup.index import CorpusIndex
    from neardup.dedup.local import dedup_fingerprints

    t0 = time.perf_counter()
    config = build_config(**engine)
    with feedback.run("index build", inputs) as progress:
        records = progress.reading(fields.records(inputs, stats=ReadStats()))
        fps = fingerprint_records(records, config, on_chunk=progress.signed)
        total = len(fps)
        result = dedup_fingerprints(fps, config) if dedup_first else None
        progress.matched(total)
    if result is not None:
        fps = fps.take(np.flatnonzero(result.keep))
        feedback.summary(format_summary(result.summary(), time.perf_counter() - t0))
    index = CorpusIndex.create(output, config, fps, overwrite=force)
    feedback.summary(
        f"neardup index build: {plural(len(index), 'document')} (of {total:,} read) in {output}, "
        f"{index.disk_bytes() / 1e6:.1f} MB, {time.perf_counter() - t0:.1f} s"
    )


@index_group.command("info")
@click.argument("index_dir", type=click.Path(file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--verify",
    is_flag=True,
    help="Also read every part: checksums and row counts (exit 2 with one line at the first damage).",
)
def info_cmd(index_dir: str, as_json: bool, verify: bool) -> None:
    """Show an index: documents, segments, size, fingerprint settings."""
    from neardup.dedup.index import CorpusIndex

    index = CorpusIndex.open(index_dir)
    info = index.info()
    if verify:
        t0 = time.perf_counter()
        parts = index.verify()
        info["verified"] = {
            "parts": len(parts),
            "rows": sum(p["rows"] for p in parts),
            "checksummed": sum(p["checked"] == "xxh3" for p in parts),
            "seconds": round(time.perf_counter() - t0, 3),
        }
    if as_json:
        click.echo(orjson.dumps(info).decode())
        return
    st = info["settings"]
    click.echo(f"{printable(info['path'])}: {info['format']} v{info['version']}")
    click.echo(
        f"  documents  {info['documents']:,} in {plural(info['segments'], 'segment')}, "
        f"{info['disk_bytes'] / 1e6:.1f} MB"
    )
    click.echo(
        f"  signatures {st.get('engine')}: token {st.get('shingle')}-grams, sketch of {st.get('sketch_size')}, "
        f"{st.get('max_numbers')} number facts, extractor {st.get('extractor')}"
    )
    if info.get("updated"):
        click.echo(f"  updated    {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(info['updated']))} UTC")
    if info["days_unknown"]:
        click.echo(
            f"  days       unknown for {info['days_unknown']:,} documents (segments of version 3): "
            "they are matched by their texts alone"
        )
    if "verified" in info:
        v = info["verified"]
        click.echo(
            f"  verified   {plural(v['parts'], 'part')}, {plural(v['rows'], 'row')}, {v['checksummed']} by xxh3 checksum, "
            f"{v['seconds']:.2f} s: OK"
        )
    elif not info["checksums"]:
        click.echo("  checksums  none (a segment from a remote Spark merge): rows checked only")
