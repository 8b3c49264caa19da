"""``luck-table deploy-files``: the deploy folder's files written out from the installed
software, refusing to replace files unless told; and ``luck-table relay --table-config``
following the table's console address and TLS setting."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli.relay_command import follow_the_table
from controller.config_file import Api

ROOT = Path(__file__).resolve().parent.parent
LUCK_TABLE = str(Path(sys.executable).parent / "luck-table")


def luck_table(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LUCK_TABLE, *args], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.slow
def test_deploy_files_writes_every_file_of_the_deploy_folder(tmp_path: Path) -> None:
    deploy = sorted(path.name for path in (ROOT / "deploy").iterdir() if path.is_file())
    listed = luck_table("deploy-files", "--list")
    assert listed.returncode == 0 and listed.stdout.split() == deploy
    written = luck_table("deploy-files", str(tmp_path))
    assert written.returncode == 0, written.stderr
    for name in deploy:
        assert (tmp_path / name).read_bytes() == (ROOT / "deploy" / name).read_bytes()
    (tmp_path / "table.example.toml").write_text("edited")
    again = luck_table("deploy-files", str(tmp_path))
    assert again.returncode == 2 and "table.example.toml" in again.stderr
    assert (tmp_path / "table.example.toml").read_text() == "edited"  # nothing replaced
    forced = luck_table("deploy-files", "--force", str(tmp_path))
    assert forced.returncode == 0
    assert (tmp_path / "table.example.toml").read_bytes() != b"edited"
    fresh = tmp_path / "fresh" / "deploy"  # a fresh machine: the folder is made
    made = luck_table("deploy-files", str(fresh))
    assert made.returncode == 0, made.stderr
    assert sorted(path.name for path in fresh.iterdir()) == deploy
    file = luck_table("deploy-files", str(tmp_path / "table.example.toml"))
    assert file.returncode == 2 and "not a folder" in file.stderr


def relay_args(**given: str | None) -> argparse.Namespace:
    options = {"source": None, "source_ca": None, "tls_cert": None, "tls_key": None}
    return argparse.Namespace(**(options | given))


def test_the_relay_follows_the_tables_console_and_its_tls() -> None:
    plain = relay_args()
    follow_the_table(plain, Api(bind="0.0.0.0", port=8080))
    assert (plain.source, plain.source_ca, plain.tls_cert) == ("http://127.0.0.1:8080", None, None)
    cert, key = Path("/etc/luck-table/tls/cert.pem"), Path("/etc/luck-table/tls/key.pem")
    secure = relay_args()
    follow_the_table(secure, Api(bind="10.0.4.7", port=8443, tls_cert=cert, tls_key=key))
    assert secure.source == "https://10.0.4.7:8443"
    assert (secure.source_ca, secure.tls_cert, secure.tls_key) == (str(cert), str(cert), str(key))
    own = relay_args(tls_cert="relay.pem", tls_key="relay.key")
    follow_the_table(own, Api(bind="::", port=8443, tls_cert=cert, tls_key=key))
    assert own.source == "https://[::1]:8443" and own.tls_cert == "relay.pem"
