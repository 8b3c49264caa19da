"""The OpenAPI models of the views (``dealer_ui.views.view``) and of the events: what every
response holds, field by field. A field a role does not get is left out of its answer
(the routes answer with ``response_model_exclude_unset``), never sent as null."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class CardOut(BaseModel):
    card: str | None = Field(description="the card ('4c'), or null: face down, not for this role")
    face: str = Field(description="up or down")
    street: int
    bonus: bool = Field(description="the bonus card")
    exposed: bool = Field(
        default=False,
        description="a hole card turned face up by a dealer's error (docs/rules.md)",
    )
    wild: bool = Field(description="a four, wild in Luck of the Irish, that the role may see")


class PlayedOut(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    card: str
    as_: str = Field(alias="as", description="the card it plays as (a wild four's value)")


class ShownOut(BaseModel):
    description: str = Field(description="the hand's value in words")
    best: list[PlayedOut] = Field(description="the best five cards")


class SeatOut(BaseModel):
    seat: int
    player: str
    stack: int
    sitting_out: bool
    in_hand: bool
    bet: int = Field(description="chips bet on this street")
    folded: bool
    all_in: bool
    to_act: bool
    cards: list[CardOut]
    shown: ShownOut | None = Field(description="at the showdown, a hand tabled: its best five")
    mucked: bool | None = Field(default=None, description="in a hand: the hand was mucked")


class ChoiceOut(BaseModel):
    do: str = Field(description="bring_in, complete, check, call, bet, raise, fold, bonus, ...")
    to: int | None = Field(default=None, description="the street total it puts in")
    accept: bool | None = Field(default=None, description="for the bonus card: take it or not")


class NextOut(BaseModel):
    """What the hand waits for: a card (where it goes) or a seat's decision."""

    kind: str = Field(description="card, action, bonus or show")
    destination: str | None = Field(default=None, description="seat, burn, bonus, community")
    seat: int | None = None
    face: str | None = None
    street: int | None = None
    price: int | None = Field(default=None, description="the bonus card's price")
    legal: list[ChoiceOut] | None = None


class PotOut(BaseModel):
    amount: int
    eligible: list[int]
    winners: list[int]
    shares: dict[str, int] = Field(description="seat -> chips won, once awarded")
    taken: int | None = Field(
        default=None,
        description="once awarded: the house's rake and jackpot drop taken from this pot "
        "(`amount` is net of it); absent when the house took nothing from it",
    )


class LampsOut(BaseModel):
    bonus: bool = Field(description="the shoe's bonus lamp")
    seats: list[int] = Field(description="the seats whose lamps are lit")


class AlertOut(BaseModel):
    id: int
    kind: str
    severity: str = Field(description="fault (red), abnormal (yellow), action (blue)")
    blocking: bool = Field(description="the table is paused while it is open")
    message: str
    remedy: str
    remedies: list[str] = Field(description="the supervisor's remedies it takes")
    seat: int | None
    device: str | None
    raised_at: int = Field(description="ms since the epoch")
    acknowledged_by: str | None = Field(description="the dealer who acknowledged it")
    card: str | None = Field(default=None, description="its card, when the role may see it")


class PlacementOut(BaseModel):
    seat: int
    card: str


class ViewOut(BaseModel):
    """The table as the caller's role may see it (see docs/api.md)."""

    role: str
    seat: int | None = Field(description="a player's seat")
    hand_number: int
    step: int = Field(
        description="the hand's inputs so far (cards dealt, decisions): a decision sent with "
        "this `step` and `hand_number` is refused once the table has moved on"
    )
    in_hand: bool
    paused: bool
    deck_ready: bool
    tag_checks: bool = Field(
        description="every card's tag is checked against the deck the shoe registered "
        "(false: a reader without tag UIDs; the console says so)"
    )
    display: str = Field(description="the dealer's instruction, or the broadcast line")
    mode: str = Field(
        description="what `display` is about, as data (paused, scramble, load_deck, "
        "waiting_for_players, ready, between_hands, deal, burn, community, bonus_card, "
        "bonus_offer, betting, showdown): docs/api.md"
    )
    lamps: LampsOut
    links: list[str] = Field(description="the devices whose link is up")
    next: NextOut | None
    waiting: str | None = Field(default=None, description="what the hand waits for, in words")
    street: int | None
    phase: str | None
    community: str | None
    pot: int
    pots: list[PotOut]
    rake: int | None = Field(
        default=None, description="a table with a rake: the hand's rake (0 until it is settled)"
    )
    jackpot_drop: int | None = Field(
        default=None, description="a table with a jackpot drop: the hand's drop (0 until settled)"
    )
    choices: list[ChoiceOut] = Field(description="the legal decisions, for whom may decide")
    seats: list[SeatOut]
    alerts: list[AlertOut] = Field(description="the open alerts (dealer and surveillance)")
    burns: list[str] | None = Field(default=None, description="surveillance: the burn cards")
    held: list[str] | None = Field(default=None, description="surveillance: held cards")
    unconfirmed: list[PlacementOut] | None = Field(
        default=None, description="surveillance: cards the seat board has not confirmed"
    )


class EventOut(BaseModel):
    """What happened; for surveillance also the effect's data fields."""

    model_config = ConfigDict(extra="allow")
    kind: str
    message: str


class StepOut(BaseModel):
    position: int = Field(description="the journal position of the input")
    events: list[EventOut] = Field(description="what happened, as the caller may see it")
    view: ViewOut
