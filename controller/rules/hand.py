"""The hand engine: one hand of Luck of the Irish (or plain seven-card stud), from the
antes to the pot award, as a pure state machine.

Using it::

    step = start_hand(rules, {1: 200, 4: 150, 6: 300})   # seats the players, posts antes
    hand, effects = step.hand, step.effects
    hand.waiting_for          # Waiting: a card (and where it goes), a decision, or None
    step = hand.apply(Deal(parse_card("Kd")))            # or apply(hand, input)
    step = hand.apply(Action(Do.CALL, seat=4))
    hand.can(input) / hand.verify(input)                 # check without applying
    hand.holder(card), hand.stacks(), hand.bonus_seats() # the queries (docs/rules.md)
    replay(rules, hand.starting_stacks(), inputs)        # the hand made again

``apply`` returns a ``HandStep(hand, effects)``: the new state and the effects people must
be told of, in order. An input that is not legal now raises ``IllegalInput`` naming the
reason, and nothing changes (every state is immutable). ``Hand.to_json`` and
``Hand.from_json`` round-trip the state; inputs serialize with their own ``to_json``.

Where each rule lives (docs/rules.md states them all, with their sources):

- Seats and antes: ``start_hand``.
- The deal, street by street: ``_begin_street`` (third street two down and one up, in
  rounds; fourth to sixth one up; seventh one down; a burn before fourth to seventh
  street), ``_seventh_street`` (the short deck: no burn, then the burns scrambled back,
  then a community card), ``_deal`` (where each card goes), ``_scramble``.
- The bonus card: ``_earn_bonus`` (a four of clubs dealt face up; when the extra card
  comes; its price offered) and ``_bonus_decision`` (bought or declined). The price is
  dead money in the main pot: ``pots.build_pots``.
- Betting: ``_begin_betting`` (who brings in, who acts first, the open-pair option,
  streets without betting) and ``_decide`` (a decision in turn; a binding fold out of
  turn: ``_fold_out_of_turn``). The legal choices and their amounts, the cap, the
  half-bet rule and the open pair's raises are in ``betting.py``.
- The end of a round and of the hand: ``_end_round``, ``_win_uncontested``; the
  showdown and the pot award in ``showdown.py``, side pots in ``pots.py``. The house's
  rake and jackpot drop, figured by ``pots.house_take``: taken as the hand is settled
  (``showdown.take_house``), or as the pot grows (``_end_round``).
- Corrections, each leaving every card where it lies: ``_expose`` (a face-down card face
  up: on third street the up card comes down), ``_dealt_down`` (an up card face down),
  ``_correct`` (a misread: a bonus card earned late, or an unearned one dead), ``_void``.
- Table settings and their defaults: ``settings.py``; the state's parts: ``state.py``,
  with ``HandState``: all that ``betting.py`` and ``showdown.py`` know of a ``Hand``
  (neither imports this module).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, NotRequired, TypedDict

from controller.rules import betting
from controller.rules.betting import (
    Choice,
    bring_in_card,
    legal_choices,
    showing_key,
    with_player,
)
from controller.rules.cards import Card, parse_card
from controller.rules.effects import (
    AllFolded,
    Ante,
    BonusDecided,
    BonusEarned,
    BringInPasses,
    CardName,
    CommunityCard,
    Corrected,
    DeadCard,
    DealtDown,
    Effect,
    Exposed,
    HouseReturned,
    NoBetting,
    NoBonus,
    OpenPair,
    Scramble,
    SeatData,
    ShortDeck,
    Street,
    ToAct,
    Told,
    Void,
)
from controller.rules.inputs import (
    BETTING_DECISIONS,
    Action,
    Deal,
    Do,
    Illegal,
    IllegalInput,
    Input,
)
from controller.rules.pots import build_pots, house_take, take_from
from controller.rules.settings import BonusTiming, RakeTiming, Rules, RulesJson
from controller.rules.showdown import begin_showdown, reveal, take_house, take_owed
from controller.rules.state import (
    FOUR_OF_CLUBS,
    Dealt,
    Dest,
    Phase,
    Player,
    PlayerJson,
    Pot,
    PotJson,
    Reveal,
)
from controller.rules.waiting import Form, Wait, Waiting, WaitingJson, say_waiting

MAX_SEAT = 8
NOTHING_TAKEN = (0, 0)  # Hand.took: no rake and no drop taken just now


# Effects: what people must be told -------------------------------------------------------


class CardOutData(TypedDict):
    """The data of a card out of the shoe: the card and, but for a burn, where it went
    (``to``); a seat's card: the seat, its face and whether it is the bonus card."""

    card: str
    to: NotRequired[str]  # seat or community
    seat: NotRequired[int | None]
    face: NotRequired[str]  # up or down
    bonus: NotRequired[bool]


class DecisionData(SeatData):
    """The data of a betting decision: what the seat did, the pot after it, the street
    total ``to`` of chips going in, ``out_of_turn`` for a binding fold out of turn."""

    do: str
    pot: int
    to: NotRequired[int]
    out_of_turn: NotRequired[bool]


