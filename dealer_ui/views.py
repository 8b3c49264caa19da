"""What each role may see of the table: the one place that decides (docs/api.md, "Who may
see what"). Texts are made for the role from their records, each card named through
:func:`namer` ("a card" for one the role may not see), never by searching a text.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import NotRequired, TypedDict

from controller.rules import (
    Card,
    Dealt,
    Effect,
    Form,
    Hand,
    Phase,
    Player,
    Reveal,
    say_waiting,
)
from controller.rules.betting import ChoiceJson
from controller.rules.effects import CardName, EffectJson
from controller.rules.evaluator import PlayedJson
from controller.rules.showdown import hand_value
from controller.rules.state import PotJson
from controller.rules.waiting import WaitingJson
from controller.table import Alert, Table
from controller.table.alerts import AlertShownJson
from controller.table.effects import DisplayChanged
from controller.table.state import LampsJson, Mode, PlacementJson, signals, waiting_mode

HIDDEN = "a card"


# The view's JSON (docs/api.md, "Who may see what"; dealer_ui.models: its OpenAPI), key by
# key in the order it is sent. The engine's own records in it (``next``, ``pots``,
# ``choices``, ``lamps``, ``unconfirmed``) are their ``to_json``'s.


class CardJson(TypedDict):
    """A card at a seat: ``card`` None when the role may not see it."""

    card: str | None
    face: str  # up or down
    street: int
    bonus: bool
    exposed: bool
    wild: bool


class ShownJson(TypedDict):
    """A hand tabled at the showdown: its value in words and its best five."""

    description: str
    best: list[PlayedJson]


class SeatJson(TypedDict):
    """A seat as a role may see it: its player and stack, and in a hand what they hold."""

    seat: int
    player: str
    stack: int
    sitting_out: bool
    in_hand: bool
    bet: int
    folded: bool
    all_in: bool
    to_act: bool
    cards: list[CardJson]
    shown: ShownJson | None
    mucked: NotRequired[bool]  # a seat dealt in the hand


class AlertJson(AlertShownJson):
    """An open alert as the dealer and surveillance see it, its words as they may read them."""

    card: NotRequired[str | None]  # only when the role may see it


class ViewJson(TypedDict):
    """The table as a role may see it."""

    role: str
    seat: int | None
    hand_number: int
    step: int
    in_hand: bool
    paused: bool
    deck_ready: bool
    tag_checks: bool
    display: str
    mode: str
    lamps: LampsJson
    links: list[str]
    next: WaitingJson | None
    waiting: str | None
    street: int | None
    phase: str | None
    community: str | None
    pot: int
    pots: list[PotJson]
    choices: list[ChoiceJson]
    seats: list[SeatJson]
    alerts: list[AlertJson]
    rake: NotRequired[int]  # a hand at a table where the house takes: after ``alerts``
    jackpot_drop: NotRequired[int]
    burns: NotRequired[list[str]]  # surveillance only
    held: NotRequired[list[str]]
    unconfirmed: NotRequired[list[PlacementJson]]


class Role(StrEnum):
    DEALER = "dealer"
    PUBLIC = "public"
    PLAYER = "player"
    SURVEILLANCE = "surveillance"


def shown(player: Player) -> bool:
    """The player's hand was tabled at the showdown."""
    return player.reveal is Reveal.SHOW and not player.folded


def may_see(role: Role, seat: int | None, player: Player, dealt: Dealt) -> bool:
    """Whether ``role`` (a player: at ``seat``) may see this card of ``player``'s."""
    if role is Role.SURVEILLANCE or dealt.up or dealt.exposed or shown(player):
        return True
    return role is Role.PLAYER and seat == player.seat


def hand_seat(table: Table, role: Role, seat: int | None) -> int | None:
    """The seat whose hole cards in the table's hand a player at ``seat`` sees as their
    own: theirs only if their sitting was dealt in that hand (a player who sat down after
    it never sees the previous occupant's cards); None for the other roles."""
    if role is Role.PLAYER and seat is not None and table.dealt_in(seat):
        return seat
    return None


def visible_cards(table: Table, role: Role, seat: int | None = None) -> frozenset[str]:
    """The names of the cards ``role`` may see now."""
    hand = table.hand
    if hand is None:
        return frozenset()
    seat = hand_seat(table, role, seat)
    players = [hand.player(number) for number in hand.seats]
    names = {
        str(dealt.card)
        for player in players
        for dealt in player.cards
        if may_see(role, seat, player, dealt)
    }
    if hand.community is not None:
        names.add(str(hand.community))
    if role is Role.SURVEILLANCE:
        names.update(str(card) for card in (*hand.burns, *table.held))
    return frozenset(names)


