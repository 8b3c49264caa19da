"""The golden vectors of docs/protocol.md, loaded once for every test that passes them."""

import json
from pathlib import Path

VECTORS = json.loads((Path(__file__).parent / "vectors" / "protocol_v1.json").read_text())
VECTOR = {vector["name"]: vector for vector in VECTORS["frames"]}
