"""The simulated table: an automatic dealer and players on simulated devices.

``luck-table sim`` (``controller.cli.sim_command``) runs it; docs/sim.md describes it.
"""