def namer(visible: Iterable[str] | None) -> CardName:
    """How a role names a card: by its name if it is in ``visible`` (None: every card),
    else "a card"."""
    if visible is None:
        return str
    allowed = frozenset(visible)

    def name(card: Card) -> str:
        return str(card) if str(card) in allowed else HIDDEN

    return name


def broadcast_line(table: Table) -> str:
    """What is happening, in a viewer's words: the public's and the players' line in place
    of the dealer's instruction. It names whose turn it is and a bonus card going to a
    seat, never the dealer's steps (no burn, no "deal: seat 3, face up") nor an alert's
    words (the pause only)."""
    hand = table.hand
    if table.paused:
        return "Table paused"
    if hand is None:
        return "Waiting for the first hand"
    if not table.in_hand:
        return f"Hand {table.hand_number} {'void' if hand.phase is Phase.VOID else 'over'}"
    waiting = hand.waiting_for
    assert waiting is not None
    return say_waiting(waiting, Form.BROADCAST)


def broadcast_mode(table: Table) -> Mode:
    """What the broadcast line (:func:`broadcast_line`) is about: the dealer's steps it
    leaves out are not told by its mode either (a burn is dealing, as the line says)."""
    hand = table.hand
    if table.paused:
        return Mode.PAUSED
    if hand is None or not table.in_hand:
        return Mode.BETWEEN_HANDS
    waiting = hand.waiting_for
    assert waiting is not None
    mode = waiting_mode(waiting)
    return Mode.DEAL if mode is Mode.BURN else mode


def view(table: Table, role: Role | str, seat: int | None = None) -> ViewJson:
    """The table as ``role`` may see it (a player: the one at ``seat``), as JSON."""
    role = Role(role)
    everything = role is Role.SURVEILLANCE
    visible = None if everything else visible_cards(table, role, seat)
    hand = table.hand
    if role in (Role.PUBLIC, Role.PLAYER):
        display, mode = broadcast_line(table), broadcast_mode(table)
    else:
        line = signals(table, namer(visible))
        display, mode = line.display, line.mode
    out: ViewJson = {
        "role": role.value,
        "seat": seat,
        "hand_number": table.hand_number,
        "step": len(table.hand_log),
        "in_hand": table.in_hand,
        "paused": table.paused,
        "deck_ready": table.deck_ready,
        "tag_checks": table.settings.protection.tag_checks,
        "display": display,
        "mode": mode.value,
        "lamps": table.signals.lamps.to_json(),
        "links": [device.value for device in table.links],
        "next": None,
        "waiting": None,
        "street": None,
        "phase": None,
        "community": None,
        "pot": 0,
        "pots": [],
        "choices": [],
        "seats": _seats(table, role, seat),
        "alerts": (
            [_alert(a, visible) for a in table.alerts]
            if role in (Role.DEALER, Role.SURVEILLANCE)
            else []
        ),
    }
    if hand is not None:
        _hand(out, hand, role, seat, paused=table.paused)
    if everything:
        out["burns"] = [] if hand is None else [str(card) for card in hand.burns]
        out["held"] = [str(card) for card in table.held]
        out["unconfirmed"] = [placement.to_json() for placement in table.unconfirmed]
    return out


def effects_view(
    effects: Iterable[Effect], table: Table, role: Role | str, seat: int | None = None
) -> list[EffectJson]:
    """The effects of an update (``table``: after it) as ``role`` may see them: kind and
    message (each card named as the role may see it); the surveillance role also gets
    their data. The display's instruction is the role's display line, as in their view."""
    role = Role(role)
    if role is Role.SURVEILLANCE:
        return [effect.to_json() for effect in effects]
    visible = visible_cards(table, role, seat)
    name = namer(visible)
    viewer = role in (Role.PUBLIC, Role.PLAYER)
    display = broadcast_line(table) if viewer else signals(table, name).display
    out = []
    for effect in effects:
        message = display if isinstance(effect, DisplayChanged) else effect.say(name)
        out.append({"kind": str(effect.kind), "message": message})
    return out


