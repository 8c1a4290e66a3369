"""The one name normalizer: how a name said by a person, written in a policy list or an alias file, and a
device's own name are compared. Case, accents' composition, spacing and punctuation are ignored and plurals
are folded ("Garage Doors" = "garage door", "Living-Room" = "living room"). No other module normalizes
names.
"""

from __future__ import annotations

import re
import unicodedata

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
