"""Backups that restore: a consistent database dump with a manifest, and the key store kept apart.

A backup of Tideline is two things that must not travel together: the database (sealed content,
useless alone) and the key store (one wrapped data key per origin). `backup` writes the database
(`pg_dump --format=custom` on PostgreSQL, SQLite's online backup API on SQLite, both one consistent
snapshot) and `manifest.json` (what was dumped, its checksum, the migrations it is at, the key
store and master key it is bound to, counted rows) into a new folder; it copies the key store only
to a second folder the operator names, never beside the dump unless told to. The dump is taken
first and the key store after it, so the copy holds every key the dump needs (a shred in between
is honoured: its key is simply not in the copy).

`restore` replaces the running database with a backup's in one transaction (PostgreSQL: the drops
and the dump's SQL run by `psql --single-transaction`; SQLite: the online backup API the other
way), then migrates it forward to this version's schema. It never brings back a key of an origin
the restored database records as shredded: a key-store copy restored alongside (`keystore_from`,
for a lost key store) only fills keys that are missing, and every origin with a `shredded` event in
the restored log has its key destroyed afterwards. So restoring never undoes a shred that the
database or the running key store knows of.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from django.core.cache import cache
from django.db import connection, connections
from django.db.migrations.loader import MigrationLoader

from memory import sealing
from memory.models import Fact, MemoryEvent, Workspace
from memory.services.errors import RequestError
from memory.services.keys import binding as key_binding
from memory.services.recall import index_snapshots
from tideline_kit import telemetry

logger = logging.getLogger(__name__)

FORMAT = 1
MANIFEST = "manifest.json"
DUMP_FILES = {"postgresql": "database.pgdump", "sqlite": "database.sqlite3"}
KEY_GLOB = "*.key"
TOOL_TIMEOUT_SECONDS = 6 * 3600

Progress = Callable[[str], None]


@dataclass(frozen=True)
class BackupReport:
    directory: str
    database_file: str
    vendor: str
    bytes: int
    sha256: str
    workspaces: int
    facts: int
    events: int
    keystore_copy: str | None
    key_files: int
    created_at: str

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class RestoreReport:
    directory: str
    vendor: str
    backup_created_at: str
    workspaces: int
    facts: int
    events: int
    migrations_applied: int
    keys_restored: int
    shredded_keys_destroyed: int
    key_store_problem: str | None
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def _vendor() -> str:
    if connection.vendor not in DUMP_FILES:
        raise RequestError(f"backups support PostgreSQL and SQLite, not {connection.vendor}", kind="configuration")
    return connection.vendor


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _inside(path: Path, parent: Path) -> bool:
    path, parent = path.resolve(), parent.resolve()
    return path == parent or parent in path.parents


def _empty_new_folder(path: Path, what: str) -> None:
    """Make `path` (0700) or accept it empty; refuse anything already holding files."""
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise RequestError(f"{what} {path} exists and is not an empty folder; name a new one", kind="validation")
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as error:
        raise RequestError(f"cannot create {what} {path}: {error.strerror or error}", kind="validation") from error


def _counts() -> dict[str, int]:
    return {"workspaces": Workspace.objects.count(), "facts": Fact.objects.count(),
            "events": MemoryEvent.objects.count()}  # fmt: skip


def _applied_migrations() -> dict[str, list[str]]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT app, name FROM django_migrations ORDER BY app, name")
        rows = cursor.fetchall()
    applied: dict[str, list[str]] = {}
    for app, name in rows:
        applied.setdefault(app, []).append(name)
    return applied


def _tool(name: str) -> str:
    found = shutil.which(name)
    if not found:
        raise RequestError(f"{name} is not installed: install PostgreSQL's client tools (the same major version as "
                           "the server or newer), e.g. `apt-get install postgresql-client`", kind="configuration")  # fmt: skip
    return found


def _pg_environment() -> tuple[dict[str, str], str]:
    """The environment (libpq's PG* variables, password included) and database name of the default
    connection: the password never appears on a command line."""
    conf = connection.settings_dict
    env = dict(os.environ)
    for key, variable in (("HOST", "PGHOST"), ("PORT", "PGPORT"), ("USER", "PGUSER"), ("PASSWORD", "PGPASSWORD")):
        if conf.get(key):
            env[variable] = str(conf[key])
    sslmode = (conf.get("OPTIONS") or {}).get("sslmode")
    if sslmode:
        env["PGSSLMODE"] = str(sslmode)
    return env, str(conf["NAME"])


def _run(command: list[str], env: dict[str, str], what: str) -> None:
    try:
        result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=TOOL_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired as error:
        raise RequestError(f"{what} did not finish within {TOOL_TIMEOUT_SECONDS} s", kind="unavailable") from error
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()
        raise RequestError(f"{what} failed: {detail[-1] if detail else f'exit {result.returncode}'}", kind="unavailable")


# -- backup ------------------------------------------------------------------------------------------------------


@telemetry.operation("memory.backup")
def backup(output: Path, *, keystore_to: Path | None = None, keystore_beside: bool = False,
           progress: Progress | None = None) -> BackupReport:  # fmt: skip
    """Write a consistent dump of the database and its manifest into the new folder `output`; copy the
    key store into `keystore_to` when named (refused inside `output` unless `keystore_beside`)."""
    step = progress or (lambda _message: None)
    vendor = _vendor()
    output = Path(output)
    if keystore_to is not None:
        keystore_to = Path(keystore_to)
        if not keystore_beside and (_inside(keystore_to, output) or _inside(output, keystore_to)):
            raise RequestError("the key store copy must not be kept with the database dump (together they open every "
                               "fact but for the master key): name a folder elsewhere, or pass --keystore-beside-dump "
                               "if you mean it", kind="validation")  # fmt: skip
        if _inside(keystore_to, key_binding.keystore_dir()):
            raise RequestError("the key store copy cannot be inside the key store", kind="validation")
    problem = key_binding.problem() if key_binding.binding_table_ready() else None
    if problem:
        raise RequestError(f"not backing up: {problem}; {key_binding.RECOVERY}", kind="configuration")
    _empty_new_folder(output, "backup folder")
    if keystore_to is not None:
        _empty_new_folder(keystore_to, "key store copy folder")
    created_at = datetime.now(UTC).isoformat(timespec="seconds")
    dump = output / DUMP_FILES[vendor]
    step(f"dumping the {vendor} database")
    # Counted before the dump: on a live database the dump may hold a few rows more, never fewer.
    counts, migrations = _counts(), _applied_migrations()
    if vendor == "postgresql":
        env, name = _pg_environment()
        _run([_tool("pg_dump"), "--format=custom", "--no-owner", "--no-privileges", "--file", str(dump), name],
             env, "pg_dump")  # fmt: skip
    else:
        _sqlite_copy(dump)
    os.chmod(dump, 0o600)
    step("checksumming the dump")
    record = KeyStoreRecord.current()
    copied = None
    if keystore_to is not None:  # after the dump: the copy holds every key the dump's facts need
        step("copying the key store")
        copied = str(keystore_to)
        record = _copy_keys(key_binding.keystore_dir(), keystore_to, only_missing=False)
    manifest = {
        "format": FORMAT, "product": "tideline", "created_at": created_at, "vendor": vendor,
        "database_file": dump.name, "bytes": dump.stat().st_size, "sha256": _sha256(dump),
        "migrations": migrations, "counts": counts,
        "key_store": {"id": record.keystore_id, "master_fingerprint": record.master_fingerprint,
                      "key_files": record.key_files, "copied_to": copied},
    }  # fmt: skip
    _write_json(output / MANIFEST, manifest)
    return BackupReport(str(output), dump.name, vendor, manifest["bytes"], manifest["sha256"], counts["workspaces"],
                        counts["facts"], counts["events"], copied, record.key_files, created_at)  # fmt: skip


@dataclass(frozen=True)
class KeyStoreRecord:
    keystore_id: str | None
    master_fingerprint: str
    key_files: int

    @classmethod
    def current(cls) -> KeyStoreRecord:
        directory = key_binding.keystore_dir()
        files = len(list(directory.glob(KEY_GLOB))) if directory.is_dir() else 0
        return cls(key_binding.read_keystore_id(directory), key_binding.master_fingerprint(), files)


def _sqlite_copy(target: Path) -> None:
    """SQLite's online backup from Django's own connection: one consistent copy, even while other
    processes write."""
    connection.ensure_connection()
    dst = sqlite3.connect(target)
    try:
        connection.connection.backup(dst)
    except sqlite3.Error as error:
        raise RequestError(f"the SQLite backup failed: {error}", kind="unavailable") from error
    finally:
        dst.close()


def _copy_keys(source: Path, target: Path, *, only_missing: bool) -> KeyStoreRecord:
    """Copy the key store's id and key files (0600); with `only_missing`, never replace a file."""
    target.mkdir(parents=True, exist_ok=True, mode=0o700)
    copied = 0
    names = [key_binding.ID_FILE] if (source / key_binding.ID_FILE).exists() else []
    names += sorted(path.name for path in source.glob(f"*{sealing.SHREDDED_SUFFIX}"))  # before keys: they bar them
    names += sorted(path.name for path in source.glob(KEY_GLOB))
    for name in names:
        destination = target / name
        if only_missing and (destination.exists() or destination.with_suffix(sealing.SHREDDED_SUFFIX).exists()):
            continue  # never replace a key, and never bring back one the running key store saw destroyed
        tmp = target / f".{name}.{os.getpid()}.tmp"
        shutil.copyfile(source / name, tmp)
        os.chmod(tmp, 0o600)
        tmp.replace(destination)
        copied += name.endswith(".key")
    files = len(list(target.glob(KEY_GLOB)))
    return KeyStoreRecord(key_binding.read_keystore_id(target), key_binding.master_fingerprint(),
                          copied if only_missing else files)  # fmt: skip


def _write_json(path: Path, payload: dict) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.chmod(tmp, 0o600)
    tmp.replace(path)


# -- restore -----------------------------------------------------------------------------------------------------


def read_manifest(directory: Path) -> dict:
    """The backup's manifest, checked: format, vendor, the dump's size and checksum."""
    directory = Path(directory)
    try:
        manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RequestError(f"{directory} is not a Tideline backup (no {MANIFEST})", kind="validation") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RequestError(f"cannot read {directory / MANIFEST}: {error}", kind="validation") from error
    if not isinstance(manifest, dict) or manifest.get("product") != "tideline":
        raise RequestError(f"{directory / MANIFEST} is not a Tideline backup manifest", kind="validation")
    if manifest.get("format") != FORMAT:
        raise RequestError(f"backup format {manifest.get('format')!r} is not one this version reads ({FORMAT})",
                           kind="validation")  # fmt: skip
    vendor = manifest.get("vendor")
    if vendor not in DUMP_FILES or manifest.get("database_file") != DUMP_FILES[vendor]:
        raise RequestError(f"{directory / MANIFEST} names no database this version restores", kind="validation")
    dump = directory / manifest["database_file"]
    if not dump.is_file():
        raise RequestError(f"the backup's database file {dump} is missing", kind="validation")
    if dump.stat().st_size != manifest.get("bytes") or _sha256(dump) != manifest.get("sha256"):
        raise RequestError(f"{dump} does not match its manifest (damaged or changed since the backup); "
                           "nothing was restored", kind="validation")  # fmt: skip
    return manifest


def _unknown_migrations(manifest: dict) -> list[str]:
    known = set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations)
    return [f"{app}.{name}" for app, names in (manifest.get("migrations") or {}).items() for name in names
            if (app, name) not in known]  # fmt: skip


