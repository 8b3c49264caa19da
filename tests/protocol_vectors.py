"""The golden vectors of docs/protocol.md, loaded once for every test that passes them.

``VECTORS``/``VECTOR``: version 1 (``protocol_v1.json``), what a version 1 device or host
sends and reads; ``VECTORS_V2``/``VECTOR_V2``: version 2 (``protocol_v2.json``), read by a
receiver that speaks versions 1 and 2. ``FILES``: each file with the versions of the
receiver that passes it.
"""

import json
from pathlib import Path

_HERE = Path(__file__).parent / "vectors"
VECTORS = json.loads((_HERE / "protocol_v1.json").read_text())
VECTOR = {vector["name"]: vector for vector in VECTORS["frames"]}
VECTORS_V2 = json.loads((_HERE / "protocol_v2.json").read_text())
VECTOR_V2 = {vector["name"]: vector for vector in VECTORS_V2["frames"]}
FILES = {1: (VECTORS, VECTOR, (1,)), 2: (VECTORS_V2, VECTOR_V2, (1, 2))}
