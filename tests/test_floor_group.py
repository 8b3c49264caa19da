"""A group of casinos: each floor's publication, and the group's central database subscribed
to two floors, end to end, on a PostgreSQL cluster of the test's own with ``wal_level =
logical`` (``tests/cluster_kit.py``; the machine's shared server runs with ``replica``)."""

from __future__ import annotations

import dataclasses
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from controller.cli import main
from controller.floor import group, retention, store
from controller.floor.migrate import migrate
from controller.journal import Journal
from tests.cluster_kit import Cluster, private_cluster
from tests.floor_kit import floor_database, wait_for, write_journal
from tests.test_floor_store import batches, shipped

pytestmark = pytest.mark.slow  # PostgreSQL

#: The cluster: logical replication, and workers enough for two subscriptions' first copies
#: at once; a worker that failed is started again within 0.1 s, not 5.
LOGICAL = {
    "wal_level": "logical",
    "max_worker_processes": 16,
    "max_logical_replication_workers": 8,
    "max_sync_workers_per_subscription": 4,
    "wal_retrieve_retry_interval": "'100ms'",
    "timezone": "'UTC'",
}
#: Seconds the central may take to hold what a floor committed.
LAG = 20.0
#: The tables whose rows stay on a floor.
FLOOR_ONLY = ("floor_table_sessions", "floor_table_status", "floor_journal_entries")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with private_cluster(LOGICAL) as running:
        yield running


def connect(dsn: str) -> psycopg.Connection:
    return psycopg.connect(dsn, autocommit=True, connect_timeout=5)


def now_ms(hours_ago: float) -> int:
    return int((time.time() - hours_ago * 3600) * 1000)


def deck_tags(deck: int) -> list[str]:
    return [f"04{deck:02x}{card:02x}c0ffee" for card in range(52)]


def journal(path: Path, hands: int, seed: int, clock: int, deck=None) -> Path:
    return write_journal(path, hands, seed, clock, deck, durable=False)


def cut(path: Path, table_id: str, *shares: float) -> list[list]:
    """The journal's batches, as its shipper cuts them, in runs: the first ``shares[0]`` of
    them, the next ``shares[1]``, ..., then the rest."""
    with Journal.open(path, create=False) as journal:
        shipped = batches(journal, 25, table_id)
    ends = [round(len(shipped) * sum(shares[: n + 1])) for n in range(len(shares))]
    return [shipped[a:b] for a, b in zip([0, *ends], [*ends, len(shipped)], strict=True)]


def ship(floor: psycopg.Connection, run: list) -> None:
    for batch in run:
        store.ingest(floor, batch)


def rows(connection: psycopg.Connection, table: str, prefix: str) -> list[str]:
    """A table's rows of the tables whose id starts with ``prefix``, each as JSON text,
    in order."""
    query = sql.SQL("SELECT to_jsonb(t)::text FROM {} t WHERE table_id LIKE %s ORDER BY 1").format(
        sql.Identifier(table)
    )
    return [row[0] for row in connection.execute(query, (f"{prefix}%",)).fetchall()]


def holds(central: psycopg.Connection, floor: psycopg.Connection, prefix: str) -> bool:
    """The central database holds the floor's published rows of the tables whose id starts
    with ``prefix``, as the floor holds them."""
    return all(rows(central, t, prefix) == rows(floor, t, prefix) for t in group.PUBLISHED)


def apply_errors(central: psycopg.Connection, name: str) -> int:
    found = central.execute(
        "SELECT apply_error_count FROM pg_stat_subscription_stats WHERE subname = %s", (name,)
    ).fetchone()
    return 0 if found is None else found[0]


def floor_group(*argv: str) -> int:
    """``luck-table floor-group ARGV...``, in this process."""
    return main(["floor-group", *argv])


