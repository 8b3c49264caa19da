"""Lookup tables behind the hand evaluator, built once per flush rule and variant.

A hand's strength is an integer *key*: ``category << 20`` plus up to five
tie-break ranks (2..14) packed high to low in nibbles (bits 16..19 hold the
first). Higher keys are better hands; equal keys tie exactly.

Every hand's best non-flush five (five of a kind down to high card) depends only
on how many cards of each rank it holds (and, fours being wild, how many fours).
Its best flush or straight flush depends, suit by suit, only on which ranks of
that suit it holds naturally and on the number of wild cards. So two tables
answer every hand:

* the *count table*: rank-count vector (13 counts of 0..4, 5 to 8 cards in all)
  -> best non-flush key; 193,830 vectors per variant;
* the *flush table*: (natural ranks held in one suit, wild count) -> best flush
  or straight-flush key of that suit, or 0 when the suit cannot make five.

Both are computed with vectorised NumPy over every possible input, then offered
in two shapes: dicts keyed by the bit patterns :func:`evaluate` computes, and
dense arrays indexed by the sums :func:`evaluate_many` computes.

:func:`evaluate` sums one *card value* per card: bit ``code`` (the hand mask, bits
0..51), plus one in the card's rank nibble (rank counts, bits 52..103; the fours'
nibble counts the wild cards), plus one in its suit nibble for a natural card
(natural suit counts, bits 104..119). Distinct cards never carry, so a duplicate
shows as a mask holding fewer bits than cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from controller.rules.cards import DECK, RANK_CHARS, SUIT_CHARS

Int64Array = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

# Category codes, in order of strength (the key's top bits).
HIGH_CARD, PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT = 0, 1, 2, 3, 4
FLUSH, FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH, FIVE_OF_A_KIND = 5, 6, 7, 8, 9
RANKS_PER_CATEGORY = (5, 4, 3, 3, 1, 5, 2, 2, 1, 1)
CATEGORY_SHIFT = 20

MIN_CARDS, MAX_CARDS = 5, 8
HAND_MASK = (1 << 52) - 1
RANK_COUNTS_SHIFT = 52
SUIT_COUNTS_SHIFT = 104
WILD_RANK_INDEX = 2  # rank 4 is index 2 (ranks 2..14 are indexes 0..12)
RANK_INDEXES = 13

# A straight's five rank indexes from its high card's index down; the wheel (5-4-3-2-A)
# is five-high, its ace playing low.
STRAIGHT_WINDOWS: tuple[tuple[int, tuple[int, ...]], ...] = (
    *((high, tuple(range(high, high - 5, -1))) for high in range(12, 3, -1)),
    (3, (3, 2, 1, 0, 12)),
)

# Dense-index layout for evaluate_many: a card adds COUNT_WEIGHT[code] to a running
# sum whose low bits are two base-5 numbers (rank counts of 2..8 and of 9..A), then
# the card count, then the wild count.
LOW_RANKS = 7  # rank indexes 0..6 form the low base-5 number
LOW_SPAN = 5**LOW_RANKS  # 78,125
HIGH_SPAN = 5 ** (RANK_INDEXES - LOW_RANKS)  # 15,625
HIGH_SHIFT = 17
CARD_COUNT_SHIFT = 40
WILD_COUNT_SHIFT = 44
LANE_BITS = 16  # suit s's natural ranks sit in bits 16*s .. 16*s+12 of the lane mask
FLUSH_INDEX_WILD_SHIFT = 13


def unpack_ranks(key: int) -> tuple[int, ...]:
    count = RANKS_PER_CATEGORY[key >> CATEGORY_SHIFT]
    return tuple((key >> (16 - 4 * place)) & 15 for place in range(count))


@dataclass(frozen=True, eq=False)
class HandTables:
    """Everything :func:`evaluate` and :func:`evaluate_many` look up, for one rule set."""

    wild: bool
    card_values: dict[object, int]  # by code, Card or spelling ("Ks", "ks", "10s", "K♠")
    count_keys: dict[int, int]  # nibble-packed rank counts -> best non-flush key
    flush_keys: dict[int, int]  # nibble-spaced natural suit ranks | wilds << 8 -> key
    count_weights: Int64Array  # (53,) per card code; index 52 (= -1, a pad) is 0
    lane_weights: Int64Array  # (53,) per card code: 1 << (16 * suit + rank index)
    low_base: Int64Array  # (LOW_SPAN,) start of a low count vector's block
    high_offset: Int64Array  # (HIGH_SPAN,) position of a high count vector in a block
    dense_count_keys: Int64Array  # count table, dense
    dense_flush_keys: Int64Array  # (5 << 13,) natural suit ranks | wilds << 13 -> key


@cache
def hand_tables(wild: bool, double_ace_flush: bool) -> HandTables:
    """Build (once) the tables for fours wild or not, and the flush rule in force."""
    counts = _count_vectors()
    strengths = _count_table_keys(counts, wild)
    total = counts.sum(axis=1)
    playable = total >= MIN_CARDS
    strengths[~playable] = 0
    nibble_keys = (counts.astype(np.int64) << (4 * np.arange(RANK_INDEXES))).sum(axis=1)

    low = _base5(counts[:, :LOW_RANKS])
    high = _base5(counts[:, LOW_RANKS:])
    low_sum = counts[:, :LOW_RANKS].sum(axis=1)
    high_sum = counts[:, LOW_RANKS:].sum(axis=1)
    # High vectors ordered by card count: those with at most t cards form a prefix.
    high_vectors = np.unique(high)
    high_vector_sums = np.zeros(HIGH_SPAN, np.int64)
    high_vector_sums[high] = high_sum
    order = np.lexsort((high_vectors, high_vector_sums[high_vectors]))
    high_offset = np.zeros(HIGH_SPAN, np.int64)
    high_offset[high_vectors[order]] = np.arange(len(high_vectors))
    prefix = np.searchsorted(
        high_vector_sums[high_vectors[order]], np.arange(MAX_CARDS + 1), side="right"
    )
    low_vectors, first = np.unique(low, return_index=True)
    block = prefix[MAX_CARDS - low_sum[first]]
    low_base = np.zeros(LOW_SPAN, np.int64)
    low_base[low_vectors] = np.concatenate(([0], np.cumsum(block)[:-1]))
    dense_count_keys = np.zeros(int(block.sum()), np.int64)
    dense_count_keys[low_base[low] + high_offset[high]] = strengths

    flush = _flush_table(wild, double_ace_flush)[2]

    codes = np.arange(52)
    rank_index, suit = codes >> 2, codes & 3
    count_weights = np.where(
        rank_index < LOW_RANKS,
        5 ** np.minimum(rank_index, LOW_RANKS - 1),
        5 ** np.maximum(rank_index - LOW_RANKS, 0) << HIGH_SHIFT,
    ) + (1 << CARD_COUNT_SHIFT)
    if wild:
        count_weights += (rank_index == WILD_RANK_INDEX).astype(np.int64) << WILD_COUNT_SHIFT
    lane_weights = np.int64(1) << (LANE_BITS * suit + rank_index)

    return HandTables(
        wild=wild,
        card_values=card_values(wild),
        count_keys=dict(
            zip(nibble_keys[playable].tolist(), strengths[playable].tolist(), strict=True)
        ),
        flush_keys=flush_keys(wild, double_ace_flush),
        count_weights=np.append(count_weights, 0).astype(np.int64),
        lane_weights=np.append(lane_weights, 0).astype(np.int64),
        low_base=low_base,
        high_offset=high_offset,
        dense_count_keys=dense_count_keys,
        dense_flush_keys=flush,
    )


def count_key(counts: int, wild: bool) -> int:
    """The count table's entry for one rank-count vector (13 nibbles, as ``count_keys`` is
    keyed), computed alone: what :func:`hand_tables` computes for every vector at once."""
    vector = [(counts >> (4 * index)) & 15 for index in range(RANK_INDEXES)]
    return int(_count_table_keys(np.array([vector], np.int8), wild)[0])


@cache
def flush_keys(wild: bool, double_ace_flush: bool) -> dict[int, int]:
    """The flush table keyed as :func:`evaluate` looks it up (``flush_keys`` of
    :class:`HandTables`); a suit that cannot make five is not in it."""
    lanes, wilds, flush = _flush_table(wild, double_ace_flush)
    spaced = np.zeros_like(lanes)
    for index in range(RANK_INDEXES):
        spaced |= ((lanes >> index) & 1) << (4 * index)
    in_dict = (flush > 0) & ((wilds == 0) | wild)
    if wild:
        in_dict &= (lanes >> WILD_RANK_INDEX) & 1 == 0
    keyed = (spaced[in_dict] | wilds[in_dict] << 8).tolist()
    return dict(zip(keyed, flush[in_dict].tolist(), strict=True))


@cache
def card_values(wild: bool) -> dict[object, int]:
    """What :func:`evaluate` sums per card, by code, Card or spelling (``card_values`` of
    :class:`HandTables`)."""
    values: dict[object, int] = {}
    for card in DECK:
        rank_index, suit = card >> 2, card & 3
        value = 1 << card | 1 << (RANK_COUNTS_SHIFT + 4 * rank_index)
        if not (wild and rank_index == WILD_RANK_INDEX):
            value |= 1 << (SUIT_COUNTS_SHIFT + 4 * suit)
        values[int(card)] = value
        rank_spellings = {RANK_CHARS[rank_index], RANK_CHARS[rank_index].lower()}
        if card.rank == 10:
            rank_spellings.add("10")
        for rank in rank_spellings:
            for suit_spelling in (SUIT_CHARS[suit], SUIT_CHARS[suit].upper(), "♣♦♥♠"[suit]):
                values[rank + suit_spelling] = value
    return values


def _base5(digits: npt.NDArray[np.int8]) -> Int64Array:
    sums: Int64Array = (digits.astype(np.int64) * 5 ** np.arange(digits.shape[1])).sum(axis=1)
    return sums


def _count_vectors() -> npt.NDArray[np.int8]:
    """Every vector of 13 rank counts 0..4 holding at most 8 cards, shape (196210, 13)."""
    vectors = np.zeros((1, 0), np.int8)
    for _ in range(RANK_INDEXES):
        held = vectors.sum(axis=1)
        vectors = np.vstack(
            [
                np.hstack([vectors[fits], np.full((int(fits.sum()), 1), count, np.int8)])
                for count in range(5)
                for fits in [held + count <= MAX_CARDS]
            ]
        )
    return vectors


def _highest(held: BoolArray) -> Int64Array:
    """Per row, the rank (2..14) of the highest True column, or 0 if none."""
    reverse = held[:, ::-1]
    return np.where(reverse.any(axis=1), 14 - reverse.argmax(axis=1), 0)


def _top(held: BoolArray, count: int, *excluded: Int64Array) -> list[Int64Array]:
    """Per row, the ``count`` highest ranks held, skipping the excluded ranks (0 pads)."""
    held = held.copy()
    rows = np.arange(len(held))

    def drop(rank: Int64Array) -> None:
        some = rank > 0
        held[rows[some], rank[some] - 2] = False

    for rank in excluded:
        drop(rank)
    found: list[Int64Array] = []
    for _ in range(count):
        found.append(_highest(held))
        drop(found[-1])
    return found


def _keys(category: int, valid: BoolArray, *ranks: Int64Array) -> Int64Array:
    key = np.full(len(valid), category << CATEGORY_SHIFT, np.int64)
    for place, rank in enumerate(ranks):
        key |= rank << (16 - 4 * place)
    return np.where(valid, key, 0)


def _count_table_keys(counts: npt.NDArray[np.int8], wild: bool) -> Int64Array:
    """Best non-flush key per rank-count vector (a vector holding too few cards gets junk)."""
    natural = counts.copy()  # int8 throughout: the arithmetic is on counts 0..8
    wilds = np.zeros(len(counts), np.int8)
    if wild:
        wilds = natural[:, WILD_RANK_INDEX].copy()
        natural[:, WILD_RANK_INDEX] = 0
    reach = natural + wilds[:, None]  # cards of a rank, counting every wild as that rank
    held = natural > 0

    five = _highest(reach >= 5)
    best = _keys(FIVE_OF_A_KIND, five > 0, five)

    quad = _highest(reach >= 4)
    best = np.maximum(best, _keys(FOUR_OF_A_KIND, quad > 0, quad, *_top(held, 1, quad)))

    short_of_three = np.maximum(0, 3 - natural).astype(np.int8)
    short_of_two = np.maximum(0, 2 - natural).astype(np.int8)
    full_house = np.zeros(len(counts), np.int64)
    for rank in range(12, -1, -1):  # the highest trips first, then the best pair beside them
        wilds_left = wilds - short_of_three[:, rank]
        pairs = short_of_two <= wilds_left[:, None]
        pairs[:, rank] = False
        pair = _highest(pairs)
        found = (wilds_left >= 0) & (pair > 0) & (full_house == 0)
        full_house[found] = (rank + 2) << 4 | pair[found]
    best = np.maximum(best, _keys(FULL_HOUSE, full_house > 0, full_house >> 4, full_house & 15))

    straight = np.zeros(len(counts), np.int64)
    for high, window in STRAIGHT_WINDOWS:
        missing = (natural[:, list(window)] == 0).sum(axis=1)
        straight[(missing <= wilds) & (straight == 0)] = high + 2
    best = np.maximum(best, _keys(STRAIGHT, straight > 0, straight))

    trips = _highest(reach >= 3)
    best = np.maximum(best, _keys(THREE_OF_A_KIND, trips > 0, trips, *_top(held, 2, trips)))

    high_pair, low_pair = _top(natural >= 2, 2)
    best = np.maximum(
        best,
        _keys(TWO_PAIR, low_pair > 0, high_pair, low_pair, *_top(held, 1, high_pair, low_pair)),
    )

    pair = _highest(reach >= 2)
    best = np.maximum(best, _keys(PAIR, pair > 0, pair, *_top(held, 3, pair)))

    return np.maximum(best, _keys(HIGH_CARD, np.ones(len(counts), bool), *_top(held, 5)))


def _flush_table(wild: bool, double_ace_flush: bool) -> tuple[Int64Array, Int64Array, Int64Array]:
    """Best flush or straight-flush key for every (13-bit suit rank set, wild count 0..4).

    Returns the rank sets, the wild counts and the keys, indexed by
    ``ranks | wilds << 13``. A wild in a flush plays as the highest rank not already
    in it; under the double-ace flush rule every wild in a flush plays as an ace.
    """
    index = np.arange(5 << FLUSH_INDEX_WILD_SHIFT, dtype=np.int64)
    lanes = index & ((1 << FLUSH_INDEX_WILD_SHIFT) - 1)
    wilds = index >> FLUSH_INDEX_WILD_SHIFT
    natural = lanes & ~(1 << WILD_RANK_INDEX) if wild else lanes
    held = ((natural[:, None] >> np.arange(RANK_INDEXES)) & 1).astype(bool)
    enough = held.sum(axis=1) + wilds >= 5

    straight = np.zeros(len(index), np.int64)
    for high, window in STRAIGHT_WINDOWS:
        missing = (~held[:, list(window)]).sum(axis=1)
        straight[(missing <= wilds) & (straight == 0)] = high + 2

    flush = np.full(len(index), FLUSH << CATEGORY_SHIFT, np.int64)
    taken = np.zeros(len(index), np.int64)
    wilds_left = wilds.copy()
    if double_ace_flush:
        for _ in range(4):
            ace = wilds_left > 0
            flush[ace] |= np.int64(14) << (16 - 4 * taken[ace])
            taken += ace
            wilds_left -= ace
    for rank_index in range(12, -1, -1):
        as_wild = ~held[:, rank_index] & (wilds_left > 0)
        take = (held[:, rank_index] | as_wild) & (taken < 5)
        flush[take] |= np.int64(rank_index + 2) << (16 - 4 * taken[take])
        wilds_left -= as_wild & take
        taken += take

    keys = np.maximum(flush, _keys(STRAIGHT_FLUSH, straight > 0, straight))
    return lanes, wilds, np.where(enough, keys, 0)
