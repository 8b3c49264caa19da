"""PC/SC card readers (pcsc-lite's ``pcscd``, through pyscard) as the table's shoe, seat
board and console badge reader: docs/hardware.md.

``scard``: the blocking thread that watches readers; ``deck``: the deck file (tag UID to
card); ``mapping``: what a reader sees as the drivers' events; ``device``: the asyncio
drivers ``PcscShoe`` and ``PcscSeats``.
"""