@dataclass(frozen=True, slots=True)
class CardOut(Effect):
    """A card out of the shoe and where it went (``where``: the deal-queue entry it
    answered): burned, the community card, or to a seat face up or down."""

    card: Card
    where: Waiting

    @property
    def kind(self) -> Told:  # type: ignore[override]  # a class attribute of the other effects
        return Told.BURN if self.where.destination is Dest.BURN else Told.CARD

    @property
    def cards(self) -> tuple[Card, ...]:
        """The community card and an up card are named; a burn, a hole card, a bonus card not."""
        where = self.where
        named = where.destination is Dest.COMMUNITY or (where.destination is Dest.SEAT and where.up)
        return (self.card,) if named else ()

    def say(self, name: CardName = str) -> str:
        return say_waiting(self.where, Form.DEALT, name(self.card))

    @property
    def data(self) -> CardOutData:
        where, card = self.where, str(self.card)
        if where.destination is Dest.BURN:
            return {"card": card}
        if where.destination is Dest.COMMUNITY:
            return {"card": card, "to": "community"}
        face = "up" if where.up else "down"
        bonus = where.destination is Dest.BONUS
        return {"card": card, "to": "seat", "seat": where.seat, "face": face, "bonus": bonus}


_WAGER_WORDS = {
    Do.BRING_IN: "brings in for",
    Do.COMPLETE: "completes to",
    Do.BET: "bets",
    Do.RAISE: "raises to",
    Do.CALL: "calls",
}


@dataclass(frozen=True, slots=True)
class Decision(Effect):
    """A betting decision taken: ``choice`` by ``player`` (as they are just after it),
    with ``pot`` chips in the pot; ``out_of_turn`` for a binding fold out of turn."""

    choice: Choice
    player: Player
    pot: int
    out_of_turn: bool = False

    kind = Told.DECISION

    def say(self, name: CardName = str) -> str:
        choice, seat = self.choice, self.player.seat
        if self.out_of_turn:
            return f"seat {seat} folds out of turn"
        if choice.to is None:
            return f"seat {seat} {'folds' if choice.do is Do.FOLD else 'checks'}"
        all_in = " (all-in)" if self.player.stack == 0 else ""
        return f"seat {seat} {_WAGER_WORDS[choice.do]} {choice.to}{all_in}"

    @property
    def data(self) -> DecisionData:
        choice = self.choice
        data: DecisionData = {"seat": self.player.seat, "do": choice.do.value, "pot": self.pot}
        if choice.to is not None:
            data["to"] = choice.to
        if self.out_of_turn:
            data["out_of_turn"] = True
        return data


# The state -------------------------------------------------------------------------------


class HouseTakeJson(TypedDict, total=False):
    """A hand's take as its records write it (:meth:`Hand.house_json`): the rake and the
    jackpot drop where its rules set a take, neither where they set none."""

    rake: int
    jackpot_drop: int


class HandJson(TypedDict):
    """A hand as the table's snapshots and the floor keep it (:meth:`Hand.to_json`, read
    back by :meth:`Hand.from_json`), :class:`Hand`'s fields by name: ``rules`` every
    setting (``Rules.to_json``); ``rake`` and ``jackpot_drop`` only where the rules set a
    take, ``took`` only while the house took something just now."""

    rules: RulesJson
    players: list[PlayerJson]
    phase: str
    street: int
    queue: list[WaitingJson]
    out: list[str]
    burns: list[str]
    scrambled: bool
    gone: int
    community: str | None
    actor: int | None
    level: int
    full_level: int
    size: int
    wagers: int
    capped: bool
    bring_in_due: bool
    heads_up_start: bool
    first: int | None
    aggressor: int | None
    pots: list[PotJson]
    rake: NotRequired[int]
    jackpot_drop: NotRequired[int]
    took: NotRequired[list[int]]


class HandStep(NamedTuple):
    """What ``apply`` returns: the new state and the effects of the input, in order."""

    hand: Hand
    effects: tuple[Effect, ...]


