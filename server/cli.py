"""``lamma serve``: run the card room."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
import time
from pathlib import Path

from .store import StoreError, is_postgres, redact
from .systemd import notify_systemd

log = logging.getLogger("lamma.serve")


def _on_off(value: str) -> bool:
    v = value.lower()
    if v in ("on", "yes", "true", "1"):
        return True
    if v in ("off", "no", "false", "0"):
        return False
    raise argparse.ArgumentTypeError("use on or off")


def _listen(value: str) -> str:
    from .metrics import parse_listen
    try:
        parse_listen(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def _networks(value: str) -> tuple:
    from .proxyproto import parse_networks
    try:
        return parse_networks(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _serve_options(s: argparse.ArgumentParser) -> None:
    """The options of ``lamma serve`` (also taken by ``lamma config`` and ``lamma
    check``). None has a default here: an option not given is not in the namespace, and
    the file's value, or the default (server/config.py), holds."""
    no = argparse.SUPPRESS
    s.add_argument("--config", metavar="FILE", default=no,
                   help="a TOML configuration file (lamma config prints one to start "
                        "from; default: $LAMMA_CONFIG, if set); LAMMA_SECTION_KEY "
                        "variables override it, and the options given here override "
                        "both")
    s.add_argument("--host", default=no, help="address to listen on (default 127.0.0.1)")
    s.add_argument("--port", type=int, default=no, help="port (default 2222)")
    s.add_argument("--reuse-port", action="store_true", default=no,
                   help="listen with SO_REUSEPORT, so that several processes on this "
                        "machine share the port and the kernel spreads connections "
                        "among them (default off)")
    s.add_argument("--proxy-protocol", action="store_true", default=no,
                   help="every connection begins with a PROXY protocol header (v1 or "
                        "v2, e.g. HAProxy's send-proxy-v2) and the room takes the "
                        "client's address from it; only the balancer may reach the "
                        "port (default off)")
    s.add_argument("--proxy-from", metavar="CIDR[,CIDR]", type=_networks, default=no,
                   help="with --proxy-protocol: close at once any connection that does "
                        "not come from these addresses (the balancers'); default: from "
                        "any address")
    s.add_argument("--data", default=no, help="data folder (default ./data)")
    s.add_argument("--database", metavar="URL", default=no,
                   help="a postgresql://USER@HOST/DB URL to share one PostgreSQL database "
                        "between server processes (needs pip install 'lamma[postgres]'), "
                        "or a SQLite file path; default: the SQLite file DATA/lamma.db")
    s.add_argument("--database-password-file", metavar="FILE", default=no,
                   help="a file holding the PostgreSQL database's password, kept out of "
                        "the URL and of every output")
    s.add_argument("--process-name", metavar="NAME", default=no,
                   help="this process's name among the processes of one room on one "
                        "PostgreSQL database: it drives the tables made through it and "
                        "resumes them after a restart unless another process took them "
                        "over (give each process its own; default with PostgreSQL: HOST:PID)")
    s.add_argument("--keys", default=no,
                   help="keys folder: host key, authorized_keys (default ./keys)")
    s.add_argument("--guests", type=_on_off, metavar="on|off", default=no,
                   help="admit clients without a key as guests (default on)")
    s.add_argument("--allow-list", action="store_true", default=no,
                   help="admit only keys listed in KEYS/authorized_keys (no guests)")
    s.add_argument("--bot-pause", type=float, metavar="SECONDS", default=no,
                   help="seconds a computer player waits before it moves (default 0.8)")
    s.add_argument("--trick-pause", type=float, metavar="SECONDS", default=no,
                   help="seconds a finished trick stays on the table (default 1.0)")
    s.add_argument("--drain-seconds", type=float, metavar="SECONDS", default=no,
                   help="on SIGTERM: how long everyone is told to wait while tricks "
                        "finish, before the room stops (default 30)")
    s.add_argument("--metrics", metavar="HOST:PORT", type=_listen, default=no,
                   help="serve Prometheus metrics at http://HOST:PORT/metrics (default "
                        "off; no authentication: bind to localhost or a private network)")
    s.add_argument("--web", metavar="HOST:PORT", type=_listen, default=no,
                   help="serve the room in web browsers too: a page and its websocket at "
                        "http://HOST:PORT/ (default off; TLS by a reverse proxy: "
                        "docs/web.md)")
    s.add_argument("--status-every", type=float, metavar="SECONDS", default=no,
                   help="a one-line status in the log this often (default 60; 0: never)")
    s.add_argument("--log-level", default=no,
                   help="DEBUG, INFO (default: sessions and refusals with their address "
                        "and key), WARNING, ERROR")
    s.add_argument("--log-format", choices=("text", "json"), default=no,
                   help="text (default), or json: one JSON object a line")