def test_a_floor_publishes_its_history_not_its_live_state_nor_its_bulk(capsys):
    with floor_database() as dsn, connect(dsn) as connection:
        assert floor_group("publish", "--dsn", dsn) == 1  # no schema yet: nothing published
        assert "apply this release's migrations" in capsys.readouterr().err
        assert group.published(connection) == []
        migrate(connection)
        assert floor_group("publish", "--dsn", dsn) == 0
        assert floor_group("publish", "--dsn", dsn) == 0  # again: the same publication
        assert group.published(connection) == sorted(group.PUBLISHED)
        said = f"{group.PUBLICATION} publishes {', '.join(sorted(group.PUBLISHED))}\n"
        assert capsys.readouterr().out == said * 2
        via_root = connection.execute(
            "SELECT pubviaroot, pubinsert, pubupdate, pubdelete, pubtruncate FROM pg_publication "
            "WHERE pubname = %s",
            (group.PUBLICATION,),
        ).fetchone()
        assert via_root == (True, True, True, True, False)
        connection.execute(f"ALTER PUBLICATION {group.PUBLICATION} ADD TABLE floor_table_status")
        assert floor_group("publish", "--dsn", dsn) == 0
        assert "floor_table_status" not in group.published(connection)
        assert not set(FLOOR_ONLY) & set(group.published(connection))


def within(cluster: Cluster, condition: Callable[[], bool], what: str) -> None:
    """Wait until ``condition()`` holds, or fail with the errors in the cluster's log (the
    replication workers')."""
    try:
        wait_for(condition, what, LAG)
    except AssertionError as error:
        kinds = ("ERROR:", "FATAL:", "QUERY:", "CONTEXT:")
        errors = [line for line in cluster.log().splitlines() if any(k in line for k in kinds)]
        raise AssertionError(
            f"{error}; the cluster's log says:\n" + "\n".join(errors[-30:])
        ) from None


def reports(central: psycopg.Connection, floors: dict[str, psycopg.Connection]) -> None:
    """The central's reports across the casinos (docs/floor.md, "A group of casinos") are
    what each floor's own rows give."""
    hands = {t: store.hands(f, t) for c, f in floors.items() for t in tables(f, c)}
    month = datetime.now(UTC) - timedelta(days=30)
    per_day = Counter[tuple[str, date]]()
    pots = Counter[tuple[str, date]]()
    for table_id, held in hands.items():
        assert store.hands(central, table_id) == held
        for hand in held:
            if hand.ended_at is not None and hand.ended_at > month:
                day = (table_id[:3], hand.ended_at.astimezone(UTC).date())
                per_day[day] += 1
                pots[day] += hand.pot or 0
    report = central.execute(
        "SELECT split_part(table_id, '-', 1) AS casino, date_trunc('day', ended_at) AS day, "
        "count(*) AS hands, sum(pot) AS chips_in_pots "
        "FROM floor_hands WHERE ended_at > now() - interval '30 days' GROUP BY 1, 2 ORDER BY 1, 2"
    ).fetchall()
    assert per_day and [(c, d.date(), n, p) for c, d, n, p in report] == [
        (*key, per_day[key], pots[key]) for key in sorted(per_day)
    ]
    chips = Counter[tuple[str, date, str]]()
    for table_id in hands:
        for movement in store.chip_movements(floors[table_id[:3]], table_id):
            chips[table_id[:3], movement.at.astimezone(UTC).date(), movement.kind] += movement.chips
    report = central.execute(
        "SELECT split_part(table_id, '-', 1) AS casino, date_trunc('day', at) AS day, kind, "
        "sum(chips) FROM floor_chip_movements GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
    ).fetchall()
    assert [(c, d.date(), k, n) for c, d, k, n in report] == [
        (*key, chips[key]) for key in sorted(chips)
    ]
    stays = [s for f in floors.values() for s in store.player_sessions(f)]
    for player in {s.player for s in stays}:  # a player's stays across the group
        assert store.player_sessions(central, player) == sorted(
            (s for s in stays if s.player == player),
            key=lambda s: (s.sat_down_at, s.table_id, s.seat),
        )
    week = datetime.now(UTC) - timedelta(days=7)
    actions = Counter[tuple[str, str]]()
    for floor in floors.values():
        done = store.supervisor_actions(floor)
        actions.update((a.who, a.action) for a in done if a.at > week)
    report = central.execute(
        "SELECT who, action, count(*) FROM floor_supervisor_actions "
        "WHERE at > now() - interval '7 days' GROUP BY 1, 2 ORDER BY 1, 2"
    ).fetchall()
    assert actions and report == [(*key, actions[key]) for key in sorted(actions)]
    opened = [
        (a.table_id, a.kind, a.message, a.raised_at)
        for f in floors.values()
        for a in store.open_alerts(f)
    ]
    report = central.execute(
        "SELECT table_id, kind, message, raised_at FROM floor_alerts WHERE cleared_at IS NULL"
    ).fetchall()
    assert sorted(report) == sorted(opened)
    # the hourly totals: the central's trigger counts the hands it receives
    hourly = [h for f in floors.values() for h in store.hands_per_hour(f)]
    assert store.hands_per_hour(central) == sorted(hourly, key=lambda h: (h.table_id, h.hour))
    for table_id in hands:
        floor = floors[table_id[:3]]
        assert store.decks(floor, table_id) == store.decks(central, table_id)


