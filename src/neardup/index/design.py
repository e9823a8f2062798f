"""Block splits ("designs") for the permuted-table Hamming index (Manku et al., seeds 001 and 004).

Split the ``bits`` of a fingerprint into ``b`` blocks. Two fingerprints that differ in at most ``k``
bits differ in at most ``k`` blocks, so at least ``m = b - k`` blocks agree exactly (pigeonhole).
One sorted table per choice of ``m`` key blocks (``C(b, m)`` tables) therefore finds every neighbour:
in at least one table the query's key equals the neighbour's key.

>>> d = Design.parse("16,12,12,12,12", bits=64, max_distance=3)
>>> d.n_tables, d.key_bits
(10, (28, 28, 28, 28, 24, 24, 24, 24, 24, 24))
>>> Design.parse("4x16", bits=64, max_distance=3).n_tables
4
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup.exceptions import ConfigError

__all__ = ["MAX_TABLES", "Design", "auto_design", "design_for_tables"]

MAX_TABLES = 128

U64 = npt.NDArray[np.uint64]


@dataclass(frozen=True)
class Design:
    """A block split of ``bits`` and the key-block combinations (one sorted table each).

    Table 0 always keys on the first ``m`` blocks in their original order, so its permutation is
    the identity and its sorted values double as the index's sorted fingerprints.
    """

    bits: int
    max_distance: int
    blocks: tuple[int, ...]
    combos: tuple[tuple[int, ...], ...]

    @classmethod
    def parse(cls, spec: str | list[int] | tuple[int, ...], *, bits: int, max_distance: int) -> Design:
        """Parse ``"4x16"``, ``"16,12,12,12,12"`` or a list of block widths (most significant first)."""
        if bits not in (32, 64):
            raise ConfigError(f"bits must be 32 or 64, got {bits!r}")
        if isinstance(max_distance, bool) or not isinstance(max_distance, int) or max_distance < 0:
            raise ConfigError(f"max_distance must be an integer >= 0, got {max_distance!r}")
        blocks = _parse_blocks(spec, bits)
        b = len(blocks)
        if max_distance >= b:
            raise ConfigError(
                f"design {spec!r} has {b} blocks, which cannot guarantee every neighbour within "
                f"max_distance={max_distance} (expected more than {max_distance} blocks, got {b}): "
                f"use at least {max_distance + 1} blocks, e.g. design='auto'"
            )
        m = b - max_distance
        n_tables = math.comb(b, m)
        if n_tables > MAX_TABLES:
            raise ConfigError(
                f"design {spec!r} with max_distance={max_distance} needs C({b},{m}) = {n_tables} tables "
                f"(expected at most {MAX_TABLES}): use fewer blocks"
            )
        combos = tuple(itertools.combinations(range(b), m))
        return cls(bits=bits, max_distance=max_distance, blocks=blocks, combos=combos)

    # --- derived ---------------------------------------------------------------------------------
    @property
    def n_tables(self) -> int:
        return len(self.combos)

    @property
    def n_blocks(self) -> int:
        return len(self.blocks)

    @property
    def key_bits(self) -> tuple[int, ...]:
        return tuple(sum(self.blocks[i] for i in c) for c in self.combos)

    @property
    def spec(self) -> str:
        """Canonical text form: ``"16,16,16,16"``."""
        return ",".join(map(str, self.blocks))

    def to_dict(self) -> dict[str, Any]:
        return {"bits": self.bits, "max_distance": self.max_distance, "blocks": list(self.blocks)}

    def block_shifts(self) -> tuple[npt.NDArray[np.int64], U64]:
        """Right shift and mask of each block in the original fingerprint."""
        shifts, masks = [], []
        top = 0
        for w in self.blocks:
            shifts.append(self.bits - top - w)
            masks.append((1 << w) - 1)
            top += w
        return np.array(shifts, dtype=np.int64), np.array(masks, dtype=np.uint64)

    def permutations(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], U64]:
        """Per table and block: source shift, destination shift, mask (key blocks lead).

        ``permuted = OR_j ((fp >> src[t, j]) & mask[t, j]) << dst[t, j]``; the inverse swaps src and dst.
        """
        b = self.n_blocks
        src_all, masks_all = self.block_shifts()
        src = np.zeros((self.n_tables, b), dtype=np.int64)
        dst = np.zeros((self.n_tables, b), dtype=np.int64)
        msk = np.zeros((self.n_tables, b), dtype=np.uint64)
        for t, combo in enumerate(self.combos):
            order = list(combo) + [i for i in range(b) if i not in combo]
            top = 0
            for j, blk in enumerate(order):
                w = self.blocks[blk]
                src[t, j] = src_all[blk]
                dst[t, j] = self.bits - top - w
                msk[t, j] = masks_all[blk]
                top += w
        return src, dst, msk

    def first_table(self) -> npt.NDArray[np.int16]:
        """For each set of exactly-equal blocks (bit mask), the first table whose key blocks all match.

        A pair is reported only from that table, so no pair is reported twice. -1: no table matches.
        """
        b = self.n_blocks
        out = np.full(1 << b, -1, dtype=np.int16)
        combo_masks = [sum(1 << i for i in c) for c in self.combos]
        for eq in range(1 << b):
            for t, cm in enumerate(combo_masks):
                if eq & cm == cm:
                    out[eq] = t
                    break
        return out


def _parse_blocks(spec: str | list[int] | tuple[int, ...], bits: int) -> tuple[int, ...]:
    hint = "expected 'auto', 'NxW' (e.g. '4x16') or widths like '16,12,12,12,12' summing to bits"
    blocks: list[int]
    try:
        if isinstance(spec, str):
            s = spec.replace(" ", "").lower()
            if "x" in s:
                n, w = s.split("x")
                blocks = [int(w)] * int(n)
            else:
                blocks = [int(p) for p in s.split(",") if p]
        else:
            blocks = [int(p) for p in spec]
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"design: {hint}, got {spec!r}") from exc
    if not blocks or any(w < 1 for w in blocks):
        raise ConfigError(f"design: {hint}, got {spec!r}")
    if sum(blocks) != bits:
        raise ConfigError(
            f"design {spec!r}: block widths must sum to bits={bits} (expected {bits}, got {sum(blocks)})"
        )
    return tuple(blocks)


def _even_blocks(bits: int, n: int, lead: int | None = None) -> list[int]:
    if lead is None:
        base, extra = divmod(bits, n)
        return [base + 1] * extra + [base] * (n - extra)
    rest = bits - lead
    base, extra = divmod(rest, n - 1)
    return [lead] + [base + 1] * extra + [base] * (n - 1 - extra)


def design_for_tables(tables: int, *, bits: int = 64, max_distance: int = 3) -> Design:
    """The standard design with ``tables`` tables: 4 (k+1 blocks), 10 (k+2 blocks), 20 (k+3 blocks).

    >>> design_for_tables(10).spec
    '16,12,12,12,12'
    """
    k = max_distance
    for extra in range(1, 8):
        b = k + extra
        if math.comb(b, extra) == tables:
            if bits == 64 and k == 3 and b == 5:
                return Design.parse("16,12,12,12,12", bits=bits, max_distance=k)
            return Design.parse(_even_blocks(bits, b), bits=bits, max_distance=k)
    raise ConfigError(
        f"no standard design with {tables} tables for max_distance={k} "
        f"(expected one of {[math.comb(k + e, e) for e in range(1, 5)]})"
    )


def auto_design(bits: int, max_distance: int, expected_size: int) -> Design:
    """Pick a design for an index of about ``expected_size`` fingerprints.

    The scan length per table is about ``N / 2**key_bits``; keep it below ~256 while using as few
    tables (memory) as possible. For 64 bits and k=3: up to ~16M four tables (16-bit keys), above
    that ten (24-28-bit keys).
    """
    k = max_distance
    if isinstance(k, bool) or not isinstance(k, int) or k < 0 or bits not in (32, 64):
        Design.parse([bits], bits=bits, max_distance=k)  # raises the ConfigError
    if k == 0:
        return Design.parse([bits], bits=bits, max_distance=0)
    if k >= bits // 2:
        raise ConfigError(f"max_distance must be below bits/2 ({bits // 2}), got {k}")
    n = max(int(expected_size), 1)
    for extra in range(1, 6):
        b = k + extra
        if b > bits:
            break
        d = design_for_tables(math.comb(b, extra), bits=bits, max_distance=k)
        if d.n_tables > MAX_TABLES:
            break
        if n / 2 ** min(d.key_bits) <= 256:
            return d
    return d