def build_parser() -> argparse.ArgumentParser:
    from .build import version
    p = argparse.ArgumentParser(prog="lamma", description="Lamma: a card room over SSH.")
    p.add_argument("--version", action="version", version=f"lamma {version()}")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="run the server")
    _serve_options(s)
    c = sub.add_parser("config", help="print the effective configuration (the defaults, "
                                      "--config FILE and the options given) as a file "
                                      "to start from")
    _serve_options(c)
    k = sub.add_parser("check", help="check a configuration, the keys folder, the "
                                     "database and the port before the room starts; "
                                     "one line per problem, non-zero if any")
    _serve_options(k)
    b = sub.add_parser("backup", help="copy the SQLite database while the server runs "
                                      "(SQLite online backup; for PostgreSQL use pg_dump)")
    b.add_argument("path", help="the file to write the copy to, or a folder (one that "
                                "exists, or PATH/) to write a dated file in")
    b.add_argument("--force", action="store_true",
                   help="replace the file if it exists (without it, an existing file is "
                        "refused)")
    r = sub.add_parser("restore", help="put a backup back as the room's SQLite database, "
                                       "the room stopped (the file is checked first; the "
                                       "database it replaces is kept beside it)")
    r.add_argument("file", help="the backup to put back (lamma backup's file)")
    for sp in (b, r):
        sp.add_argument("--data", default=None, help="the room's data folder (default: "
                                                     "the configuration's, or ./data)")
        sp.add_argument("--database", metavar="PATH", default=None,
                        help="the room's SQLite file (default DATA/lamma.db); a "
                             "postgresql:// URL is refused: use pg_dump and pg_restore")
        sp.add_argument("--config", metavar="FILE", default=None,
                        help="the room's configuration file (for its data folder and "
                             "database; default $LAMMA_CONFIG)")
    k2 = sub.add_parser("keys", help="the host keys: list them; rotate (a new key served "
                                     "beside the old one, which clients learn as they "
                                     "connect); retire (the new key becomes the room's)")
    k2.add_argument("action", nargs="?", default="list", choices=("list", "rotate", "retire"))
    k2.add_argument("--keys", default=None, help="the keys folder (default: the "
                                                 "configuration's, or ./keys)")
    k2.add_argument("--data", default=None, help="the running room's data folder, told "
                                                 "to read its keys again (default: the "
                                                 "configuration's, or ./data)")
    k2.add_argument("--config", metavar="FILE", default=None,
                    help="the room's configuration file (default $LAMMA_CONFIG)")
    h = sub.add_parser("health", help="is the room alive, on the port it listens on? "
                                      "(its admin socket answers, then its port gives an "
                                      "SSH banner, after a PROXY header with "
                                      "--proxy-protocol); for a container's HEALTHCHECK")
    h.add_argument("--data", default=None, help="the running room's data folder "
                                                "(default: the configuration's, or ./data)")
    h.add_argument("--config", metavar="FILE", default=None,
                   help="the running room's configuration file (for its data folder)")
    h.add_argument("--timeout", type=float, default=3.0, help="seconds for each step "
                                                              "(default 3)")
    a = sub.add_parser("admin", help="an operator's command to the running room, e.g. "
                                     "'lamma admin who', 'lamma admin ban bob 1d spam', "
                                     "'lamma admin reload', 'lamma admin drain 30'")
    a.add_argument("words", nargs="*", help="the command and its arguments (help lists them)")
    a.add_argument("--data", default=None, help="the running room's data folder "
                                                "(default: the config's, or ./data)")
    a.add_argument("--config", metavar="FILE", default=None,
                   help="the running room's configuration file (for its data folder)")
    return p


# What argparse names each option (the setting's key with _ for -).
FLAG_KEYS = ("host", "port", "reuse-port", "proxy-protocol", "proxy-from", "data",
             "database", "database-password-file", "process-name", "keys", "guests", "allow-list", "bot-pause",
             "trick-pause", "drain-seconds", "metrics", "status-every", "log-level",
             "log-format", "web")