def tables(floor: psycopg.Connection, casino: str) -> list[str]:
    return [t.table_id for t in store.tables(floor) if t.table_id.startswith(casino)]


def status(capsys, central: str) -> str:
    """What ``luck-table floor-group status`` says of the central database at ``central``."""
    capsys.readouterr()
    assert floor_group("status", "--central", central) == 0
    return capsys.readouterr().out


def test_the_central_database_gathers_each_casinos_history(cluster, tmp_path, capsys):
    dublin_t01 = deck_tags(1)
    galway_t01 = deck_tags(2)
    galway_t01[10] = dublin_t01[20]  # a cloned tag: a card of Galway's deck is Dublin's
    journals = {
        "DUB-T01": journal(tmp_path / "d1.db", 3, 1, now_ms(5), (1, dublin_t01)),
        "GAL-T01": journal(tmp_path / "g1.db", 2, 2, now_ms(4), (2, galway_t01)),
        # a table whose clock is 70 days behind: its hands go to a month of their own
        "DUB-T02": journal(tmp_path / "d2.db", 1, 3, now_ms(70 * 24)),
    }
    dub_t01 = cut(journals["DUB-T01"], "DUB-T01", 0.6, 0.2)
    gal_t01 = cut(journals["GAL-T01"], "GAL-T01", 0.5)
    (dub_t02,) = cut(journals["DUB-T02"], "DUB-T02")
    with (
        connect(cluster.create_database("floor_dublin")) as dublin,
        connect(cluster.create_database("floor_galway")) as galway,
        connect(cluster.create_database("group_central")) as central,
    ):
        floors = {"DUB": dublin, "GAL": galway}
        dsns = {"DUB": cluster.dsn("floor_dublin"), "GAL": cluster.dsn("floor_galway")}
        to_central = ("--central", cluster.dsn("group_central"))
        for casino, floor in floors.items():
            migrate(floor)
            assert floor_group("publish", "--dsn", dsns[casino]) == 0
        ship(dublin, dub_t01[0])  # before the subscription: copied first
        assert any(h.ended_at for h in store.hands(dublin, "DUB-T01"))
        # the central's schema, its partitions and the subscriptions, by the command
        for casino, name in (("DUB", "casino_dublin"), ("GAL", "casino_galway")):
            argv = ("--dsn", dsns[casino], *to_central, "--name", name, "--ahead", "2")
            assert floor_group("subscribe", *argv) == 0
        ship(dublin, dub_t01[1])
        ship(galway, gal_t01[0])
        within(cluster, lambda: holds(central, dublin, "DUB-"), "Dublin's rows at the central")
        within(cluster, lambda: holds(central, galway, "GAL-"), "Galway's rows at the central")
        for table in FLOOR_ONLY:  # what stays on each floor
            assert central.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,)
        reports(central, floors)
        # a cloned tag in two casinos' live decks: only the central sees both
        assert store.shared_tags(dublin) == store.shared_tags(galway) == []
        shared = store.shared_tags(central)
        assert [(s.uid, s.table_id, s.other_table_id) for s in shared] == [
            (dublin_t01[20], "DUB-T01", "GAL-T01"),
            (dublin_t01[20], "GAL-T01", "DUB-T01"),
        ]

        # a month the central has no partition for stops Dublin's subscription, not Galway's
        ship(dublin, dub_t02)
        within(cluster, lambda: apply_errors(central, "casino_dublin") > 0, "Dublin's error")
        dublin_stopped = re.compile(r"^casino_dublin: enabled, .*, [1-9][0-9]* apply errors", re.M)
        assert dublin_stopped.search(status(capsys, to_central[1]))
        galway_going = "casino_galway: enabled, running, 8 of 8 tables ready, 0 apply errors, "
        within(cluster, lambda: galway_going in status(capsys, to_central[1]), "Galway going")
        ship(galway, gal_t01[1])
        within(cluster, lambda: holds(central, galway, "GAL-"), "Galway's last batches")
        assert rows(central, "floor_hands", "DUB-T02") == []
        assert apply_errors(central, "casino_galway") == 0
        # the month made: Dublin's rows follow
        assert floor_group("prepare", "--dsn", dsns["DUB"], *to_central, "--ahead", "2") == 0
        within(cluster, lambda: holds(central, dublin, "DUB-"), "DUB-T02's hands at the central")
        reports(central, floors)

        # Dublin's retention takes the old month off the floor; the central keeps it
        (old,) = retention.expired(dublin, keep=1, keep_hands=1)
        kept = rows(central, "floor_hands", "DUB-T02")
        kept_hourly = store.hands_per_hour(central, "DUB-T02")
        assert old.parent == retention.HANDS and kept and kept_hourly
        retention.retire(dublin, old, archive=None)
        assert store.hands(dublin, "DUB-T02") == store.hands_per_hour(dublin, "DUB-T02") == []
        ship(dublin, dub_t01[2])  # and the floor ships on
        within(cluster, lambda: holds(central, dublin, "DUB-T01"), "DUB-T01's last batches")
        assert rows(central, "floor_hands", "DUB-T02") == kept
        assert store.hands_per_hour(central, "DUB-T02") == kept_hourly
        assert old.name in {p.name for p in retention.partitions(central)}
        # the central's own upkeep (docs/floor.md): the coming months made, its history kept
        argv = ["floor-retention", "--dsn", cluster.dsn("group_central"), "--keep", "1"]
        assert main([*argv, "--keep-hands", "3650", "--ahead", "40"]) == 0
        assert rows(central, "floor_hands", "DUB-T02") == kept
        months = {p.until for p in retention.partitions(central) if p.parent == retention.HANDS}
        assert max(months) > datetime.now(UTC) + timedelta(days=40)

        for casino, name in (("DUB", "casino_dublin"), ("GAL", "casino_galway")):
            assert (
                floor_group("unsubscribe", "--dsn", dsns[casino], *to_central, "--name", name) == 0
            )
        for floor in floors.values():
            assert floor.execute("SELECT count(*) FROM pg_replication_slots").fetchone() == (0,)
        assert central.execute("SELECT count(*) FROM pg_subscription").fetchone() == (0,)
        assert status(capsys, to_central[1]) == "no subscriptions\n"


