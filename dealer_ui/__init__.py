"""The dealer console and the live feeds: a FastAPI app served inside the table service.

``create_app(service)`` builds the app (REST under ``/api``, WebSocket feed at ``/ws``, the
console page at ``/``); ``serve(service)`` runs it with uvicorn on the service's event
loop at the configuration's API address. ``view(table, role, seat)`` decides what each
role may see.
"""

from dealer_ui.app import create_app
from dealer_ui.server import serve
from dealer_ui.views import Role, view

__all__ = ["Role", "create_app", "serve", "view"]