class Hand(NamedTuple):
    """The whole state of one hand: a named tuple, as every part of the state. Build it
    with ``start_hand``; the engine makes each new state with ``_replace``.

    ``players`` are in seat order. ``queue`` holds the rest of the current street's deal
    and bonus-card offers, in order: what the engine waits for while it deals. ``out`` is
    a bit set of the cards that cannot come out of the shoe (in play, or burned and not
    scrambled back); ``gone`` counts the cards that came out of the shoe and were taken
    out of play without being dealt (``dead``: the shoe holds that many fewer). Betting
    round: ``actor`` (index of the player to act, or to show in a manual showdown),
    ``level`` (the street total to call), ``full_level`` (that of the last full wager),
    ``size`` (the round's bet size, 0 while the open-pair choice is still open),
    ``wagers`` (full bets and raises so far), ``capped`` (the round reached the cap and
    stays capped), ``heads_up_start`` (the round began heads-up), ``first`` (first to
    act), ``aggressor`` (last to bet or raise). Once the hand is complete: ``pots`` as
    awarded. The house's ``rake`` and ``jackpot_drop`` taken from the pot so far (at the
    settlement; with the ``street`` timing also as the pot grows), and what it ``took``
    (rake, drop) the last time, told on the display until the next input.
    """

    rules: Rules
    players: tuple[Player, ...]
    phase: Phase = Phase.DEAL
    street: int = 3
    queue: tuple[Waiting, ...] = ()
    out: int = 0
    burns: tuple[Card, ...] = ()
    scrambled: bool = False
    gone: int = 0
    community: Card | None = None
    actor: int | None = None
    level: int = 0
    full_level: int = 0
    size: int = 0
    wagers: int = 0
    capped: bool = False
    bring_in_due: bool = False
    heads_up_start: bool = False
    first: int | None = None
    aggressor: int | None = None
    pots: tuple[Pot, ...] = ()
    rake: int = 0
    jackpot_drop: int = 0
    took: tuple[int, int] = (0, 0)

    @property
    def stub(self) -> int:
        """Cards left in the shoe (burns that were scrambled back count again; cards taken
        out of play undealt do not)."""
        return 52 - self.out.bit_count() - self.gone

    @property
    def pot(self) -> int:
        """Every chip put in this hand, antes and bought bonus cards included."""
        return sum(p.total for p in self.players)

    @property
    def over(self) -> bool:
        return self.phase in (Phase.COMPLETE, Phase.VOID)

    @property
    def waiting_for(self) -> Waiting | None:
        """What the engine waits for: the head of the deal queue (empty outside the deal),
        or a decision with its exact legal choices, or None when the hand is over."""
        if self.queue:
            return self.queue[0]
        if self.phase is Phase.BETTING:
            assert self.actor is not None
            seat = self.players[self.actor].seat
            return Waiting(Wait.ACTION, seat, street=self.street, legal=legal_choices(self))
        if self.phase is Phase.SHOWDOWN:
            assert self.actor is not None
            choices = (Choice(Do.SHOW), Choice(Do.MUCK))
            return Waiting(Wait.SHOW, self.players[self.actor].seat, legal=choices)
        return None

    def player(self, seat: int) -> Player:
        """The player at ``seat`` (``IllegalInput`` if the seat is not in the hand)."""
        return self.players[_index_of(self.players, seat)]

    # The query API: what the table and the views ask of a hand, in the game's words.

    @property
    def seats(self) -> tuple[int, ...]:
        """The seats dealt in, in seat order (folded or not)."""
        return tuple(p.seat for p in self.players)

    def stacks(self) -> dict[int, int]:
        """Each seat's chips behind now (seat -> chips), in seat order."""
        return {p.seat: p.stack for p in self.players}

    def starting_stacks(self) -> dict[int, int]:
        """Each seat's stack when the hand began, before the ante: with the rules and the
        inputs, all ``replay`` needs to make the hand again."""
        return {p.seat: p.start for p in self.players}

    def holder(self, card: Card) -> int | None:
        """The seat holding ``card`` (up, down, or a bonus card; folded or not), or None:
        no player holds it (still in the shoe, burned, the community card, or a dead card
        taken away)."""
        for player in self.players:
            for dealt in player.cards:
                if dealt.card == card:
                    return player.seat
        return None

    def is_out(self, card: Card) -> bool:
        """Whether ``card`` has come out of the shoe and cannot come out again now: held
        by a player, the community card, a dead card, or burned and not scrambled back."""
        return bool(self.out >> card & 1)

    def dealt(self, card: Card) -> Dealt | None:
        """How ``card`` lies in a player's hand (face, street, bonus card, exposed), or
        None: no player holds it (see ``holder``)."""
        for player in self.players:
            for dealt in player.cards:
                if dealt.card == card:
                    return dealt
        return None

    def cards_out(self) -> frozenset[Card]:
        """Every card ``is_out``: the cards this hand has taken from the deck for good."""
        return frozenset(_cards_of(self.out))

    def bonus_seats(self) -> tuple[int, ...]:
        """The seats whose bonus card is due (to be dealt, or on offer at a price) and not
        yet dealt, in seat order: the bonus lamps."""
        return tuple(
            sorted(
                {
                    waiting.seat
                    for waiting in self.queue
                    if waiting.seat is not None
                    and (waiting.kind == Wait.BONUS or waiting.destination is Dest.BONUS)
                }
            )
        )

    @property
    def scrambled_burns(self) -> tuple[Card, ...]:
        """The burn cards the short deck sent back into the stub (to be scrambled with it
        and loaded in the shoe again), or () when they were not."""
        return self.burns if self.scrambled else ()

    def expects_reload(self, count: int) -> bool:
        """Whether a shoe reporting ``count`` cards loaded is the stub and the scrambled
        burn cards going back in, as this hand asked (see ``scrambled_burns``)."""
        return self.scrambled and count == self.stub

    def current_pots(self) -> tuple[Pot, ...]:
        """The pots, main pot first: as awarded once the hand is complete, else as they
        stand now, with no winners, net of what the house took so far (none for a void
        hand: every chip went back)."""
        if self.pots:
            return self.pots
        pots = build_pots(self.players)
        taken = self.rake + self.jackpot_drop
        return take_from(pots, taken) if taken else pots

    def apply(self, item: Input) -> HandStep:
        """Apply one input; returns the new state and its effects, or raises
        ``IllegalInput`` (and nothing changes)."""
        if self.over:
            over = "void" if self.phase is Phase.VOID else "over"
            raise IllegalInput(f"the hand is {over}", Illegal.HAND_OVER)
        fx: list[Effect] = []
        # what the house took just now is told until the next input
        hand = self if self.took == NOTHING_TAKEN else self._replace(took=NOTHING_TAKEN)
        if isinstance(item, Deal):
            new = _deal(hand, item.card, fx)
        elif not isinstance(item, Action):
            raise IllegalInput(f"not an input: {item!r}", Illegal.NOT_AN_INPUT)
        elif item.do in BETTING_DECISIONS:
            new = _decide(hand, item, fx)
        elif item.do is Do.VOID:
            new = _void(hand, fx)
        elif item.do is Do.CORRECT:
            new = _correct(hand, item, fx)
        elif item.do is Do.DEAD:
            new = _dead(hand, fx)
        else:
            new = _non_betting_action(hand, item, fx)
        return HandStep(new, tuple(fx))

    def verify(self, item: Input) -> None:
        """Raise ``IllegalInput`` if ``item`` is not legal now."""
        apply(self, item)

    def can(self, item: Input) -> bool:
        try:
            apply(self, item)
        except IllegalInput:
            return False
        return True

    def to_json(self) -> HandJson:
        out: HandJson = {
            "rules": self.rules.to_json(),
            "players": [p.to_json() for p in self.players],
            "phase": self.phase.value,
            "street": self.street,
            "queue": [waiting.to_json() for waiting in self.queue],
            "out": [str(card) for card in _cards_of(self.out)],
            "burns": [str(card) for card in self.burns],
            "scrambled": self.scrambled,
            "gone": self.gone,
            "community": None if self.community is None else str(self.community),
            "actor": self.actor,
            "level": self.level,
            "full_level": self.full_level,
            "size": self.size,
            "wagers": self.wagers,
            "capped": self.capped,
            "bring_in_due": self.bring_in_due,
            "heads_up_start": self.heads_up_start,
            "first": self.first,
            "aggressor": self.aggressor,
            "pots": [pot.to_json() for pot in self.pots],
        }
        house = self.house_json()  # these two only with a rake: as before it existed
        if house:
            out["rake"], out["jackpot_drop"] = house["rake"], house["jackpot_drop"]
        if any(self.took):
            out["took"] = list(self.took)
        return out

    def house_json(self) -> HouseTakeJson:
        """The house's take from this hand (``rake``, ``jackpot_drop``) where the rules
        set one, else nothing: a table without a rake records its hands as before."""
        if not self.rules.house_takes:
            return {}
        return {"rake": self.rake, "jackpot_drop": self.jackpot_drop}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Hand:
        community = data["community"]
        out = 0
        for text in data["out"]:
            out |= 1 << parse_card(text)
        return cls(
            rules=Rules.from_mapping(data["rules"]),
            players=tuple(Player.from_json(item) for item in data["players"]),
            phase=Phase(data["phase"]),
            street=data["street"],
            queue=tuple(Waiting.from_json(item) for item in data["queue"]),
            out=out,
            burns=tuple(parse_card(text) for text in data["burns"]),
            scrambled=data["scrambled"],
            gone=data.get("gone", 0),  # absent in states saved before it was kept
            community=None if community is None else parse_card(community),
            actor=data["actor"],
            level=data["level"],
            full_level=data["full_level"],
            size=data["size"],
            wagers=data["wagers"],
            capped=data.get("capped", False),
            bring_in_due=data["bring_in_due"],
            heads_up_start=data["heads_up_start"],
            first=data["first"],
            aggressor=data["aggressor"],
            pots=tuple(Pot.from_json(item) for item in data["pots"]),
            rake=data.get("rake", 0),
            jackpot_drop=data.get("jackpot_drop", 0),
            took=tuple(data.get("took", NOTHING_TAKEN)),
        )


