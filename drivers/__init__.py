"""Table hardware: the wire protocol codec, transports, sessions and device drivers."""
