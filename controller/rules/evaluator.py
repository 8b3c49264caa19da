"""The hand evaluator: the best five-card high hand from 5 to 8 cards.

In Luck of the Irish all four fours are wild: a wild card stands for any card, so
five of a kind exists (above a straight flush). A wild in a flush plays as the
highest rank not already in it; under the double-ace flush rule it plays as an
ace even when the flush holds one (that rule is about flushes: in a straight
flush a wild plays the rank the straight needs). Seven-card stud has no wild
cards. Suits never break ties; a wheel (5-4-3-2-A) is five-high.

:func:`evaluate` returns a :class:`HandValue`, ordered by its integer ``key``.
:func:`evaluate_many` returns the same keys for a NumPy batch of hands.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypedDict

import numpy as np
import numpy.typing as npt

from controller.rules.cards import (
    DECK,
    RANK_NAMES,
    RANK_PLURALS,
    Card,
    CardError,
    counted,
    parse_cards,
    shown,
)
from controller.rules.hand_tables import (
    CARD_COUNT_SHIFT,
    CATEGORY_SHIFT,
    FLUSH,
    FLUSH_INDEX_WILD_SHIFT,
    HAND_MASK,
    HIGH_SHIFT,
    LANE_BITS,
    MAX_CARDS,
    MIN_CARDS,
    RANK_COUNTS_SHIFT,
    STRAIGHT_FLUSH,
    STRAIGHT_WINDOWS,
    SUIT_COUNTS_SHIFT,
    WILD_COUNT_SHIFT,
    HandTables,
    card_values,
    count_key,
    flush_keys,
    hand_tables,
    unpack_ranks,
)
from controller.rules.settings import Rules, Variant


class Category(StrEnum):
    """Hand categories, weakest first (the order of their codes in a key)."""

    HIGH_CARD = "high_card"
    PAIR = "pair"
    TWO_PAIR = "two_pair"
    THREE_OF_A_KIND = "three_of_a_kind"
    STRAIGHT = "straight"
    FLUSH = "flush"
    FULL_HOUSE = "full_house"
    FOUR_OF_A_KIND = "four_of_a_kind"
    STRAIGHT_FLUSH = "straight_flush"
    FIVE_OF_A_KIND = "five_of_a_kind"


_CATEGORIES = tuple(Category)


#: A card played as JSON: the card held and the card it stands for ("as" is a keyword).
PlayedJson = TypedDict("PlayedJson", {"card": str, "as": str})


class ValueJson(TypedDict):
    """A hand's value by its category and ranks (a replay's ``best``: docs/replay.md)."""

    category: str
    ranks: list[int]


class HandValueJson(ValueJson):
    """A hand's value as JSON (``luck-table eval --json``, the showdown's records)."""

    played: list[PlayedJson]
    description: str


@dataclass(frozen=True, slots=True)
class PlayedCard:
    """One card of the five played: the card held and the card it stands for."""

    card: Card
    as_: Card

    @property
    def wild(self) -> bool:
        return self.card != self.as_

    def to_json(self) -> PlayedJson:
        return {"card": str(self.card), "as": str(self.as_)}


class HandValue:
    """A hand's value under some rules: totally ordered by ``key`` (higher is better).

    Comparisons only make sense between values evaluated under the same rules.
    ``played`` and ``description`` are worked out on first access.
    """

    __slots__ = ("_codes", "_mask", "_played", "key", "rules")

    key: int
    rules: Rules

    def __init__(self, key: int, mask: int, codes: bytes, rules: Rules) -> None:
        self.key = key
        self._mask = mask
        self._codes = codes
        self.rules = rules

    @property
    def category(self) -> Category:
        return _CATEGORIES[self.key >> CATEGORY_SHIFT]

    @property
    def ranks(self) -> tuple[int, ...]:
        return unpack_ranks(self.key)

    @property
    def cards(self) -> tuple[Card, ...]:
        """The cards evaluated, in the order given."""
        return tuple(DECK[code] for code in self._codes)

    @property
    def played(self) -> tuple[PlayedCard, ...]:
        try:
            return self._played
        except AttributeError:
            wild = self.rules.variant is Variant.LUCK_OF_THE_IRISH
            self._played: tuple[PlayedCard, ...] = _play(self.key, self._mask, wild)
            return self._played

    @property
    def description(self) -> str:
        return describe(self.category, self.ranks)

    def to_json(self) -> HandValueJson:
        return {
            "category": self.category.value,
            "ranks": list(self.ranks),
            "played": [card.to_json() for card in self.played],
            "description": self.description,
        }

    def __eq__(self, other: object) -> bool:
        if isinstance(other, HandValue):
            return self.key == other.key
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.key)

    def __lt__(self, other: HandValue) -> bool:
        if isinstance(other, HandValue):
            return self.key < other.key
        return NotImplemented

    def __le__(self, other: HandValue) -> bool:
        if isinstance(other, HandValue):
            return self.key <= other.key
        return NotImplemented

    def __gt__(self, other: HandValue) -> bool:
        if isinstance(other, HandValue):
            return self.key > other.key
        return NotImplemented

    def __ge__(self, other: HandValue) -> bool:
        if isinstance(other, HandValue):
            return self.key >= other.key
        return NotImplemented

    def __repr__(self) -> str:
        return f"HandValue({self.description!r}, key={self.key:#x})"


_DEFAULT_RULES = Rules()

_SUIT_LANE = int("1" * 13, 16)  # bit 4r: the clubs card of rank index r
_NOT_WILD = ~(0xF << 8)  # clears the four fours


def evaluate(cards: str | Iterable[object], rules: Rules = _DEFAULT_RULES) -> HandValue:
    """The best five-card hand from 5 to 8 distinct cards.

    Cards are :class:`Card` values, codes 0..51 (``int`` or another integer type,
    such as NumPy's) or card strings (or one string of them). Raises
    :class:`CardError` for anything else (``True``, ``1.0``, ``None``), an unknown or
    duplicate card, a count outside 5..8, or ``rules`` that are not a :class:`Rules`.
    """
    try:
        value_of, count_keys, flush_keys, wild = _FAST_TABLES[rules.variant, rules.double_ace_flush]
    except (KeyError, AttributeError):
        value_of, count_keys, flush_keys, wild = _fast_tables(rules)
    try:
        codes = _PACK_CODES[len(cards)](*cards)  # type: ignore[arg-type]  # any card-like values: refused below when not
        total = sum(map(value_of, codes))
        if total & _BOOL_CODES and (
            cards[codes.find(1)] is True or cards[codes.find(0)] is False  # type: ignore[index]  # a sequence when the pack took it
        ):
            total = -1
    except (KeyError, IndexError, TypeError, struct.error):
        total = -1
    mask = total & HAND_MASK
    if total < 0 or mask.bit_count() != len(codes):
        codes = bytes(_read_hand(cards))
        total = sum(map(value_of, codes))
        mask = total & HAND_MASK
    counts = total >> RANK_COUNTS_SHIFT & HAND_MASK
    key = count_keys[counts]
    wilds = counts >> 8 & 15 if wild else 0
    reaching = (total >> SUIT_COUNTS_SHIFT) + _FLUSH_REACH[wilds] & _FLUSH_BITS
    if reaching:
        natural = mask & _NOT_WILD if wild else mask
        wild_bits = wilds << 8
        for suit in _SUITS_REACHING[reaching]:
            flush = flush_keys[(natural >> suit) & _SUIT_LANE | wild_bits]
            key = flush if flush > key else key
    return HandValue(key, mask, codes, rules)


# The fast path packs a hand's codes as bytes: one call that takes every code's integer value
# (a NumPy integer's too) and refuses a float, a string, a negative number or one above 255
# (a code 52..255 then misses the 52-entry value list), and sizes other than 5..8. True and
# False pack as the codes 1 and 0 (card 2d, card 2c): when either code is packed, the one
# element that packed to it (two would be a duplicate) must not be that bool.
_PACK_CODES = {size: struct.Struct(f"{size}B").pack for size in range(MIN_CARDS, MAX_CARDS + 1)}
_BOOL_CODES = 0b11  # the hand-mask bits of the codes 0 and 1


# A suit nibble plus _FLUSH_REACH[wilds] reaches 8 when it holds 5 - wilds natural cards.
_FLUSH_REACH = tuple((3 + wilds) * 0x1111 for wilds in range(5))
_FLUSH_BITS = 0x8888
_SUITS_REACHING = {
    reaching: tuple(suit for suit in range(4) if reaching >> (4 * suit + 3) & 1)
    for reaching in range(0, 0x10000, 8)
    if reaching & ~_FLUSH_BITS == 0
}


def evaluate_many(
    codes: npt.ArrayLike, rules: Rules = _DEFAULT_RULES, *, chunk: int = 32768
) -> npt.NDArray[np.int64]:
    """Strength keys of a batch of hands: ``codes`` of shape (N, k), -1 padding short rows.

    The keys order and tie exactly as ``evaluate(row, rules).key``. Raises
    :class:`CardError` naming the first bad row (a masked card is refused: a masked
    array's mask is not padding), or for codes that are not an integer array or
    ``rules`` that are not a :class:`Rules`; :class:`ValueError` for a ``chunk`` (hands
    evaluated at a time) below 1.
    """
    if not isinstance(chunk, int) or isinstance(chunk, bool) or chunk < 1:
        raise ValueError(f"chunk: {shown(chunk)} is not a whole number of hands, 1 or more")
    _checked_rules(rules)
    array = np.asarray(codes)
    if array.ndim != 2 or not np.issubdtype(array.dtype, np.integer):
        raise CardError(None, "hands must be a 2-D array of integer card codes, -1 for padding")
    if np.ma.is_masked(codes):
        row = int(np.flatnonzero(np.ma.getmaskarray(np.ma.asarray(codes)).any(axis=1))[0])
        raise CardError(None, f"hand {row}: a masked card (pad short hands with -1 instead)")
    if len(array) and array.shape[1] < MIN_CARDS:
        _refuse_row(array, 0)
    if array.size and (array.min() < -1 or array.max() > 51):
        _refuse_row(array, int(np.flatnonzero(((array < -1) | (array > 51)).any(axis=1))[0]))
    tables = _tables(rules.variant, rules.double_ace_flush)
    keys = np.empty(len(array), np.int64)
    for start in range(0, len(array), chunk):
        stop = min(start + chunk, len(array))
        keys[start:stop] = _evaluate_chunk(array, start, stop, tables)
    return keys


_LOW_FIELD = (1 << HIGH_SHIFT) - 1
_HIGH_FIELD = (1 << (CARD_COUNT_SHIFT - HIGH_SHIFT)) - 1
_LANE_FIELD = (1 << FLUSH_INDEX_WILD_SHIFT) - 1


def _evaluate_chunk(
    array: npt.NDArray[Any], start: int, stop: int, tables: HandTables
) -> npt.NDArray[np.int64]:
    columns = np.ascontiguousarray(array[start:stop].T, dtype=np.intp)
    total = np.take(tables.count_weights, columns[0])
    lanes = np.take(tables.lane_weights, columns[0])
    for column in columns[1:]:
        total += np.take(tables.count_weights, column)
        lanes |= np.take(tables.lane_weights, column)
    held = (total >> CARD_COUNT_SHIFT) & 15
    bad = (np.bitwise_count(lanes) != held) | (held < MIN_CARDS) | (held > MAX_CARDS)
    if bad.any():
        _refuse_row(array, start + int(np.flatnonzero(bad)[0]))
    index = np.take(tables.low_base, total & _LOW_FIELD)
    index += np.take(tables.high_offset, (total >> HIGH_SHIFT) & _HIGH_FIELD)
    keys: npt.NDArray[np.int64] = np.take(tables.dense_count_keys, index)
    wilds = (total >> WILD_COUNT_SHIFT) << FLUSH_INDEX_WILD_SHIFT
    for suit in (0, 1, 2, 3):
        suit_index = (lanes >> (LANE_BITS * suit)) & _LANE_FIELD
        suit_index |= wilds
        np.maximum(keys, np.take(tables.dense_flush_keys, suit_index), out=keys)
    return keys


def _refuse_row(array: npt.NDArray[Any], row: int) -> None:
    cards = [int(code) for code in array[row] if code != -1]
    try:
        _read_hand(cards)
    except CardError as error:
        raise CardError(error.token, f"hand {row}: {error.reason}") from None
    raise CardError(None, f"hand {row}: not a hand")


def _tables(variant: Variant, double_ace_flush: bool) -> HandTables:
    wild = variant is Variant.LUCK_OF_THE_IRISH
    return hand_tables(wild, double_ace_flush and wild)


# evaluate's tables by (variant, double-ace flush): a memo of the pure table builders,
# looked up without calling them, since a call costs as much as a lookup here.
_FastTables = tuple[Callable[[int], int], Mapping[int, int], Mapping[int, int], bool]
_FAST_TABLES: dict[tuple[Variant, bool], _FastTables] = {}

#: Rank-count vectors whose keys evaluate computes one at a time (about 0.5 ms each) before
#: it builds the whole count table (about 0.5 s of CPU, as much as a thousand of them): a
#: command that evaluates a few hands, or a table's first showdowns, need not wait for it.
COUNT_KEYS_ALONE = 1000


class _CountKeys(dict[int, int]):
    """The count table as evaluate meets its vectors: each key computed alone
    (:func:`count_key`), until :data:`COUNT_KEYS_ALONE` of them; then the whole table,
    which takes this one's place in the memo."""

    def __init__(self, rules: Rules) -> None:
        super().__init__()
        self._rules = rules

    def __missing__(self, counts: int) -> int:
        if len(self) < COUNT_KEYS_ALONE:
            key = self[counts] = count_key(counts, self._rules.variant is Variant.LUCK_OF_THE_IRISH)
            return key
        return _whole_tables(self._rules)[1][counts]


def _fast_tables(rules: object) -> _FastTables:
    rules = _checked_rules(rules)
    wild = rules.variant is Variant.LUCK_OF_THE_IRISH
    values = card_values(wild)
    fast = (
        [values[code] for code in range(len(DECK))].__getitem__,
        _CountKeys(rules),
        flush_keys(wild, rules.double_ace_flush and wild),
        wild,
    )
    _FAST_TABLES[rules.variant, rules.double_ace_flush] = fast
    return fast


def prepare(rules: Rules = _DEFAULT_RULES) -> None:
    """Build :func:`evaluate`'s whole tables for ``rules`` now (about 0.5 s of CPU), rather
    than meeting count vectors one at a time first: for a run that will evaluate thousands
    of hands (a long simulation, a benchmark), so that its hands cost what they cost once
    the tables are built."""
    _whole_tables(_checked_rules(rules))


def _whole_tables(rules: Rules) -> _FastTables:
    tables = _tables(rules.variant, rules.double_ace_flush)
    values = [tables.card_values[code] for code in range(len(DECK))]
    fast = values.__getitem__, tables.count_keys, tables.flush_keys, tables.wild
    _FAST_TABLES[rules.variant, rules.double_ace_flush] = fast
    return fast


def _checked_rules(rules: object) -> Rules:
    if not isinstance(rules, Rules):
        reason = f"rules must be a Rules (the table's settings), not {type(rules).__name__}"
        raise CardError(rules, reason)
    return rules


def _read_hand(cards: str | Iterable[object]) -> tuple[Card, ...]:
    """Read a hand the careful way, naming what is wrong with it."""
    hand = parse_cards(cards)
    if not hand:
        raise CardError(None, f"no cards: a hand has {MIN_CARDS} to {MAX_CARDS} cards")
    if len(hand) < MIN_CARDS:
        shown = " ".join(map(str, hand))
        raise CardError(
            shown, f"{counted(len(hand), 'card')}: a hand has {MIN_CARDS} to {MAX_CARDS} cards"
        )
    if len(hand) > MAX_CARDS:
        raise CardError(
            str(hand[MAX_CARDS]),
            f"a {MAX_CARDS + 1}th card: a hand has {MIN_CARDS} to {MAX_CARDS} cards",
        )
    return hand


def describe(category: Category, ranks: tuple[int, ...]) -> str:
    """What a dealer says: "Queens full of eights", "Four tens, queen kicker"."""
    name, plural = RANK_NAMES.__getitem__, RANK_PLURALS.__getitem__
    match category:
        case Category.FIVE_OF_A_KIND:
            text = f"five {plural(ranks[0])}"
        case Category.STRAIGHT_FLUSH:
            text = "royal flush" if ranks[0] == 14 else f"{name(ranks[0])}-high straight flush"
        case Category.FOUR_OF_A_KIND:
            text = f"four {plural(ranks[0])}, {name(ranks[1])} kicker"
        case Category.FULL_HOUSE:
            text = f"{plural(ranks[0])} full of {plural(ranks[1])}"
        case Category.FLUSH:
            text = f"{name(ranks[0])}-high flush"
        case Category.STRAIGHT:
            text = f"{name(ranks[0])}-high straight"
        case Category.THREE_OF_A_KIND:
            text = f"three {plural(ranks[0])}, {_listed(ranks[1:])} kickers"
        case Category.TWO_PAIR:
            text = f"two pair, {plural(ranks[0])} and {plural(ranks[1])}, {name(ranks[2])} kicker"
        case Category.PAIR:
            text = f"pair of {plural(ranks[0])}, {_listed(ranks[1:])} kickers"
        case Category.HIGH_CARD:
            text = f"{name(ranks[0])} high, {_listed(ranks[1:])}"
    return text[0].upper() + text[1:]


def _listed(ranks: tuple[int, ...]) -> str:
    names = [RANK_NAMES[rank] for rank in ranks]
    return ", ".join(names[:-1]) + " and " + names[-1]


_SUIT_PREFERENCE = (3, 2, 1, 0)  # when a choice of suit is free: spades, hearts, diamonds, clubs


def _play(key: int, mask: int, wild: bool) -> tuple[PlayedCard, ...]:
    """The five cards that make ``key`` from the cards in ``mask``, and what each wild plays as."""
    cards = [card for card in reversed(DECK) if mask >> card & 1]
    wilds = [card for card in cards if wild and card.rank == 4]
    naturals = [card for card in cards if card not in wilds]
    category, ranks = key >> CATEGORY_SHIFT, unpack_ranks(key)
    if category in (STRAIGHT_FLUSH, FLUSH):
        wanted = _straight(ranks[0]) if category == STRAIGHT_FLUSH else ranks
        for suit in _SUIT_PREFERENCE:
            plan = _plan_suited(wanted, suit, naturals)
            if sum(natural is None for natural, _ in plan) <= len(wilds):
                return _assign(plan, wilds)
        raise AssertionError(f"no suit makes {key:#x} from {cards}")
    return _assign(_plan_ranks(_shape(_CATEGORIES[category], ranks), naturals, wilds), wilds)


def _straight(high: int) -> tuple[int, ...]:
    return next(
        tuple(index + 2 for index in window) for top, window in STRAIGHT_WINDOWS if top + 2 == high
    )


def _shape(category: Category, ranks: tuple[int, ...]) -> tuple[int, ...]:
    """The five ranks a hand of this category and tie-break ranks plays."""
    match category:
        case Category.FIVE_OF_A_KIND:
            return ranks * 5
        case Category.FOUR_OF_A_KIND:
            return ranks[:1] * 4 + ranks[1:]
        case Category.FULL_HOUSE:
            return ranks[:1] * 3 + ranks[1:] * 2
        case Category.STRAIGHT:
            return _straight(ranks[0])
        case Category.THREE_OF_A_KIND:
            return ranks[:1] * 3 + ranks[1:]
        case Category.TWO_PAIR:
            return ranks[:1] * 2 + ranks[1:2] * 2 + ranks[2:]
        case Category.PAIR:
            return ranks[:1] * 2 + ranks[1:]
    return ranks


def _plan_suited(
    wanted: tuple[int, ...], suit: int, naturals: list[Card]
) -> list[tuple[Card | None, Card]]:
    """For each wanted rank, its natural card of ``suit``, or a wild standing for that card."""
    unused = set(naturals)
    plan: list[tuple[Card | None, Card]] = []
    for rank in wanted:
        card = Card.of(rank, suit)
        plan.append((card, card) if card in unused else (None, card))
        unused.discard(card)
    return plan


def _plan_ranks(
    wanted: tuple[int, ...], naturals: list[Card], wilds: list[Card]
) -> list[tuple[Card | None, Card]]:
    """For each wanted rank, a natural card of it, or a wild standing for a card of it.

    A wild stands for a card of that rank the hand does not hold (its own card
    first, so a wild four playing as a four plays as itself); only five of a kind
    has to repeat a card.
    """
    unused = list(naturals)
    taken = set(naturals)
    plan: list[tuple[Card | None, Card]] = []
    for rank in wanted:
        natural = next((card for card in unused if card.rank == rank), None)
        if natural is not None:
            unused.remove(natural)
            plan.append((natural, natural))
            continue
        own = [card.suit for card in wilds if card.rank == rank]
        choices = [Card.of(rank, suit) for suit in (*own, *_SUIT_PREFERENCE)]
        stands_for = next((card for card in choices if card not in taken), choices[0])
        taken.add(stands_for)
        plan.append((None, stands_for))
    return plan


def _assign(plan: list[tuple[Card | None, Card]], wilds: list[Card]) -> tuple[PlayedCard, ...]:
    """Give each planned wild slot a wild card, a wild playing as itself where it can."""
    spare = list(wilds)
    holders = [natural for natural, _ in plan]
    for slot, (natural, stands_for) in enumerate(plan):
        if natural is None and stands_for in spare:
            spare.remove(stands_for)
            holders[slot] = stands_for
    if holders.count(None) > len(spare):
        raise AssertionError(f"{plan} needs more wild cards than {wilds}")
    played = [holder if holder is not None else spare.pop(0) for holder in holders]
    return tuple(
        PlayedCard(holder, stands_for) for holder, (_, stands_for) in zip(played, plan, strict=True)
    )