def _cards_of(bits: int) -> tuple[Card, ...]:
    return tuple(Card(code) for code in range(52) if bits >> code & 1)


def start_hand(rules: Rules, stacks: Mapping[int, int]) -> HandStep:
    """Seat the players (seat number -> stack), post the antes, and wait for the first card."""
    if not isinstance(stacks, Mapping):
        raise IllegalInput("seats: expected a mapping of seat number to stack", Illegal.BAD_SEATS)
    for seat, stack in stacks.items():
        if not isinstance(seat, int) or isinstance(seat, bool) or not 1 <= seat <= MAX_SEAT:
            raise IllegalInput(
                f"seat {seat!r}: unknown seat (seats are 1 to {MAX_SEAT})", Illegal.BAD_SEATS
            )
        if not isinstance(stack, int) or isinstance(stack, bool) or stack <= 0:
            raise IllegalInput(
                f"seat {seat}: stack {stack!r} is not a positive number of chips", Illegal.BAD_SEATS
            )
    if len(stacks) < 2:
        raise IllegalInput("a hand needs at least 2 seated players", Illegal.TOO_FEW_PLAYERS)
    fx: list[Effect] = []
    players = []
    for seat in sorted(stacks):
        stack = stacks[seat]
        ante = min(stack, rules.ante)
        players.append(Player(seat, stack, stack - ante, total=ante))
        fx.append(Ante(seat, ante, all_in=ante == stack))
    return HandStep(_begin_street(Hand(rules, tuple(players)), 3, fx), tuple(fx))


def apply(hand: Hand, item: Input) -> HandStep:
    """Apply one input to ``hand`` (``hand.apply(item)``)."""
    return hand.apply(item)


def replay(rules: Rules, stacks: Mapping[int, int], inputs: Iterable[Input]) -> HandStep:
    """The hand made again: ``start_hand(rules, stacks)``, then every input in order (as a
    hand log keeps them). The step holds the last state and every effect, the antes first;
    an input the hand refuses raises ``IllegalInput`` naming its place in ``inputs``."""
    step = start_hand(rules, stacks)
    hand, fx = step.hand, list(step.effects)
    for number, item in enumerate(inputs):
        try:
            step = hand.apply(item)
        except IllegalInput as error:
            raise IllegalInput(f"input {number} ({item!r}): {error}", error.code) from None
        hand = step.hand
        fx.extend(step.effects)
    return HandStep(hand, tuple(fx))


