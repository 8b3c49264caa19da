"""The floor service: the pit view of every table on the floor, from the floor store.

``create_app(config)`` builds the FastAPI app (REST under ``/api``, the live floor on the
WebSocket ``/ws``, the pit page at ``/``); ``luck-table floor`` serves it with uvicorn
(``controller.cli.floor_command``). Its configuration: :mod:`dealer_ui.pit.config`; the live
feed: :mod:`dealer_ui.pit.live`. Part of the web layer: its routes stand on
:mod:`dealer_ui.web`, as the console's do (the guard, the errors, sign-in, sessions and the
feed's pump are the same code). docs/floor.md.
"""

from dealer_ui.pit.app import create_app
from dealer_ui.pit.config import FloorConfig, load_floor_config

__all__ = ["FloorConfig", "create_app", "load_floor_config"]
