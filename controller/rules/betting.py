"""Fixed-limit betting: who brings in, who acts first, the legal choices and their amounts,
the cap and the half-bet rule. The rules, with their sources: docs/rules.md ("Bring-in",
"First to act", "Bet sizes, the open pair, the cap", "All-in, side pots").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple, NotRequired, TypedDict, TypeVar

from controller.rules.cards import RANK_NAMES, RANK_PLURALS, Card
from controller.rules.inputs import Do, Illegal, IllegalInput
from controller.rules.settings import HeadsUpUncapped, Rules, WildBringIn
from controller.rules.state import HandState, Player

H = TypeVar("H", bound=HandState)

_SHOWING_NAMES = (
    "high card",
    "pair",
    "two pair",
    "three of a kind",
    "full house",
    "four of a kind",
    "five of a kind",
)


class ChoiceJson(TypedDict):
    """A legal decision as the views and the hand's records send it: ``do`` and the street
    total ``to`` it puts in (chips going in), or, for the bonus card, ``accept``."""

    do: str
    to: NotRequired[int]
    accept: NotRequired[bool]


class Choice(NamedTuple):
    """One legal decision: ``do`` and, for chips going in, the street total ``to``."""

    do: Do
    to: int | None = None

    def to_json(self) -> ChoiceJson:
        return {"do": self.do.value} if self.to is None else {"do": self.do.value, "to": self.to}


def showing_key(cards: Iterable[Card], wild: bool) -> tuple[int, ...]:
    """Rank a hand showing: ``(category, ranks...)``, higher is better.

    Wilds join the largest group of natural cards (the highest rank among equals),
    or play as aces when every up card is wild.
    """
    counts: dict[int, int] = {}
    for card in cards:
        counts[card.rank] = counts.get(card.rank, 0) + 1
    wilds = counts.pop(4, 0) if wild else 0
    groups = sorted(zip(counts.values(), counts, strict=True), reverse=True)
    if wilds:
        if groups:
            groups[0] = (groups[0][0] + wilds, groups[0][1])
        else:
            groups = [(wilds, 14)]
    top = groups[0][0] if groups else 0
    second = groups[1][0] if len(groups) > 1 else 0
    if top >= 5:
        category = 6
    elif top == 4:
        category = 5
    elif top == 3:
        category = 4 if second >= 2 else 3
    elif top == 2:
        category = 2 if second == 2 else 1
    else:
        category = 0
    return (category, *[rank for _, rank in groups])


def describe_showing(key: tuple[int, ...]) -> str:
    category, ranks = key[0], key[1:]
    if not ranks:
        return "nothing showing"
    if category == 0:
        return f"{RANK_NAMES[ranks[0]]} high"
    if category == 2:
        return f"two pair, {RANK_PLURALS[ranks[0]]} and {RANK_PLURALS[ranks[1]]}"
    if category == 4:
        return f"full house, {RANK_PLURALS[ranks[0]]} full of {RANK_PLURALS[ranks[1]]}"
    if category == 1:
        return f"pair of {RANK_PLURALS[ranks[0]]}"
    return f"{_SHOWING_NAMES[category]}, {RANK_PLURALS[ranks[0]]}"


def bring_in_card(player: Player, rules: Rules) -> int:
    """The player's highest up card in bring-in order, as a number (the lowest brings in):
    by rank, then suit (clubs < diamonds < hearts < spades), a wild four counting as an
    ace of its suit with ``wild_bring_in="ace"``. A card's code already orders rank then
    suit, so the number is the code (an ace's for a wild four)."""
    as_ace = rules.wild and rules.wild_bring_in is WildBringIn.ACE
    highest = 0
    for dealt in player.cards:
        if dealt.up:
            card = dealt.card
            if as_ace and card.rank == 4:
                card = Card.of(14, card & 3)
            highest = max(highest, card)
    return highest


def next_seat_from(players: tuple[Player, ...], start: int, can: Any) -> int | None:
    """The first index from ``start`` clockwise (``start`` included) whose player ``can``."""
    count = len(players)
    for step in range(count):
        index = (start + step) % count
        if can(players[index]):
            return index
    return None


def can_bet(player: Player) -> bool:
    return not player.folded and player.stack > 0


def heads_up(players: Iterable[Player]) -> bool:
    """At most two players still in who are not all-in (an all-in player cannot be
    squeezed between raisers, so only those who can still bet count)."""
    return sum(map(can_bet, players)) <= 2


def reaches_cap(hand: HandState) -> bool:
    """Whether the full wager about to be made in ``hand`` (the state before it) leaves
    the round capped, once it is the bet (or completion) plus ``max_raises`` raises."""
    rules = hand.rules
    if hand.wagers + 1 < 1 + rules.max_raises:
        return False
    mode = rules.heads_up_uncapped
    if mode is HeadsUpUncapped.ANY_TIME:
        return not heads_up(hand.players)  # heads-up before the cap is reached: uncapped
    if mode is HeadsUpUncapped.ROUND_START:
        return not hand.heads_up_start
    return True


def raise_block(hand: HandState, index: int) -> str | None:
    """Why the player to act may not bet, complete or raise now, or None if they may."""
    player = hand.players[index]
    level = hand.level
    if player.acted:
        return "the betting was not reopened (an all-in for less than half a bet)"
    if hand.capped:
        return "betting is capped"
    if player.stack + player.bet <= level:
        return "not enough chips to raise (call all-in)"
    for other in hand.players:
        if other is not player and not other.folded and other.stack + other.bet > level:
            return None
    return "no opponent has chips left to call a raise"


def wager_word(hand: HandState) -> Do:
    if hand.street == 3 and hand.wagers == 0:
        return Do.COMPLETE
    return Do.BET if hand.level == 0 else Do.RAISE


CHECK = Choice(Do.CHECK)
FOLD = Choice(Do.FOLD)


def legal_choices(hand: HandState) -> tuple[Choice, ...]:
    """The exact legal decisions of the player to act, with their amounts. A fold is
    always among them (with nothing to call too: a binding fold), except for the
    bring-in player, who must bring in or complete."""
    index = hand.actor
    assert index is not None
    player = hand.players[index]
    reach = player.stack + player.bet
    rules = hand.rules
    if hand.bring_in_due:
        if reach <= rules.bring_in or rules.bring_in == rules.small_bet:
            return (Choice(Do.BRING_IN, min(reach, rules.bring_in)),)
        return (
            Choice(Do.BRING_IN, rules.bring_in),
            Choice(Do.COMPLETE, min(reach, rules.small_bet)),
        )
    level = hand.level
    facing = level > player.bet
    stay = Choice(Do.CALL, min(level, reach)) if facing else CHECK
    if raise_block(hand, index) is not None:
        return (stay, FOLD)
    word = wager_word(hand)
    full_level = hand.full_level
    if hand.size:
        to = full_level + hand.size
        return (stay, Choice(word, min(to, reach)), FOLD)
    # open pair: either size, as far as the stack reaches
    small = min(reach, full_level + rules.small_bet)
    big = min(reach, full_level + rules.big_bet)
    wagers = (Choice(word, small), Choice(word, big)) if big > small else (Choice(word, small),)
    return (stay, *wagers, FOLD)


def choose(hand: HandState, do: Do, to: int | None) -> Choice:
    """The legal choice matching the decision, or IllegalInput naming why it is not legal."""
    choices = legal_choices(hand)
    decision = (do, to)
    if decision in choices:  # exactly as offered (a Choice equals the plain tuple)
        return choices[choices.index(decision)]
    matching = [choice for choice in choices if choice.do is do]
    if len(matching) == 1 and to is None:  # the one amount, not said
        return matching[0]
    index = hand.actor
    assert index is not None
    who = f"seat {hand.players[index].seat} cannot {do.value.replace('_', ' ')}"
    if not matching:
        code, why = _why_not(hand, index, do, choices)
        raise IllegalInput(f"{who}: {why}", code)
    if to is None:
        sizes = " or ".join(str(choice.to) for choice in matching)
        raise IllegalInput(f"{who} without an amount: say 'to' {sizes}", Illegal.AMOUNT_NEEDED)
    for choice in matching:
        if choice.to == to:
            return choice
    allowed = " or ".join(str(choice.to) for choice in matching)
    limit = "over the limit" if to > max(choice.to or 0 for choice in matching) else "not the limit"
    raise IllegalInput(f"{who} to {to}: {limit} (to {allowed})", Illegal.WRONG_AMOUNT)


def _why_not(
    hand: HandState, index: int, do: Do, choices: tuple[Choice, ...]
) -> tuple[Illegal, str]:
    legal = ", ".join(choice.do.value for choice in choices)
    player = hand.players[index]
    if hand.bring_in_due:
        return (
            Illegal.BRING_IN_DUE,
            f"the bring-in player must bring in or complete (legal: {legal})",
        )
    if do is Do.CHECK:
        return Illegal.FACING_BET, f"facing a bet of {hand.level - player.bet} (legal: {legal})"
    if do is Do.CALL:
        return Illegal.NOTHING_TO_CALL, f"there is no bet to call (legal: {legal})"
    if do in (Do.BET, Do.RAISE, Do.COMPLETE):
        block = raise_block(hand, index)
        if block is not None:
            return Illegal.RAISE_CLOSED, block
        wager = wager_word(hand).value
        return Illegal.WRONG_WAGER, f"this round calls for {wager} (legal: {legal})"
    return Illegal.NOT_LEGAL, f"not legal now (legal: {legal})"


def take_decision(hand: H, choice: Choice) -> H:
    """Apply a legal betting decision of the player to act.

    ``actor`` becomes the next player to act this round, or None when the round is over.
    """
    index = hand.actor
    assert index is not None
    player = hand.players[index]
    do, to = choice
    moved = player.passes(do is Do.FOLD) if to is None else player.puts_in(to)
    players = (*hand.players[:index], moved, *hand.players[index + 1 :])
    if to is None or do is Do.CALL:
        actor = next_actor(players, index, hand.level)
        return hand._replace(players=players, bring_in_due=False, actor=actor)
    return _wager(hand, index, players, choice)


def _wager(hand: H, index: int, players: tuple[Player, ...], choice: Choice) -> H:
    """The betting round after a bring-in, completion, bet or raise (already in ``players``)."""
    to = choice.to
    assert to is not None
    level, full_level, wagers, size = hand.level, hand.full_level, hand.wagers, hand.size
    capped = hand.capped
    rules = hand.rules
    if choice.do is Do.BRING_IN:
        level = rules.bring_in
        aggressor = hand.aggressor
        if level == rules.small_bet:  # a bring-in of the whole small bet is the bet
            full_level, wagers, capped = level, 1, reaches_cap(hand)
    else:
        level = max(level, to)
        aggressor = index
        # this wager's size: the round's, or while the open-pair choice is open the small
        # bet if it adds no more than that, else the big bet
        chosen = size or (rules.small_bet if to - full_level <= rules.small_bet else rules.big_bet)
        if (to - full_level) * 2 >= chosen:  # a full wager: it reopens the betting
            # for each player who has acted, unless they matched a short all-in above the
            # last full wager (or the bring-in) and now face less than half a bet more
            floor = max(full_level, rules.bring_in if hand.street == 3 else 0)
            if chosen == rules.big_bet:  # open pair: once the big size is bet or raised,
                size = chosen  # every later wager is big; after small ones both stay open
            capped = capped or reaches_cap(hand)
            wagers += 1
            full_level = to
            players = tuple(
                [
                    p.reopened()
                    if other != index
                    and p.acted
                    and (p.bet <= floor or (level - p.bet) * 2 >= chosen)
                    else p
                    for other, p in enumerate(players)
                ]
            )
    return hand._replace(
        players=players,
        level=level,
        full_level=full_level,
        wagers=wagers,
        capped=capped,
        size=size,
        bring_in_due=False,
        aggressor=aggressor,
        actor=next_actor(players, index, level),
    )


def next_actor(players: Sequence[Player], after: int, level: int) -> int | None:
    """The next player clockwise after ``after`` who still has to act this round."""
    count = len(players)
    for step in range(1, count + 1):
        index = (after + step) % count
        p = players[index]
        if not p.folded and p.stack > 0 and (not p.acted or p.bet < level):
            return index
    return None


def with_player(hand: H, index: int, player: Player) -> H:
    players = hand.players
    return hand._replace(players=(*players[:index], player, *players[index + 1 :]))
