"""Labelled near-duplicates made from real articles, with the edits reposting sites really make.

Chinese news sites "repost" (copy) articles nearly whole: the title is changed, an editor line and a
source line are added, the site's header, footer, share buttons and ads wrap the text, a few
characters change, a sentence is dropped or added, paragraphs move, the end is cut off, or a few
paragraphs are pasted into another article. :func:`synthesize` applies those edits to
articles of a real corpus and writes the ground truth beside the set: every document's group and how
it was made (``kind``: original, exact, reformatted, near, partial, hard_negative, and the realistic
profile's cases; ``edits``: the list of edits). Hard negatives are real, different articles that look alike: in zh-xwlb the same yearly
meeting or the same templated story in another year or on the next day (same title once digits are
removed, text overlap below ``hn_max_overlap``).

Two profiles. ``realistic`` (the default) combines several strong edits per copy, so near copies sit
where real reposts do (character 5-gram Jaccard about .35-.75 with the source), wraps 40 % of
reformatted and near copies in portal, mobile, blog and repost pages whose boilerplate lists other
articles' titles, and writes each copy's ``jaccard5`` into the truth. ``classic`` makes light
edits (about one changed character in 300), for sets that must stay comparable byte for byte.

The realistic profile also holds text reuse that is not a repost (:mod:`neardup.eval.synth.cases`):
replies and commentaries that quote a source and follow-ups that reuse its background (``quote``,
``follow_up``: their own group, ``source`` names what they reuse), templates whose subject changed
(``template``: their own group, ``negative_of`` names the look-alike), and copies that correct a figure,
change the script, write numbers another way or keep only the lead (``corrected``, ``script``,
``renumbered``, ``excerpt``: the source's group).

Deterministic: the same input, config and seed give the same set, byte for byte.

>>> recs = [{"id": f"d{i}", "title": f"t{i}",
...          "text": "。".join("".join(chr(0x4E00 + (i * 997 + j * 31 + k * 7) % 9000) for k in range(12))
...                           for j in range(30))} for i in range(20)]
>>> docs, truth = synthesize(recs, SynthConfig(lang="zh", n_sources=5, min_chars=50, seed=1))
>>> {t["kind"] for t in truth} <= {"exact", "hard_negative", "near", "original", "partial", "reformatted",
...                                "quote", "follow_up", "template", "corrected", "script", "renumbered",
...                                "excerpt"}
True
"""

from __future__ import annotations

from neardup.eval.synth.build import synthesize
from neardup.eval.synth.config import CASES, Lang, Profile, SynthConfig
from neardup.eval.synth.natural import natural_truth
from neardup.eval.synth.text import ngram_jaccard

__all__ = ["CASES", "Lang", "Profile", "SynthConfig", "natural_truth", "ngram_jaccard", "synthesize"]
