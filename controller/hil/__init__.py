"""Hardware-in-the-loop scenarios (docs/scenarios.md): a scenario file scripts the physical
world step by step and says what the table must show after each step;
:func:`run_scenario` runs one on simulator processes or on real devices.

    scenario = load_scenario("tests/scenarios/bonus_card_immediate.toml")  # ScenarioError
    result = await run_scenario(scenario)        # prints ok/FAIL per step
    result.ok, result.failed                     # the failed step's number, or None
"""

from controller.hil.runner import Result, run_scenario
from controller.hil.scenario import Scenario, ScenarioError, ScenarioStep, load_scenario

__all__ = ["Result", "Scenario", "ScenarioError", "ScenarioStep", "load_scenario", "run_scenario"]