def configuration(args: argparse.Namespace):
    """The effective configuration: defaults, then ``--config FILE`` (or LAMMA_CONFIG),
    then the LAMMA_* environment variables, then the options given (ConfigError if any
    of it cannot be used)."""
    from .config import effective
    flags = {}
    for key in FLAG_KEYS:
        attr = key.replace("-", "_")
        if hasattr(args, attr):
            value = getattr(args, attr)
            if key == "proxy-from":
                value = [str(n) for n in value]
            flags[key] = value
    import os

    from .config import config_path
    return effective(config_path(getattr(args, "config", None), os.environ), flags,
                     os.environ)


async def serve(settings) -> None:
    from engine.room.errors import N_, Said

    from .roomconfig import RoomConfig
    from .ssh import start_server

    t0 = time.monotonic()
    config = RoomConfig.of(settings)
    config.bot_pause, config.trick_pause = max(0.0, config.bot_pause), max(0.0, config.trick_pause)
    host, port = settings.serve("host"), settings.serve("port")
    server, room, host_key = await start_server(config, host, port)
    if port == 0:                       # the port the system chose, as it may be reached
        port = server.sockets[0].getsockname()[1]
    # Before anything says the room listens: a SIGTERM sent on reading the banner
    # found Python's default still in place and killed the room at once (-15).
    loop = asyncio.get_running_loop()
    interrupts = 0

    def terminate() -> None:            # SIGTERM: a clean restart
        room.start_drain()

    def interrupt() -> None:            # SIGINT: a clean restart; twice: at once
        nonlocal interrupts
        interrupts += 1
        if interrupts > 1:
            log.warning("stopping at once (a second SIGINT)", extra={"event": "stop"})
            room.stop_now()
        else:
            room.start_drain()

    def hang_up() -> None:              # SIGHUP: the configuration file and host keys again
        from .config import ConfigError
        try:
            room.reload_host_keys()
        except (OSError, ValueError) as e:
            log.error("host keys not read again (the old ones are served): %s", e,
                      extra={"event": "reload"})
        try:
            room.reload()
        except ConfigError as e:
            log.error("not reloaded (nothing changed): %s", e, extra={"event": "reload"})

    for sig, handler in ((signal.SIGTERM, terminate), (signal.SIGINT, interrupt),
                         (signal.SIGHUP, hang_up)):
        try:
            loop.add_signal_handler(sig, handler)
        except (NotImplementedError, RuntimeError, AttributeError):
            pass
    fp = host_key.get_fingerprint("sha256")
    elapsed = time.monotonic() - t0
    port_arg = "" if port == 22 else f"-p {port} "
    shown = host if host not in ("0.0.0.0", "::") else "localhost"
    from .build import version
    form = settings.serve("log-format")
    banner = Banner(form)
    banner.say(f"Lamma is listening on {host}:{port} (version {version()}, ready in "
               f"{elapsed:.2f} s)", listen=f"{host}:{port}", version=version(),
               ready_seconds=round(elapsed, 3))
    banner.say(f"Host key fingerprint: {fp}", fingerprint=fp)
    from .hostkeys import host_keys
    for nxt in host_keys(config.keys)[1:]:
        nfp = nxt.get_fingerprint("sha256")
        banner.say(f"Next host key (named to clients, who learn it): {nfp}", next=nfp)
    banner.say(f"Play:    ssh {port_arg}YOURNAME@{shown}")
    banner.say(f"Program: ssh {port_arg}YOURNAME@{shown} play")
    mode = "allow-list" if config.allow_list else ("guests on" if config.guests else "guests off")
    where = redact(config.database) if config.database else config.data
    process = f" as process '{config.process}'" if config.process else ""
    shared = "; port shared (SO_REUSEPORT)" if config.reuse_port else ""
    banner.say(f"Mode: {mode}; data in {where}{process}, keys in {config.keys}{shared}")
    if settings.path is not None:
        banner.say(f"Configuration: {settings.path} (lamma config prints it in full; SIGHUP "
                   "reads it again)")
    if config.proxy_protocol:
        if config.proxy_from:
            sources = "from " + ", ".join(str(n) for n in config.proxy_from) + " only"
        else:
            sources = ("from any address; set --proxy-from to the balancers' addresses "
                       "(any client that reaches this port may claim any address)")
        banner.say(f"PROXY protocol: every connection starts with a header, {sources}")
    if room.web is not None:
        banner.say(f"Web:     {room.web.url}", web=room.web.url)
    if room.metrics is not None:
        mhost = room.metrics.host
        banner.say(f"Metrics: http://{f'[{mhost}]' if ':' in mhost else mhost}:"
                   f"{room.metrics.port}/metrics")
    sys.stdout.flush()
    from . import runtime
    runtime.tune_gc()
    gc_task = asyncio.create_task(runtime.gc_task())
    from . import metrics
    watching = [asyncio.create_task(metrics.LOOP_LAG.run()),
                asyncio.create_task(metrics.refresh_task(room))]
    status_every = settings.serve("status-every")
    if status_every > 0:
        # Said at INFO, shown whatever --log-level (0 turns it off).
        metrics.status_log.setLevel(logging.INFO)
        watching.append(asyncio.create_task(metrics.status_task(room, status_every)))
    notify_systemd("READY=1")
    await room.finished.wait()
    notify_systemd("STOPPING=1")
    gc_task.cancel()
    for task in watching:
        task.cancel()
    server.close()
    if room.drain_task is not None and not room.drain_task.done():
        room.drain_task.cancel()
    for member in list(room.online.values()):
        try:
            member.kick(Said(N_("The server is stopping.")))
        except Exception:
            pass
    if room.online:
        await asyncio.sleep(0.2)
    kept = room.close()
    took = ""
    if room.drain_started is not None:
        took = f"; {loop.time() - room.drain_started:.1f} s after the restart began"
    unstored = (f"{kept['unstored']} write(s) NOT stored (the database did not answer)"
                if kept["unstored"] else "nothing left unstored")
    # The last line of a run (issue 45): what the next start finds.
    log.warning("stopped: %d table(s) kept as they are (%d match(es) under way, resumed at "
                "the next start), %d write(s) committed since the start, %s%s",
                kept["tables"], kept["matches"], kept["writes"], unstored, took,
                extra={"event": "stop", "stored": kept})