def _seats(table: Table, role: Role, seat: int | None) -> list[SeatJson]:
    """Each seat; the hand's cards at a seat only for the sitting the hand dealt in."""
    hand = table.hand
    players = {} if hand is None else {number: hand.player(number) for number in hand.seats}
    actor = _actor(hand)
    own = hand_seat(table, role, seat)
    out: list[SeatJson] = []
    for place in table.seats:
        player = players.get(place.seat) if table.dealt_in(place.seat) else None
        entry: SeatJson = {
            "seat": place.seat,
            "player": place.player,
            "stack": place.stack,
            "sitting_out": place.sitting_out,
            "in_hand": player is not None,
            "bet": 0,
            "folded": False,
            "all_in": False,
            "to_act": actor == place.seat,
            "cards": [],
            "shown": None,
        }
        if player is not None and hand is not None:
            _player(entry, hand, player, role, own)
            if not table.in_hand:  # the last hand's cards; the stack as it is now (a rebuy)
                entry["stack"] = place.stack
        out.append(entry)
    return out


def _player(entry: SeatJson, hand: Hand, player: Player, role: Role, seat: int | None) -> None:
    """The seat's ``entry`` with what its player holds in ``hand``, as ``role`` may see it."""
    wild = hand.rules.wild
    cards: list[CardJson] = []
    for dealt in player.cards:
        seen = may_see(role, seat, player, dealt)
        cards.append(
            {
                "card": str(dealt.card) if seen else None,
                "face": "up" if dealt.up else "down",
                "street": dealt.street,
                "bonus": dealt.bonus,
                "exposed": dealt.exposed,
                "wild": seen and wild and dealt.card.rank == 4,
            }
        )
    entry["stack"] = player.stack
    entry["bet"] = player.bet
    entry["folded"] = player.folded
    entry["all_in"] = player.stack == 0 and not player.folded and hand.phase is not Phase.VOID
    entry["cards"] = cards
    entry["mucked"] = player.reveal is Reveal.MUCK
    if shown(player) and hand.phase is Phase.COMPLETE:
        value = hand_value(hand, player)
        entry["shown"] = {
            "description": value.description,
            "best": [played.to_json() for played in value.played],
        }


def _actor(hand: Hand | None) -> int | None:
    if hand is None or hand.over:
        return None
    waiting = hand.waiting_for
    if waiting is None or waiting.kind == "card":
        return None
    return waiting.seat


def _hand(out: ViewJson, hand: Hand, role: Role, seat: int | None, *, paused: bool) -> None:
    """The view ``out`` with the hand's part; ``choices`` only for whom may decide, and none
    while the table is paused (a pause stops the action: the table refuses every decision).
    The house's take (``rake``, ``jackpot_drop``) comes after the view's other keys."""
    waiting = None if hand.over else hand.waiting_for
    out["street"] = hand.street
    out["phase"] = hand.phase.value
    out["community"] = None if hand.community is None else str(hand.community)
    out["pot"] = hand.pot
    out["pots"] = [pot.to_json() for pot in hand.current_pots()]
    out["next"] = None if waiting is None else waiting.to_json()
    out["waiting"] = None if waiting is None else waiting.describe()
    house = hand.house_json()  # a table without a house's take has neither
    if house:
        out["rake"], out["jackpot_drop"] = house["rake"], house["jackpot_drop"]
    may_decide = role in (Role.DEALER, Role.SURVEILLANCE) or (
        role is Role.PLAYER and waiting is not None and waiting.seat == seat
    )
    if waiting is not None and waiting.kind != "card" and may_decide and not paused:
        out["choices"] = waiting.to_json()["legal"]


def _alert(alert: Alert, visible: frozenset[str] | None) -> AlertJson:
    rule, facts, name = alert.rule, alert.facts, namer(visible)
    out: AlertJson = {
        "id": alert.id,
        "kind": alert.kind.value,
        "severity": rule.severity.value,
        "blocking": rule.blocking,
        "message": facts.say(name),
        "remedy": facts.todo(name),
        "remedies": [remedy.value for remedy in rule.remedies],
        "seat": alert.seat,
        "device": None if alert.device is None else alert.device.value,
        "raised_at": alert.raised_at,
        "acknowledged_by": alert.acknowledged_by,
    }
    if visible is None or (alert.card is not None and str(alert.card) in visible):
        out["card"] = None if alert.card is None else str(alert.card)
    return out
