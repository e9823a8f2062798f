"""The default keep rule keeps the copy that adds the most to its cluster's first document."""

from __future__ import annotations

import numpy as np

from neardup.dedup import DedupConfig, dedup_records
from neardup.dedup.local import FULLER_MIN_GAIN, fuller_copies
from neardup.io import Record
from neardup.match import MatchConfig

QUESTIONS = [
    "How do I read the configuration file? Pass its path with the config option; the program reads it once at start.",
    "Why does the build fail on older compilers? The code uses designated initialisers, so a C99 compiler is needed.",
    "Where are the log files kept? Under the state directory, one file a day, rotated after thirty days by default.",
    "Can two servers share one database? Yes, when both point at the same address and use the same settings digest.",
    "How are duplicates reported? One line per document, naming its cluster and the copy it repeats, if any.",
    "What happens on a full disk? The write is rolled back and the error names the file that could not be written.",
    "Is there a limit on document size? Texts over sixteen megabytes are refused with a message naming the limit.",
    "How do I upgrade an index? Run the info command first; it says which version the index holds and what to do.",
    "Which languages are supported? Chinese first, then any language whose words are separated by spaces.",
    "Who maintains the project? A small team that answers issues on weekdays and publishes a release each month.",
    "How fast is a check? About a millisecond for a news page on one core, most of it spent reading the words.",
    "Where do I report a bug? On the tracker, with the command you ran, what you expected and what you saw.",
]
ADDED = "How do I remove an entry? Call forget with its id; the entry and its keys go in one atomic step."


def faq(items: list[str]) -> str:
    return "Frequently asked questions\n\n" + "\n\n".join(f"Q{i + 1}. {q}" for i, q in enumerate(items))


def kinds(texts: list[str], keep: str = "fuller") -> dict[str, tuple[str, str]]:
    cfg = DedupConfig(workers=1, match=MatchConfig(keep=keep))
    recs = [Record(id=f"v{i}", text=t) for i, t in enumerate(texts)]
    return {r["id"]: (r["kind"], r["cluster"]) for r in dedup_records(recs, cfg)}


def test_a_later_version_that_adds_a_question_is_kept_though_barely_longer() -> None:
    old, new = faq(QUESTIONS), faq([*QUESTIONS, ADDED])
    assert len(new) < 1.1 * len(old)  # not "clearly longer": the pair's text evidence decides
    rows = kinds([old, new])
    assert rows == {"v0": ("near", "v1"), "v1": ("first", "v1")}
    # --keep first keeps the earlier version
    assert kinds([old, new], keep="first")["v0"] == ("first", "v0")


def test_a_copy_with_a_word_changed_does_not_replace_the_first() -> None:
    old = faq(QUESTIONS)
    edited = old.replace("About a millisecond", "Roughly a millisecond")
    assert edited != old
    assert kinds([old, edited]) == {"v0": ("first", "v0"), "v1": ("near", "v0")}


def test_an_exact_copy_of_the_fuller_version_does_not_take_its_place() -> None:
    old, new = faq(QUESTIONS), faq([*QUESTIONS, ADDED])
    rows = kinds([old, new, new])
    assert rows["v1"] == ("first", "v1") and rows["v2"][1] == "v1" and rows["v0"] == ("near", "v1")


def test_fuller_copies_without_text_evidence_weighs_tokens_and_keeps_corpus_rows() -> None:
    rep = np.array([0, 0, 2, 2], np.int64)
    length = np.array([100, 100 + FULLER_MIN_GAIN // 4, 50, 49], np.int64)
    assert fuller_copies(rep, length, 0, None).tolist() == [1, 1, 2, 2]
    # node 0 is a corpus row: always kept, whatever its members add
    assert fuller_copies(rep, length, 1, None).tolist() == [0, 0, 2, 2]
