"""The floor service: the pit view of every table on the floor, from the floor store.

``create_app(config)`` builds the FastAPI app (REST under ``/api``, the live floor on the
WebSocket ``/ws``, the pit page at ``/``); ``luck-table floor`` serves it with uvicorn
(``controller.cli.floor_command``). Its configuration: :mod:`pit_ui.config`; the live
feed: :mod:`pit_ui.live`. docs/floor.md.
"""

from pit_ui.app import create_app
from pit_ui.config import FloorConfig, load_floor_config

__all__ = ["FloorConfig", "create_app", "load_floor_config"]