def _non_betting_action(hand: Hand, item: Action, fx: list[Effect]) -> Hand:
    """A bonus-card decision, a show or muck, or an exposed card."""
    seat = item.seat
    if seat is None:
        raise IllegalInput(f"'{item.do}' needs a seat")
    do = item.do
    index = _index_of(hand.players, seat)
    if do is Do.EXPOSE:
        if item.card is None:
            raise IllegalInput("'expose' needs the exposed 'card'")
        return _expose(hand, index, item.card, fx)
    if do is Do.DEALT_DOWN:
        if item.card is None:
            raise IllegalInput("'dealt_down' needs the 'card'")
        return _dealt_down(hand, index, item.card, fx)
    if do is Do.BONUS:
        if item.accept is None:
            raise IllegalInput("'bonus' needs 'accept': true or false")
        return _bonus_decision(hand, index, item.accept, fx)
    return _reveal(hand, index, do, fx)


# The deal ------------------------------------------------------------------------------


def _begin_street(hand: Hand, street: int, fx: list[Effect]) -> Hand:
    """Start dealing ``street``: its deal queue, in order."""
    live = [p.seat for p in hand.players if not p.folded]
    burn = (Waiting.card(Dest.BURN, street),) if hand.rules.burn and street > 3 else ()
    fx.append(Street(street))
    if street == 3:
        down = _cards_to(live, False, 3)
        queue = (*down, *down, *_cards_to(live, True, 3))  # two rounds face down, one up
    elif street < 7:
        queue = (*burn, *_cards_to(live, True, street))
    else:
        hand, queue = _seventh_street(hand, burn, _cards_to(live, False, street), fx)
    hand = hand._replace(
        phase=Phase.DEAL,
        street=street,
        queue=queue,
        actor=None,
        bring_in_due=False,
        level=0,
        full_level=0,
        size=0,
        wagers=0,
        capped=False,
        aggressor=None,
    )
    return _await_card(hand, fx)


def _seventh_street(
    hand: Hand, burn: tuple[Waiting, ...], cards: list[Waiting], fx: list[Effect]
) -> tuple[Hand, tuple[Waiting, ...]]:
    """Seventh street's deal (``burn``: the burn entry, if burning; ``cards``: a card down
    to each player still in), on a short deck the first of these that works:

    1. the stub gives the burn and every player a card: deal as usual;
    2. the stub gives every player a card: no burn;
    3. the burn cards scrambled with the stub give every player a card: scramble them,
       no burn (a burned card may come out again);
    4. one community card face up, after a burn when the stub has two cards or more,
       otherwise from the scrambled burns (from the stub, once they are in it already: the
       burns go back once a hand).
    """
    stub, players = hand.stub, len(cards)
    if stub >= len(burn) + players:
        return hand, (*burn, *cards)
    if stub >= players:
        fx.append(ShortDeck(stub, players))
        return hand, tuple(cards)
    if not hand.scrambled and hand.burns and stub + len(hand.burns) >= players:
        fx.append(ShortDeck(stub, players, scramble=True))
        return _scramble(hand, fx), tuple(cards)
    fx.append(CommunityCard(stub, players))
    community = Waiting.card(Dest.COMMUNITY, 7)
    if stub >= len(burn) + 1:
        return hand, (*burn, community)
    if hand.scrambled:  # the stub ran out before (cards taken out of play): the burns are in it
        return hand, (community,)
    return _scramble(hand, fx), (community,)


def _cards_to(seats: list[int], up: bool, street: int) -> list[Waiting]:
    """The deal queue's entries for a card to each seat, in order."""
    return [Waiting.card(Dest.SEAT, street, seat, up) for seat in seats]


def _scramble(hand: Hand, fx: list[Effect]) -> Hand:
    """The burn cards go back into the stub: they may come out of the shoe again."""
    burns = hand.burns
    fx.append(Scramble(burns))
    out = hand.out
    for card in burns:
        out &= ~(1 << card)
    return hand._replace(out=out, scrambled=True)


def _dead(hand: Hand, fx: list[Effect]) -> Hand:
    """A card out of the shoe was taken out of play without being dealt (the supervisor's
    ``dead``): the shoe holds one card fewer (none fewer once the count says it is empty:
    that card was one more than a deck). An empty stub with a card still due sends the burn
    cards back (as when the stub runs out)."""
    if hand.stub == 0:
        return hand
    hand = hand._replace(gone=hand.gone + 1)
    return _await_card(hand, fx) if hand.queue else hand


def _await_card(hand: Hand, fx: list[Effect]) -> Hand:
    """Settle the deal queue: start the betting when the street is dealt."""
    queue = hand.queue
    if not queue:
        return _begin_betting(hand, fx)
    if hand.stub == 0 and queue[0].kind == Wait.CARD and not hand.scrambled:
        return _scramble(hand, fx)  # the stub is empty
    return hand


def _deal(hand: Hand, card: Card, fx: list[Effect]) -> Hand:
    """The next card out of the shoe goes where the deal queue says."""
    waiting = hand.waiting_for
    assert waiting is not None
    if waiting.kind != Wait.CARD:
        raise IllegalInput(
            f"{card}: not waiting for a card ({waiting.describe()})", Illegal.CARD_NOT_DUE
        )
    if hand.out & 1 << card:
        raise IllegalInput(f"{card}: card already in play", Illegal.CARD_IN_PLAY)
    fx.append(CardOut(card, waiting))
    out, queue = hand.out | 1 << card, hand.queue[1:]
    if waiting.destination is Dest.BURN:
        hand = hand._replace(out=out, queue=queue, burns=(*hand.burns, card))
    elif waiting.destination is Dest.COMMUNITY:
        hand = hand._replace(out=out, queue=queue, community=card)
    else:  # to a seat, face up or down, or the bonus card
        assert waiting.seat is not None
        players = hand.players
        index = _index_of(players, waiting.seat)
        bonus = waiting.destination is Dest.BONUS
        player = players[index].given(Dealt(card, waiting.up, hand.street, bonus))
        players = (*players[:index], player, *players[index + 1 :])
        hand = hand._replace(out=out, queue=queue, players=players)
        if waiting.up and card == FOUR_OF_CLUBS and hand.rules.wild:
            hand = _earn_bonus(hand, index, fx)
    return _await_card(hand, fx)


