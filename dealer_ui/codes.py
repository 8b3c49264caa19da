"""Why the console's and the floor service's APIs answered an error of their own, as data.

Every error answer carries a ``code`` beside its ``error`` (docs/api.md, "Errors"): the
table's refusal of an input (``controller.table.Refuse``, the engine's
``controller.rules.Illegal``), a credential's or a caller's (``dealer_ui.auth.Denied``), a
table that takes no input (``controller.service.Halted``), or one of these: what the API
itself found wrong with the request, or what it cannot reach. The words of ``reason`` say
the same for people; a client decides on the code, never on them.
"""

from enum import StrEnum


class Declined(StrEnum):
    """The API's own reasons (``code``), by the status they come with."""

    # before the API reads the request (the guard: docs/security.md)
    WRONG_HOST = "wrong_host"  # a Host header that is not a name of the table (400)
    BAD_LENGTH = "bad_length"  # a Content-Length that is not a number (400)
    WRONG_ORIGIN = "wrong_origin"  # a browser's Origin other than the page's own (403)
    CHUNKED_BODY = "chunked_body"  # a body without a Content-Length (411)
    BODY_TOO_LARGE = "body_too_large"  # a body over [api] max_body (413)
    TOO_MANY_WRITES = "too_many_writes"  # state-changing requests over the rate (429)
    # 404, 405: what the request names is not there
    NO_PATH = "no_path"  # a path the API does not have
    METHOD_NOT_ALLOWED = "method_not_allowed"  # a method the path does not take (405)
    UNKNOWN_HAND = "unknown_hand"  # a past hand the journal (the floor) does not have
    UNKNOWN_TABLE = "unknown_table"  # a table the floor does not know
    NO_CONSOLE = "no_console"  # the floor service has no console configured for the table
    NO_BADGE_READER = "no_badge_reader"  # a badge tap at a console without a reader
    NOT_LOCKED = "not_locked"  # an unlock of an id that is not locked
    REQUEST_GONE = "request_gone"  # a request no longer waiting (approved, cancelled, expired)
    TOKEN_NOT_HELD = "token_not_held"  # a studio token's revocation that none holds
    # 409
    STALE = "stale"  # made for a moment the table has moved on from: not journaled
    NOT_CONNECTED = "not_connected"  # the pit: connect to the table's console first
    TABLE_ANSWERED = "table_answered"  # the pit: a table's error without a code (older)
    # 422: the request is malformed
    INVALID_FIELD = "invalid_field"  # a field its model or rule refuses (named)
    UNREADABLE_BODY = "unreadable_body"  # a body that is not JSON text at all
    INVALID_REQUEST = "invalid_request"  # another request the framework cannot take
    INVALID_INPUT = "invalid_input"  # an input the table cannot read as one
    ID_OR_BADGE = "id_or_badge"  # a sign-in needs an id or a badge tap, one of them
    UNKNOWN_ACTION = "unknown_action"  # a request for an action the API does not have
    PIN_IN_REQUEST = "pin_in_request"  # a request carries no supervisor's id or PIN
    TABLE_ID_NEEDED = "table_id_needed"  # the pit: a session's number without its table
    # 503: what the service needs does not answer now (try again)
    JOURNAL_WAITS = "journal_waits"  # the table waits to open its journal at its start
    FLOOR_UNREACHABLE = "floor_unreachable"  # the floor's database cannot be reached
    FLOOR_BUSY = "floor_busy"  # the floor's database did not answer within its timeout
    FLOOR_ERROR = "floor_error"  # the floor's database answered another error
    FLOOR_SCHEMA = "floor_schema"  # the floor's schema is not one this release reads
    TABLE_UNREACHABLE = "table_unreachable"  # the pit: a table's console does not answer
    NOT_FOLLOWING = "not_following"  # the relay does not follow the table's feed now
    STUDIO_SLOTS_TAKEN = "studio_slots_taken"  # the relay: as many studio viewers as it takes