class Banner:
    """The start banner on stdout: plain lines, or with ``--log-format json`` one JSON
    object a line like the log's (issue 39: every line on both streams parses)."""

    def __init__(self, form: str) -> None:
        self.form = form

    def say(self, message: str, **fields: object) -> None:
        if self.form == "json":
            from .logs import line
            print(line(message, "INFO", "lamma.banner", event="start", **fields))
        else:
            print(message)


def refuse_start(form: str, message: str) -> None:
    """``lamma serve`` cannot start: one line on stderr (a JSON one with json logs)."""
    if form == "json":
        from .logs import line
        print(line(message, "ERROR", "lamma", event="start"), file=sys.stderr)
    else:
        print(f"lamma: {message}", file=sys.stderr)


def setup_logging(level: str, form: str) -> None:
    from .logs import JsonFormatter, set_level
    handler = logging.StreamHandler()
    if form == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    set_level(level)
    # Any warning (of any library: the known ones are DEBUG lines, server/quiet.py) and
    # any uncaught exception become log records, so JSON logs stay JSON on both streams.
    logging.captureWarnings(True)
    from .quiet import route_dependency_warnings
    route_dependency_warnings()
    if form == "json":
        from .quiet import excepthook_to_log
        excepthook_to_log(logging.getLogger("lamma"))