def check_restorable(directory: Path) -> dict:
    """Everything `restore` checks before it touches the database; returns the manifest."""
    manifest = read_manifest(directory)
    vendor = _vendor()
    if manifest["vendor"] != vendor:
        raise RequestError(f"this backup is of a {manifest['vendor']} database and Tideline is configured for "
                           f"{vendor}; restore it into a {manifest['vendor']} database", kind="validation")  # fmt: skip
    unknown = _unknown_migrations(manifest)
    if unknown:
        raise RequestError(f"this backup is from a newer Tideline ({len(unknown)} migration(s) this version does not "
                           f"have, first {unknown[0]}): upgrade Tideline first", kind="validation")  # fmt: skip
    if vendor == "postgresql":
        for tool in ("pg_restore", "psql"):
            _tool(tool)
    return manifest


@telemetry.operation("memory.restore")
def restore(directory: Path, *, keystore_from: Path | None = None, progress: Progress | None = None) -> RestoreReport:
    """Replace the database with the backup's (one transaction), migrate it to this version, and make
    sure no shredded origin's key is in the key store. Other Tideline processes must be stopped."""
    step = progress or (lambda _message: None)
    directory = Path(directory)
    manifest = check_restorable(directory)
    if keystore_from is not None and not (Path(keystore_from) / key_binding.ID_FILE).is_file():
        raise RequestError(f"{keystore_from} is not a key store copy (no {key_binding.ID_FILE})", kind="validation")
    dump = directory / manifest["database_file"]
    step("replacing the database with the backup's")
    connections.close_all()
    if manifest["vendor"] == "postgresql":
        _pg_restore(dump)
    else:
        _sqlite_restore(dump)
    step("bringing the schema up to this version")
    applied_before = sum(len(names) for names in _applied_migrations().values())
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    migrations_applied = sum(len(names) for names in _applied_migrations().values()) - applied_before
    step("reconciling the key store")
    keys_restored = 0
    if keystore_from is not None:
        keys_restored = _copy_keys(Path(keystore_from), key_binding.keystore_dir(), only_missing=True).key_files
    destroyed = destroy_shredded_keys()
    _forget_caches()
    warnings = []
    key_store = manifest.get("key_store") or {}
    if key_store.get("id") and key_store["id"] != key_binding.read_keystore_id(key_binding.keystore_dir()):
        warnings.append("the running key store is not the one this backup was bound to")
    counts = _counts()
    logger.warning("database replaced by the backup of %s from %s: %d workspace(s), %d fact(s), %d event(s); "
                   "%d migration(s) applied, %d shredded key(s) destroyed", manifest.get("created_at"), directory,
                   counts["workspaces"], counts["facts"], counts["events"], migrations_applied, destroyed)  # fmt: skip
    return RestoreReport(str(directory), manifest["vendor"], manifest.get("created_at", ""), counts["workspaces"],
                         counts["facts"], counts["events"], migrations_applied, keys_restored, destroyed,
                         key_binding.problem(), warnings)  # fmt: skip