def _index_of(players: tuple[Player, ...], seat: int) -> int:
    for index, player in enumerate(players):
        if player.seat == seat:
            return index
    raise IllegalInput(
        f"seat {seat}: unknown seat (in this hand: {', '.join(str(p.seat) for p in players)})",
        Illegal.UNKNOWN_SEAT,
    )


def _earn_bonus(hand: Hand, index: int, fx: list[Effect]) -> Hand:
    slots = _bonus_slots(hand, index, fx)
    if hand.rules.bonus_timing is BonusTiming.IMMEDIATE:
        return hand._replace(queue=(*slots, *hand.queue))
    return hand._replace(queue=(*hand.queue, *slots))


def _bonus_slots(hand: Hand, index: int, fx: list[Effect]) -> tuple[Waiting, ...]:
    """What a four of clubs dealt face up to ``players[index]`` adds to the deal queue:
    the bonus card, its offer at a price, or nothing (the player cannot pay)."""
    rules = hand.rules
    player = hand.players[index]
    seat = player.seat
    price = rules.bonus_price
    earned = BonusEarned(seat, price, player.stack)
    fx.append(earned)
    if price == 0:
        return (Waiting.card(Dest.BONUS, hand.street, seat),)
    if earned.offered:
        return (Waiting(Wait.BONUS, seat, price=price),)
    return ()


def _bonus_decision(hand: Hand, index: int, accept: bool, fx: list[Effect]) -> Hand:
    player = hand.players[index]
    waiting = hand.waiting_for
    assert waiting is not None
    if waiting.kind != Wait.BONUS:
        raise IllegalInput(
            f"seat {player.seat}: no bonus card on offer ({waiting.describe()})",
            Illegal.NO_BONUS_OFFER,
        )
    if waiting.seat != player.seat:
        raise IllegalInput(
            f"seat {player.seat}: out of turn ({waiting.describe()})", Illegal.OUT_OF_TURN
        )
    queue = hand.queue[1:]
    price = hand.rules.bonus_price
    if accept:
        player = player._replace(
            stack=player.stack - price,
            total=player.total + price,
            bonus_paid=player.bonus_paid + price,
        )
        hand = with_player(hand, index, player)
        queue = (Waiting.card(Dest.BONUS, hand.street, player.seat), *queue)
    fx.append(BonusDecided(player.seat, accept, price))
    return _await_card(hand._replace(queue=queue), fx)


# Corrections ---------------------------------------------------------------------------


def _void(hand: Hand, fx: list[Effect], exposed: int | None = None) -> Hand:
    """A misdeal: the supervisor's void, or (``exposed``) that seat's three third-street
    cards all face up."""
    players = tuple(
        p._replace(stack=p.start, total=0, bet=0, acted=False, reveal=None, bonus_paid=0)
        for p in hand.players
    )
    if hand.rake or hand.jackpot_drop:  # taken as the pot grew: it goes back too
        fx.append(HouseReturned(hand.rake, hand.jackpot_drop))
    fx.append(Void(exposed))
    return hand._replace(
        players=players,
        phase=Phase.VOID,
        queue=(),
        actor=None,
        pots=(),
        rake=0,
        jackpot_drop=0,
        took=NOTHING_TAKEN,
    )


def _expose(hand: Hand, index: int, card: Card, fx: list[Effect]) -> Hand:
    player = hand.players[index]
    seat = player.seat
    position = next(
        (
            i
            for i, dealt in enumerate(player.cards)
            if dealt.card == card and not dealt.up and not dealt.exposed
        ),
        None,
    )
    if position is None:
        raise IllegalInput(f"{card}: not a face-down card of seat {seat}", Illegal.NOT_HOLE_CARD)
    cards = list(player.cards)
    hole = cards[position]
    if hand.street != 3 or not (hand.phase is Phase.DEAL or hand.bring_in_due):
        cards[position] = hole._replace(exposed=True)
        fx.append(Exposed(seat, card))
        return with_player(hand, index, player._replace(cards=tuple(cards)))
    cards[position] = Dealt(hole.card, True, hole.street, hole.bonus, exposed=True)
    hand = with_player(hand, index, player._replace(cards=tuple(cards)))
    queue = list(hand.queue)
    turned = next(
        (
            i
            for i, waiting in enumerate(queue)
            if waiting.destination is Dest.SEAT and waiting.seat == seat and waiting.up
        ),
        None,
    )
    if turned is not None:
        queue[turned] = Waiting.card(Dest.SEAT, hand.street, seat)
    fx.append(Exposed(seat, card, replaces_up=True, turned=turned is not None))
    hand = hand._replace(queue=tuple(queue))
    regular = [dealt for dealt in cards if dealt.street == 3 and not dealt.bonus]
    if len(regular) == 3 and all(dealt.up for dealt in regular):
        return _void(hand, fx, exposed=seat)
    if hand.phase is Phase.BETTING:
        return _begin_betting(hand, fx)
    return hand


