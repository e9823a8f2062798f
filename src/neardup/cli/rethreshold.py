"""``neardup rethreshold``: what each ``--strictness`` and ``--profile`` would have changed in a
finished dedup output, from the evidence stored in its rows, without signing or matching again.

neardup dedup news.jsonl.gz --out clusters.jsonl
neardup rethreshold clusters.jsonl --strictness 0.2,0.5,0.8
"""

from __future__ import annotations

import os

import click

from neardup.cli._common import FINITE_FLOAT, compact_json
from neardup.exceptions import InputError
from neardup.match.config import PROFILES

__all__ = ["rethreshold_cmd"]


@click.command("rethreshold")
@click.argument("output", type=click.Path(dir_okay=False))
@click.option(
    "--strictness",
    default="0,0.25,0.5,0.75,1",
    show_default=True,
    help="Strictness values to try, separated by commas (0 loosest, 1 strictest).",
)
@click.option(
    "--profile",
    "profiles",
    default=",".join(PROFILES),
    show_default=True,
    help="Profiles to try, separated by commas (news, corpus).",
)
@click.option(
    "--run-strictness",
    type=FINITE_FLOAT,
    default=0.5,
    show_default=True,
    help="The --strictness the output was made with.",
)
@click.option(
    "--run-profile",
    type=click.Choice(list(PROFILES)),
    default="news",
    show_default=True,
    help="The --profile the output was made with.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the counts as one JSON object.")
def rethreshold_cmd(
    output: str, strictness: str, profiles: str, run_strictness: float, run_profile: str, as_json: bool
) -> None:
    """Show, for each setting, how many documents of OUTPUT (the file of `neardup dedup --out`)
    would change kind: merged into another's cluster or kept, and between kinds (near, contained,
    partial, layout, template, unique).

    Each document's stored pair is decided again by the engine's own rule. Only that one pair is
    stored, so merged->kept tends to count too many and kept->merged too few (docs/dedup.md).
    Another profile than the run's may need pairs the run never stored: its merged counts are
    marked * and a note says why (`caveat` in --json).
    """
    from neardup.dedup.rethreshold import format_rethreshold, parse_strictness, read_rows, rethreshold

    values = parse_strictness(strictness)
    names = [p.strip() for p in profiles.split(",") if p.strip()]
    if output != "-" and not os.path.exists(output):  # worded as every other command words it
        raise InputError("no such file", source=output)
    result = rethreshold(
        read_rows(output),
        values,
        names,
        run_profile=run_profile,
        run_strictness=run_strictness,
        source=output,
    )
    if as_json:
        click.echo(compact_json(result.to_dict()))
    else:
        click.echo(format_rethreshold(result))