def destroy_shredded_keys() -> int:
    """Destroy the key of every origin the database records as shredded, should a key store copy have
    brought one back. Returns how many key files were destroyed."""
    destroyed = 0
    shreds = MemoryEvent.objects.filter(kind=MemoryEvent.Kind.SHREDDED).values_list("workspace_id", "data")
    for workspace_id, data in shreds.iterator():
        origin_key = (data or {}).get("origin_key")
        if isinstance(origin_key, str) and sealing.keyring.destroy(workspace_id, origin_key):
            destroyed += 1
    return destroyed


def _forget_caches() -> None:
    """What a process derived from the replaced database must not outlive it: cached keys and
    verifications, the cache (heartbeats, counts) and recall index snapshots (rebuilt on demand)."""
    sealing.keyring.forget_cache()
    key_binding.forget()
    cache.clear()
    snapshots = index_snapshots.directory()
    if snapshots.is_dir():
        shutil.rmtree(snapshots, ignore_errors=True)


_PG_CLEAR = """
DO $tideline_restore$
DECLARE r record;
BEGIN
  FOR r IN SELECT viewname FROM pg_views WHERE schemaname = current_schema() LOOP
    EXECUTE format('DROP VIEW IF EXISTS %I CASCADE', r.viewname);
  END LOOP;
  FOR r IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() LOOP
    EXECUTE format('DROP TABLE IF EXISTS %I CASCADE', r.tablename);
  END LOOP;
  FOR r IN SELECT sequence_name FROM information_schema.sequences WHERE sequence_schema = current_schema() LOOP
    EXECUTE format('DROP SEQUENCE IF EXISTS %I CASCADE', r.sequence_name);
  END LOOP;
  FOR r IN SELECT p.oid::regprocedure AS signature FROM pg_proc p
           JOIN pg_namespace n ON n.oid = p.pronamespace
           WHERE n.nspname = current_schema()
             AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e') LOOP
    EXECUTE format('DROP FUNCTION IF EXISTS %s CASCADE', r.signature);
  END LOOP;
END
$tideline_restore$;
"""


