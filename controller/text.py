"""Free text: the one rule for text a person types (a player's name, a supervisor's reason,
a studio token's label, an id typed at sign-in, the table's name in its configuration).

Such text reaches every screen (the console, the pit, the studio's feed), the journal and
the floor's database. :class:`FreeText` keeps it to what shows as it reads and what every
store can hold (docs/security.md, "Free text"):

- it refuses any character that is not printable: Unicode's controls (C0 and C1, U+0000
  included: PostgreSQL's text cannot hold it), format characters (every ``Cf``: the
  bidirectional overrides, embeddings, isolates and marks that make "EVIL" show as "LIVE",
  the zero-width space, joiners and no-break space, the soft hyphen), surrogates, private
  use and unassigned code points (by the Unicode version of the running Python), and the
  line and paragraph separators. The refusal names the first such character and its place:
  ``U+202E RIGHT-TO-LEFT OVERRIDE at 5`` (characters counted from 1, in the text as sent);
- it normalises what it accepts to NFC (one form for one name: "é" is one code point
  however it was typed) and strips white space at either end (a name with a space
  typed after it is the same name); what is left must not be empty;
- it counts the characters after that against the field's limit.

A :class:`FreeText` is the check itself (``rule(value)`` gives the text kept or raises
:class:`TextError`): the table's inputs carry it in their type (``Annotated[str, rule]``,
read by ``controller.codec``), the API's models in theirs (pydantic's ``AfterValidator``).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Annotated

from luck_errors import LuckTableError

#: Unicode general categories refused anywhere in free text, in words: controls, format
#: characters, surrogates, private use, unassigned; line and paragraph separators.
REFUSED = {
    "Cc": "a control character",
    "Cf": "a format character",
    "Cs": "a surrogate",
    "Co": "a private-use character",
    "Cn": "an unassigned code point",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}


#: Text longer than this many times its limit is refused before it is looked at (NFC
#: composes a letter typed as up to a few code points: a base and its marks, Hangul's jamo).
RAW = 4


class TextError(LuckTableError, ValueError):
    """Free text refused: the message names the character and its place, or the length."""


def refused_at(value: str) -> tuple[int, str] | None:
    """The first character of ``value`` free text may not hold, and its place (from 1)."""
    if value.isprintable() and value.isascii():  # the common case, at C speed
        return None
    for place, char in enumerate(value, 1):
        if unicodedata.category(char) in REFUSED:
            return place, char
    return None


def codepoint(char: str) -> str:
    """``U+202E RIGHT-TO-LEFT OVERRIDE``: a character as a reader can find it (a character
    without a name: ``U+0000 (a control character)``)."""
    name = unicodedata.name(char, "") or f"({REFUSED.get(unicodedata.category(char), 'unnamed')})"
    return f"U+{ord(char):04X} {name}"


@dataclass(frozen=True, slots=True)
class FreeText:
    """The rule of one kind of free text: at most ``limit`` characters."""

    limit: int

    def __call__(self, value: str) -> str:
        """``value`` as kept (NFC, stripped), or :class:`TextError` saying why not."""
        if len(value) > RAW * self.limit:  # far too long, whatever NFC makes of it: unread
            raise TextError(f"{len(value)} characters: at most {self.limit}")
        bad = refused_at(value)
        if bad is not None:
            place, char = bad
            raise TextError(
                f"{codepoint(char)} at {place}: only printable characters (no control, "
                "format, bidirectional, zero-width, private-use or unassigned characters)"
            )
        kept = unicodedata.normalize("NFC", value).strip()
        if not kept:
            raise TextError("empty: at least one character that is not white space")
        if len(kept) > self.limit:
            raise TextError(f"{len(kept)} characters: at most {self.limit}")
        return kept


#: A player's name.
NAME = FreeText(64)
#: An id a person types (a dealer's or supervisor's id at sign-in).
ID = FreeText(64)
#: A label (a studio token's: who it is for).
LABEL = FreeText(100)
#: A table's name (its configuration's; a HIL scenario's title).
TITLE = FreeText(200)
#: A supervisor's reason for an action.
REASON = FreeText(500)

#: The table's inputs' free-text fields, by kind (``controller.codec`` applies the rule).
Name = Annotated[str, NAME]
Id = Annotated[str, ID]
Reason = Annotated[str, REASON]