def _dealt_down(hand: Hand, index: int, card: Card, fx: list[Effect]) -> Hand:
    """An up card was dealt face down: the dealer turns it up where it lies; a four of
    clubs dealt face down earns no bonus card (OPR-688, 3.2)."""
    player = hand.players[index]
    seat = player.seat
    dealt = next((d for d in player.cards if d.card == card and d.up and not d.exposed), None)
    if dealt is None:
        raise IllegalInput(f"{card}: not an up card of seat {seat}", Illegal.NOT_UP_CARD)
    fx.append(DealtDown(seat, card))
    if _earns_bonus(hand, dealt):
        return _unearn_bonus(hand, index, fx)
    return hand


def _earns_bonus(hand: Hand, dealt: Dealt) -> bool:
    return dealt.card == FOUR_OF_CLUBS and dealt.up and not dealt.exposed and hand.rules.wild


def _correct(hand: Hand, item: Action, fx: list[Effect]) -> Hand:
    """A misread: the card read as ``was`` is ``card``. Every card stays where it lies;
    only what the corrected card decides changes (the bonus card, the bring-in, who acts
    first)."""
    was, card = item.was, item.card
    if was is None or card is None:
        raise IllegalInput("'correct' needs the 'card' and the card it replaces ('was')")
    if card == was:
        raise IllegalInput(f"{card}: the card read and the card are the same", Illegal.SAME_CARD)
    if hand.out >> card & 1:
        raise IllegalInput(f"{card}: card already in play", Illegal.CARD_IN_PLAY)
    out = hand.out & ~(1 << was) | 1 << card
    for index, player in enumerate(hand.players):
        position = next((i for i, dealt in enumerate(player.cards) if dealt.card == was), None)
        if position is not None:
            return _correct_players_card(hand._replace(out=out), index, position, card, fx)
    if hand.community == was:
        fx.append(Corrected(was, card, Dest.COMMUNITY))
        return hand._replace(community=card, out=out)
    if was in hand.burns:
        burns = tuple(card if burned == was else burned for burned in hand.burns)
        fx.append(Corrected(was, card, Dest.BURN))
        return hand._replace(burns=burns, out=hand.out if hand.scrambled else out)
    raise IllegalInput(f"{was} was not dealt in this hand", Illegal.NOT_DEALT)


def _correct_players_card(
    hand: Hand, index: int, position: int, card: Card, fx: list[Effect]
) -> Hand:
    player = hand.players[index]
    seat = player.seat
    old = player.cards[position]
    cards = (*player.cards[:position], old._replace(card=card), *player.cards[position + 1 :])
    fx.append(Corrected(old.card, card, Dest.SEAT, seat, old.up))
    before = hand
    hand = with_player(hand, index, player._replace(cards=cards))
    if not old.bonus and _earns_bonus(before, old):
        hand = _unearn_bonus(hand, index, fx)
    elif not old.bonus and _earns_bonus(hand, old._replace(card=card)):
        return _late_bonus(hand, index, fx)
    if old.up and hand.phase is Phase.BETTING and before.phase is Phase.BETTING:
        _no_action_yet(hand, f"seat {seat}'s up card")
        return _begin_betting(hand, fx)  # the bring-in or the first to act, again
    return hand


def _no_action_yet(hand: Hand, what: str) -> None:
    if any(player.acted for player in hand.players):
        raise IllegalInput(
            f"{what}: the betting on this street has begun; void the hand instead",
            Illegal.BETTING_BEGUN,
        )


def _late_bonus(hand: Hand, index: int, fx: list[Effect]) -> Hand:
    """A four of clubs face up found by a correction: its bonus card is dealt late, as the
    next card out of the shoe (at the street's end with ``end_of_street``); every card
    already dealt stays where it lies. Once the street's cards are all out, the bonus card
    is dealt before its betting begins (again: nobody has acted yet)."""
    if hand.phase is not Phase.DEAL:
        _no_action_yet(hand, f"seat {hand.players[index].seat}'s bonus card")
        hand = hand._replace(phase=Phase.DEAL, queue=(), actor=None, bring_in_due=False)
    return _await_card(_earn_bonus(hand, index, fx), fx)


def _unearn_bonus(hand: Hand, index: int, fx: list[Effect]) -> Hand:
    """The seat's four of clubs no longer counts as dealt face up: its bonus card is not
    due; a bonus card already dealt is a dead card (taken away face down, out of play)."""
    player = hand.players[index]
    seat = player.seat
    if player.bonus_paid:
        raise IllegalInput(
            f"seat {seat} bought the bonus card: void the hand instead", Illegal.BONUS_BOUGHT
        )
    pending = tuple(
        waiting
        for waiting in hand.queue
        if waiting.seat == seat
        and (waiting.kind == Wait.BONUS or waiting.destination is Dest.BONUS)
    )
    if pending:
        queue = tuple(waiting for waiting in hand.queue if waiting not in pending)
        fx.append(NoBonus(seat))
        return _await_card(hand._replace(queue=queue), fx)
    bonus = next((dealt for dealt in player.cards if dealt.bonus), None)
    if bonus is None:
        return hand
    cards = tuple(dealt for dealt in player.cards if not dealt.bonus)
    fx.append(DeadCard(seat, bonus.card))
    return with_player(hand, index, player._replace(cards=cards))


# Betting -------------------------------------------------------------------------------


