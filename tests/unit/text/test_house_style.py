"""English house styles read as one (British and American spelling, contractions): a repost in the
other style is its source's copy."""

from __future__ import annotations

import random

import pytest

from neardup.match import compare_texts
from neardup.text.normalize import (
    _contractions_py,
    _fp_c,
    _word_bits,
    _words_py,
    contractions,
    house_style,
    spellings,
    spellings_table,
)

# written for this test: the same report in British and in American spelling; "metres" and
# "favourites" stand in two places each, as a template's subject would
BRITISH = (
    "The organisers of the city marathon said on Sunday that the new route, which finishes in front of "
    "the theatre in the town centre, is 400 metres shorter than last year's. Runners who travelled from "
    "abroad praised the colourful crowds, and the favourites from Kenya finished within 50 metres of each "
    "other. The organisers apologised for a delay at the start, caused by a defence ministry programme "
    "that closed two roads, and said the favourites would return next year to defend their titles."
)
AMERICAN = (
    "The organizers of the city marathon said on Sunday that the new route, which finishes in front of "
    "the theater in the town center, is 400 meters shorter than last year's. Runners who traveled from "
    "abroad praised the colorful crowds, and the favorites from Kenya finished within 50 meters of each "
    "other. The organizers apologized for a delay at the start, caused by a defense ministry program "
    "that closed two roads, and said the favorites would return next year to defend their titles."
)


def test_a_repost_in_american_spelling_is_its_sources_copy_not_another_subject() -> None:
    assert spellings(BRITISH) == AMERICAN
    assert compare_texts(BRITISH, AMERICAN).kind == "content"
    # an edited copy in the other spelling: still the same document, not a template whose subject
    # (metres -> meters in two places) changed
    edited = AMERICAN.replace("praised the colorful crowds", "praised the crowds")
    assert compare_texts(BRITISH, edited).kind in ("near", "contained")


def test_only_whole_words_are_read_in_their_case() -> None:
    assert spellings("Colour, COLOUR and colour") == "Color, COLOR and color"
    # a longer word that starts with a listed one, a word joined to letters of another script, and
    # plain American text stay as written
    assert (
        spellings("programmer programmes colourX Montréal écolour")
        == "programmer programs colourX Montréal écolour"
    )
    assert spellings("The color of the program") == "The color of the program"
    assert spellings("") == ""


def test_the_table_reads_once() -> None:
    table = spellings_table()
    assert len(table) > 3000
    assert all(
        k.isascii() and k.isalpha() and k.islower() and v.islower() and k != v for k, v in table.items()
    )
    assert not set(table.values()) & set(table), "a word read twice would change again"
    assert {"colour", "organisation", "programme", "metre", "travelled", "manoeuvre"} <= set(table)
    assert "programmer" not in table


def _texts(rng: random.Random) -> list[str]:
    words = [
        *rng.sample(sorted(spellings_table()), 40),
        "color",
        "the",
        "a",
        "programmer",
        "Colour",
        "CENTRE",
    ]
    glue = [" ", ", ", "'s ", "-", "é", "2", "_", "😀", "\U00020000", "中文", "\n"]
    out = []
    for _ in range(300):
        parts = []
        for _ in range(rng.randrange(0, 30)):
            w = rng.choice(words)
            w = w.upper() if rng.random() < 0.1 else w.capitalize() if rng.random() < 0.2 else w
            parts += [w, rng.choice(glue)]
        out.append("".join(parts))
    return out


@pytest.mark.skipif(_fp_c is None, reason="built without a C compiler")
def test_the_word_reader_in_c_reads_as_python() -> None:
    rng = random.Random(7)
    for text in [*_texts(rng), "", "a", "colour", "Colour's", "xcolour colourx"]:
        assert _fp_c.words(text, _word_bits(), spellings_table()) == _words_py(text, spellings_table()), text
    with pytest.raises(ValueError, match="131072 bytes"):
        _fp_c.words("colour", b"", spellings_table())
    with pytest.raises(TypeError):  # a value that is not a str is refused, not written
        _fp_c.words("colour", _word_bits(), {"colour": 1})


# written for this test: a report without contractions, and the same report in a house style that uses them
FULL = (
    "The minister said the government would not change its plans. We are not going to back down, and we "
    "cannot afford to wait, she told reporters. It is a question of trust, and I am sure voters will not "
    "forget it. Officials said they do not expect the vote before the summer, and that they have not yet "
    "seen the final text. The opposition's leader said it is the wrong plan and that she would vote against it."
)
CONTRACTED = (
    "The minister said the government wouldn't change its plans. We're not going to back down, and we "
    "can't afford to wait, she told reporters. It's a question of trust, and I'm sure voters won't "
    "forget it. Officials said they don't expect the vote before the summer, and that they haven't yet "
    "seen the final text. The opposition's leader said it's the wrong plan and that she'd vote against it."
)


def test_a_repost_with_contractions_is_its_sources_copy() -> None:
    assert compare_texts(FULL, CONTRACTED).kind == "content"
    assert compare_texts(FULL, CONTRACTED.replace("'", "\u2019")).kind == "content"  # curly apostrophes


def test_contractions_are_written_out_and_possessives_and_quotations_stay() -> None:
    assert (
        contractions("Don't, WON'T, can't, Cannot, they'll, we've, I'm")
        == "Do not, WILL NOT, can not, Can not, they will, we have, I am"
    )
    # a possessive, a quotation in single quotes, 'd and 's after a name, a word ending in n before 't
    kept = "Ann's car, the 'man' said, Tom'd, Jo's, 'twas, n't, '70s"
    assert contractions(kept) == kept
    assert house_style("The U.S. programme doesn't work") == "The US program does not work"


@pytest.mark.skipif(_fp_c is None, reason="built without a C compiler")
def test_the_contraction_reader_in_c_reads_as_python() -> None:
    rng = random.Random(3)
    pieces = [
        *"abntTNmMsSdDrReEvVlL' .,é\n",
        "😀",
        "it's",
        "won't",
        "WON'T",
        "can't",
        "CAn't",
        "He'D",
        "they'RE",
    ]
    for _ in range(20_000):
        text = "".join(rng.choices(pieces, k=rng.randint(0, 30)))
        if rng.random() < 0.5:
            text = text.replace("é", "e").replace("😀", ":)")  # one byte a character, then wider
        assert _fp_c.contractions(text) == _contractions_py(text), repr(text)
    with pytest.raises(TypeError):
        _fp_c.contractions(b"don't")
