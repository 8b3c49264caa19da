"""The link at line speed, faults and reconnects, the short version of ``bench/soak.py`` for CI.

The simulator runs as its own process at 115200 baud, with 1% of its frames corrupted, 1%
dropped and 1% duplicated; the dealer draws 2,000 cards as fast as the link takes them, pulls
the cable three times for 2 s (drawing on meanwhile, so that a backlog waits) and power-cycles
the shoe once; the host is the real ShoeDriver acknowledging after commit. Every card must
arrive once, in order, and the first card drawn after each reconnect within the wire time of
the backlog ahead of it plus 1 s (no livelock of RESENDs and go-back-N rounds).
"""

import pytest

from bench import soak
from bench.soak import Dealer, Plan, figures, run_phase

pytestmark = pytest.mark.slow  # thousands of cards through real links


@pytest.mark.slow
@pytest.mark.parametrize("link", ["pty", "tcp"])
def test_two_thousand_cards_at_line_speed_with_faults_unplugs_and_a_restart(link):
    run = run_phase(Plan(link=link, cards=2000, unplugs=3, seed=5))
    f = figures(run)
    assert len(run.drawn) == 2000
    assert (f.lost, f.duplicated, f.out_of_order, f.wrong_card) == ([], 0, 0, 0)
    assert len(f.probes) == 3
    for probe, latency in f.probes:
        assert probe.backlog > 100
        assert latency <= probe.bound, f"behind {probe.backlog} events: {latency:.2f} s"
    [restart] = [up for up in run.link_ups if up.restarted]
    assert restart.lost == () and run.restart_lost == 0


def test_a_stalled_run_fails_with_what_the_dealer_the_link_and_the_simulator_were_doing(
    monkeypatch,
):
    """The dealer draws three cards and then hangs: the run fails after STALL_S with the
    trace of the dealer's steps and the host's events, the dealer's stack, the host
    session's state and frames, and the simulator's status."""

    def draw_three_and_hang(dealer: Dealer) -> None:
        for _ in range(3):
            dealer.draw()
        dealer.stop.wait()

    monkeypatch.setattr(soak, "STALL_S", 1.0)
    monkeypatch.setattr(Dealer, "deal", draw_three_and_hang)
    with pytest.raises(RuntimeError) as stalled:
        run_phase(Plan(link="pty", cards=10, unplugs=0, restart=False, fault_rate=0.0))
    report = str(stalled.value)
    assert report.startswith("no event for 1 s: the link stalled\n")
    assert "dealer: drew 2" in report and "host: card 2" in report
    assert "in draw_three_and_hang" in report and "dealer.stop.wait()" in report
    assert "the host's link: {'up': True, 'connected': True" in report
    assert "'expected': 4, 'acked': 3" in report  # the deck and three cards
    assert "'<', 'CARD', 3)" in report and "'>', 'ACK', 3)" in report
    assert "the simulator: {" in report and "'pending': 0" in report