def _begin_betting(hand: Hand, fx: list[Effect]) -> Hand:
    rules = hand.rules
    players = hand.players
    live = [i for i, p in enumerate(players) if not p.folded]
    street = hand.street
    size = rules.small_bet if street <= 4 else rules.big_bet
    if street == 3:
        opener = min(live, key=lambda i: bring_in_card(players[i], rules))
    else:
        wild = rules.wild
        keys = [showing_key(players[i].up_cards, wild) for i in live]
        high = max(keys)
        opener = live[keys.index(high)]  # ties: the lowest seat, closest to the dealer's left
    bettors = [i for i in live if players[i].stack > 0]  # can bet: still in, chips behind
    if len(bettors) <= 1:
        fx.append(NoBetting(street))
        return _end_round(hand._replace(first=opener, phase=Phase.BETTING), fx)
    actor = next((i for i in bettors if i >= opener), bettors[0])  # clockwise from the opener
    bring_in_due = street == 3
    if bring_in_due:
        low_seat = players[opener].seat
        if actor != opener:
            fx.append(BringInPasses(players[actor].seat, low_seat))
        fx.append(ToAct(players[actor].seat, 3, low_seat))
    else:
        fx.append(ToAct(players[actor].seat, street, players[opener].seat, high))
        if street == 4 and rules.open_pair_big_bet and high[0] >= 1:  # a pair or better shows
            size = 0
            fx.append(OpenPair(rules.small_bet, rules.big_bet))
    return hand._replace(
        phase=Phase.BETTING,
        actor=actor,
        level=0,
        full_level=0,
        size=size,
        wagers=0,
        capped=False,
        bring_in_due=bring_in_due,
        heads_up_start=len(bettors) <= 2,  # heads-up, as betting.heads_up counts it
        first=actor,
        aggressor=None,
    )


def _decide(hand: Hand, action: Action, fx: list[Effect]) -> Hand:
    """A betting decision."""
    seat = action.seat
    if seat is None:
        raise IllegalInput(f"'{action.do}' needs a seat")
    index = _index_of(hand.players, seat)
    player = hand.players[index]
    do = action.do
    if hand.phase is not Phase.BETTING or hand.actor != index:
        who = f"seat {player.seat} cannot {do.value.replace('_', ' ')}"
        if player.folded:
            raise IllegalInput(f"{who}: seat {player.seat} has folded", Illegal.FOLDED)
        if do is Do.FOLD and hand.phase is Phase.BETTING:
            return _fold_out_of_turn(hand, index, fx)
        waiting = hand.waiting_for
        assert waiting is not None
        if waiting.kind != Wait.ACTION:
            raise IllegalInput(
                f"{who}: not a betting decision now ({waiting.describe()})", Illegal.NOT_BETTING
            )
        raise IllegalInput(f"{who}: out of turn (seat {waiting.seat} to act)", Illegal.OUT_OF_TURN)
    choice = betting.choose(hand, do, action.to)
    hand = betting.take_decision(hand, choice)
    fx.append(Decision(choice, hand.players[index], hand.pot))
    if do is Do.FOLD:
        return _after_fold(hand, fx)
    if hand.actor is None:
        return _end_round(hand, fx)
    return hand


def _fold_out_of_turn(hand: Hand, index: int, fx: list[Effect]) -> Hand:
    """A binding fold out of turn (TDA): the player is out at once; the action does not
    move, and their turn is skipped when it comes."""
    hand = with_player(hand, index, hand.players[index].passes(True))
    fx.append(Decision(betting.FOLD, hand.players[index], hand.pot, out_of_turn=True))
    return _after_fold(hand, fx)


def _after_fold(hand: Hand, fx: list[Effect]) -> Hand:
    """The hand ends when a fold leaves one player; else the round goes on, or ends."""
    remaining = [p for p in hand.players if not p.folded]
    if len(remaining) == 1:
        return _win_uncontested(hand, remaining[0], fx)
    if hand.actor is None:
        return _end_round(hand, fx)
    return hand


def _end_round(hand: Hand, fx: list[Effect]) -> Hand:
    """The betting round is over: the next street, or after seventh street the showdown."""
    hand = hand._replace(players=tuple(p.new_round() for p in hand.players))
    if hand.street == 7:
        return begin_showdown(hand._replace(actor=None, bring_in_due=False), fx)
    if hand.rules.rake_timing is RakeTiming.STREET:  # the house takes as the pot grows
        owed = house_take(hand.rules, hand.players, hand.street + 1)
        hand = take_owed(hand, owed, fx)
    return _begin_street(hand, hand.street + 1, fx)


def _win_uncontested(hand: Hand, winner: Player, fx: list[Effect]) -> Hand:
    seat = winner.seat
    hand, (pot,) = take_house(hand, (Pot(hand.pot, (seat,)),), fx)
    total = pot.amount
    hand = with_player(hand, hand.players.index(winner), winner.wins(total))
    pot = pot._replace(winners=(seat,), shares=((seat, total),))
    fx.append(AllFolded(seat, total, pot.taken))
    return hand._replace(phase=Phase.COMPLETE, actor=None, queue=(), pots=(pot,))


def _reveal(hand: Hand, index: int, do: Do, fx: list[Effect]) -> Hand:
    seat = hand.players[index].seat
    waiting = hand.waiting_for
    assert waiting is not None
    who = f"seat {seat} cannot {do.value}"
    if waiting.kind != Wait.SHOW:
        raise IllegalInput(f"{who}: not the showdown ({waiting.describe()})", Illegal.NOT_SHOWDOWN)
    if hand.actor != index:
        raise IllegalInput(f"{who}: out of turn ({waiting.describe()})", Illegal.OUT_OF_TURN)
    return reveal(hand, index, Reveal.SHOW if do is Do.SHOW else Reveal.MUCK, fx)