def main(argv: list[str] | None = None) -> int:
    from .config import ConfigError
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command in ("serve", "config", "check"):
        try:
            settings = configuration(args)
        except ConfigError as exc:
            # As JSON if JSON logs were asked for where it can still be told (the flag,
            # or the environment: the file may be what could not be read).
            import os
            form = getattr(args, "log_format", None) or next(
                (os.environ[v] for v in ("LAMMA_SERVE_LOG_FORMAT", "LAMMA_LOG_FORMAT")
                 if os.environ.get(v) in ("json", "text")), "text")
            if args.command == "serve" and form == "json":
                refuse_start(form, str(exc))
            else:
                print(f"lamma: {exc}", file=sys.stderr)
            return 2
        if settings.serve("proxy-from") and not settings.serve("proxy-protocol"):
            parser.error("--proxy-from needs --proxy-protocol")
        if args.command != "config":
            from .config import database_url
            try:
                database_url(settings)      # its password file readable, before anything
            except ConfigError as exc:
                print(f"lamma: {exc}", file=sys.stderr)
                return 2
        if args.command == "config":
            from .config import render
            sys.stdout.write(render(settings))
            return 0
        if args.command == "check":
            from .check import run_checks
            return run_checks(settings)
        form = settings.serve("log-format")
        setup_logging(settings.serve("log-level"), form)
        try:
            asyncio.run(serve(settings))
        except OSError as exc:
            refuse_start(form, f"cannot start: {exc}")
            return 1
        except StoreError as exc:           # a damaged database, said clearly
            refuse_start(form, f"cannot start: {exc}")
            return 1
        except KeyboardInterrupt:
            pass
        return 0
    logging.basicConfig(level=logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if args.command in ("admin", "health"):
        data = args.data
        if data is None:
            # The running room's data folder: its file's and environment's (the same
            # LAMMA_CONFIG and LAMMA_SERVE_DATA in a container's exec), or ./data.
            import os

            from .config import config_path, effective
            try:
                data = effective(config_path(args.config, os.environ), {},
                                 os.environ).serve("data")
            except ConfigError as exc:
                print(f"lamma: {exc}", file=sys.stderr)
                return 2
        if args.command == "health":
            from .health import run_health
            return run_health(Path(data), max(0.1, args.timeout))
        from .admin import run_admin
        return run_admin(Path(data), args.words)
    if args.command in ("backup", "restore"):
        return backup_or_restore(args)
    if args.command == "keys":
        return host_keys_command(args)
    return 2


def host_keys_command(args: argparse.Namespace) -> int:
    """``lamma keys [list|rotate|retire]`` (server/hostkeys.py); a running room on this
    data folder is told to read its keys again."""
    import os

    import asyncssh

    from . import hostkeys
    from .admin import ask_admin
    from .config import ConfigError, config_path, effective
    try:
        settings = effective(config_path(args.config, os.environ), {}, os.environ)
    except ConfigError as exc:
        print(f"lamma: {exc}", file=sys.stderr)
        return 2
    keys = Path(args.keys or settings.serve("keys"))
    data = Path(args.data or settings.serve("data"))
    os.umask(0o077)
    try:
        if args.action == "list":
            print("\n".join(hostkeys.describe(keys)))
            return 0
        if args.action == "rotate":
            current, nxt, made = hostkeys.rotate(keys)
            said = (f"{'A new' if made else 'The next'} host key {hostkeys.fingerprint(nxt)} "
                    f"is {'made' if made else 'there already'}: served beside "
                    f"{hostkeys.fingerprint(current)}, which still signs, so clients that "
                    "know it connect as before and learn the new one as they log in "
                    "(OpenSSH's UpdateHostKeys). Once they have had time to (weeks), "
                    "lamma keys retire makes it the room's.")
        else:
            old, new, kept = hostkeys.retire(keys)
            said = (f"The room's host key is now {new}; {old} is retired (kept as {kept}, "
                    "not served). Clients that learnt the new key connect without a "
                    "warning and forget the old one.")
    except (OSError, ValueError, asyncssh.KeyImportError) as exc:
        print(f"lamma: keys {args.action}: {exc}", file=sys.stderr)
        return 1
    print(said)
    answer = ask_admin(data, "hostkeys")
    if answer is None:
        print(f"No room answers at {data}: the next start serves these keys (a room on "
              "another data folder: lamma admin hostkeys --data DIR, or SIGHUP).")
    else:
        print(f"The running room: {answer}")
    return 0


def backup_or_restore(args: argparse.Namespace) -> int:
    """``lamma backup`` and ``lamma restore`` (server/backup.py), on the database the
    room's configuration names (its file, LAMMA_* variables, or --data/--database)."""
    import os

    from . import backup as bk
    from .config import ConfigError, config_path, effective
    try:
        settings = effective(config_path(args.config, os.environ), {}, os.environ)
    except ConfigError as exc:
        print(f"lamma: {exc}", file=sys.stderr)
        return 2
    data = Path(args.data or settings.serve("data"))
    database = args.database or (settings.serve("database") if args.data is None else "")
    if database and is_postgres(database):
        print(f"lamma: {bk.pg_words(database, args.command)}", file=sys.stderr)
        return 1
    source = Path(database) if database else data / "lamma.db"
    os.umask(0o077)                     # what is made holds private table codes
    try:
        if args.command == "backup":
            written = bk.backup(source, args.path, force=args.force)
            print(f"Backed up {source} to {written}")
        else:
            print(bk.restore(Path(args.file), data, source))
    except (bk.BackupError, StoreError, OSError) as exc:
        print(f"lamma: {args.command} failed: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
