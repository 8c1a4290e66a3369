"""The one name normalizer: how a name said by a person, written in a policy list or an alias file, and a
device's own name are compared. Case, accents' composition, spacing and punctuation are ignored and plurals
are folded ("Garage Doors" = "garage door", "Living-Room" = "living room"). No other module normalizes
names.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from typing import Any

_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)


def _fold(word: str) -> str:
    """Crude singular: "blinds" → "blind", "switches" → "switch"; applied to both sides alike."""
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        if word.endswith(("ches", "shes", "xes", "sses")):
            return word[:-2]
        return word[:-1]
    return word


def words_of(text: str) -> list[str]:
    """Normalized words: case-folded, punctuation and spacing ignored, plurals folded."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    cleaned = _NON_WORD.sub(" ", folded.replace("'", "").replace("\u2019", ""))
    return [_fold(w) for w in cleaned.split()]


def normalize(text: str) -> str:
    return " ".join(words_of(text))


def word_reader(names: Iterable[str], synonyms: Mapping[str, str]) -> Callable[[Any], Any]:
    """A reader of one word from a closed list (an enum argument's values) as people and models say it:
    "locks" and "Lock" are "lock", "battery levels" is "battery" by `synonyms` (phrases → a name). A word it
    cannot read comes back as it was said, for the argument's own error to list what would work."""
    table = {normalize(n): n for n in names} | {normalize(k): v for k, v in synonyms.items()}

    def read(said: Any) -> Any:
        return table.get(normalize(said), said) if isinstance(said, str) else said

    return read


# Last words ending in "s" that are one thing, not many.
_SINGULAR_ENDINGS = ("ss", "us", "is", "as", "os", "ys")


def names_many(name: str) -> bool:
    """Does a device's name read as a plural ("Living Room Blinds", "Porch Lights")? Then a sentence says
    "are", not "is". A name ending in a number or a word like "Glass", "Status" or "Gas" is one thing."""
    words = name.split()
    last = words[-1].casefold() if words else ""
    return last.isalpha() and len(last) > 3 and last.endswith("s") and not last.endswith(_SINGULAR_ENDINGS)


def agreeing(name: str, sentence: str) -> str:
    """`sentence`, which starts with `name` followed by "is"/"has"/"was", with the verb (and "its", "it
    has") agreeing with the name: "Living Room Blinds are now open", "… have not reported their position"."""
    if not names_many(name) or not sentence.startswith(name + " "):
        return sentence
    rest = sentence[len(name) + 1 :]
    for one, many in (("is ", "are "), ("has ", "have "), ("was ", "were ")):
        if rest.startswith(one):
            rest = f"{many}{rest[len(one) :]}"
            for it, they in (
                (" its ", " their "),
                ("; it has ", "; they have "),
                ("; it is ", "; they are "),
                ("; it reports ", "; they report "),
                (" and reports ", " and report "),
            ):
                rest = rest.replace(it, they)
            return f"{name} {rest}"
    return sentence