def test_floor_group_says_what_it_cannot_do_and_leaves_no_slot_behind(cluster, capsys):
    floor_dsn = cluster.create_database("floor_sligo")
    central_dsn = cluster.create_database("group_central_4")
    to_central = ("--central", central_dsn)
    with connect(floor_dsn) as floor, connect(central_dsn) as central:
        migrate(floor)

        def refused(status: int, *argv: str) -> str:
            capsys.readouterr()
            assert floor_group(*argv) == status
            said = capsys.readouterr()
            assert "subscribed" not in said.out
            assert said.err.startswith("luck-table floor-group: error: ")
            return said.err

        subscribe = ("subscribe", "--dsn", floor_dsn, *to_central, "--name", "casino_sligo")
        assert "the floor publishes nothing" in refused(1, *subscribe)
        assert floor_group("publish", "--dsn", floor_dsn) == 0
        # a subscription name PostgreSQL would refuse as a slot's: refused before anything
        with pytest.raises(SystemExit) as exit_status:
            floor_group(*subscribe[:-1], "Casino Sligo")
        assert exit_status.value.code == 2
        assert "lower-case letters, digits and _" in capsys.readouterr().err
        # a floor the central's server cannot reach: no subscription, and no slot left
        # keeping the floor's WAL
        unreachable = "host=/nonexistent dbname=floor_sligo connect_timeout=2"
        assert refused(1, *subscribe, "--connection", unreachable)
        assert floor.execute("SELECT count(*) FROM pg_replication_slots").fetchone() == (0,)
        assert central.execute("SELECT count(*) FROM pg_subscription").fetchone() == (0,)
        assert "secret" not in refused(2, *subscribe, "--connection", "password=secret x")
        assert "secret" not in refused(2, "status", "--central", "password=secret x")
        # then as it should be: subscribed once; the same name again refused
        assert floor_group(*subscribe) == 0
        assert refused(1, *subscribe)
        slots = "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'casino_sligo'"
        assert floor.execute(slots).fetchone() == (1,)
        assert status(capsys, central_dsn).startswith("casino_sligo: enabled, ")
        # a first copy's slot on the floor (as a table's sync worker names it), which the
        # subscription, dropped without its slots, would leave behind
        (oid,) = central.execute(
            "SELECT oid FROM pg_subscription WHERE subname = 'casino_sligo'"
        ).fetchone()
        floor.execute(
            "SELECT pg_create_logical_replication_slot(%s, 'pgoutput')", (f"pg_{oid}_sync_1_2",)
        )
        floor.execute("SELECT pg_create_logical_replication_slot('other', 'pgoutput')")
        unsubscribe = ("unsubscribe", "--dsn", floor_dsn, *to_central, "--name", "casino_sligo")
        assert floor_group(*unsubscribe) == 0
        left = floor.execute("SELECT slot_name FROM pg_replication_slots").fetchall()
        assert left == [("other",)]  # only the subscription's slots dropped
        floor.execute("SELECT pg_drop_replication_slot('other')")