def _pg_restore(dump: Path) -> None:
    """Drop what is in the schema and load the dump, in one transaction: a failure leaves the
    database as it was."""
    env, name = _pg_environment()
    with tempfile.TemporaryDirectory(prefix="tideline-restore-") as scratch:
        script = Path(scratch) / "restore.sql"
        script.write_text(_PG_CLEAR, encoding="utf-8")
        with open(script, "a", encoding="utf-8") as handle:
            handle.flush()
            try:
                result = subprocess.run([_tool("pg_restore"), "--no-owner", "--no-privileges", "--file", "-", str(dump)],
                                        stdout=handle, stderr=subprocess.PIPE, text=True, env=env,
                                        timeout=TOOL_TIMEOUT_SECONDS)  # fmt: skip
            except subprocess.TimeoutExpired as error:
                raise RequestError("pg_restore did not finish", kind="unavailable") from error
        if result.returncode != 0:
            detail = result.stderr.strip().splitlines()
            raise RequestError(f"the dump cannot be read: {detail[-1] if detail else result.returncode}; nothing was "
                               "restored", kind="validation")  # fmt: skip
        _run([_tool("psql"), "--no-psqlrc", "--quiet", "--single-transaction", "-v", "ON_ERROR_STOP=1",
              "--dbname", name, "--file", str(script)], env, "restoring the dump (nothing was changed)")  # fmt: skip


def _sqlite_restore(dump: Path) -> None:
    """Copy the backup over the live database with the online backup API (one write transaction)."""
    src = sqlite3.connect(f"file:{dump}?mode=ro", uri=True)
    try:
        check = src.execute("PRAGMA quick_check").fetchone()
        if not check or check[0] != "ok":
            raise RequestError(f"{dump} is damaged ({check[0] if check else 'unreadable'}); nothing was restored",
                               kind="validation")  # fmt: skip
        connection.ensure_connection()
        src.backup(connection.connection)
    except sqlite3.Error as error:
        raise RequestError(f"the SQLite restore failed: {error}; nothing was restored", kind="unavailable") from error
    finally:
        src.close()