def test_a_floor_published_by_an_earlier_release_sends_its_decks_once_refreshed(cluster, tmp_path):
    (run,) = cut(journal(tmp_path / "t.db", 1, 4, now_ms(1), (3, deck_tags(3))), "KIL-T01")
    with (
        connect(cluster.create_database("floor_kilkenny")) as floor,
        connect(cluster.create_database("group_central_2")) as central,
    ):
        migrate(floor)
        floor.execute(  # the publication of the release before the decks were published
            f"CREATE PUBLICATION {group.PUBLICATION} FOR TABLE floor_tables, floor_hands, "
            "floor_chip_movements, floor_seat_sessions, floor_alerts, floor_supervisor_actions "
            "WITH (publish = 'insert, update, delete', publish_via_partition_root = true)"
        )
        ship(floor, run)
        migrate(central)
        group.prepare_central(central, floor, ahead=2)
        group.subscribe(central, floor, "casino_kilkenny", cluster.dsn("floor_kilkenny"))
        within(cluster, lambda: rows(central, "floor_hands", "KIL-") != [], "Kilkenny's hands")
        assert (
            rows(central, "floor_decks", "KIL-") == rows(central, "floor_live_tags", "KIL-") == []
        )

        # this release's tables, by the command
        assert floor_group("publish", "--dsn", cluster.dsn("floor_kilkenny")) == 0
        to_central = ("--central", cluster.dsn("group_central_2"))
        assert floor_group("refresh", *to_central, "--name", "casino_kilkenny") == 0
        within(cluster, lambda: holds(central, floor, "KIL-"), "Kilkenny's decks at the central")
        assert store.decks(central, "KIL-T01") != []


def test_a_table_renamed_on_its_floor_is_renamed_at_the_central(cluster, tmp_path):
    path = journal(tmp_path / "t.db", 2, 5, now_ms(2), (5, deck_tags(5)))
    (run,) = cut(path, "COR-T01")
    with (
        connect(cluster.create_database("floor_cork")) as floor,
        connect(cluster.create_database("group_central_3")) as central,
    ):
        migrate(floor)
        group.publish(floor)
        ship(floor, run)
        migrate(central)
        group.prepare_central(central, floor, ahead=2)
        group.subscribe(central, floor, "casino_cork", cluster.dsn("floor_cork"))
        within(cluster, lambda: holds(central, floor, "COR-"), "Cork's rows at the central")
        hands = store.hands(central, "COR-T01")
        hourly = store.hands_per_hour(central, "COR-T01")
        assert hands and hourly

        with Journal.open(path, create=False) as read:
            store.rename_table(floor, shipped(read, "COR-T07"), "COR-T01", "the operator")
        within(cluster, lambda: holds(central, floor, "COR-"), "the rename at the central")
        assert store.hands(central, "COR-T01") == store.hands_per_hour(central, "COR-T01") == []
        renamed = [dataclasses.replace(hand, table_id="COR-T07") for hand in hands]
        assert store.hands(central, "COR-T07") == renamed
        moved = [dataclasses.replace(hour, table_id="COR-T07") for hour in hourly]
        assert store.hands_per_hour(central, "COR-T07") == moved
        assert [t.table_id for t in store.tables(central)] == []  # no live status there
        assert rows(central, "floor_tables", "COR-") == rows(floor, "floor_tables", "COR-")
