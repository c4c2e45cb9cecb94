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
                        "from); the options given here override it")
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
    s.add_argument("--log-level", default=no, help="DEBUG, INFO, WARNING (default), ERROR")
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
    b.add_argument("path", help="file to write the copy to")
    b.add_argument("--data", default="./data", help="data folder (default ./data)")
    b.add_argument("--database", metavar="PATH", default=None,
                   help="the SQLite file to copy (default DATA/lamma.db); a postgresql:// "
                        "URL is refused: back that up with pg_dump")
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
             "database", "process-name", "keys", "guests", "allow-list", "bot-pause",
             "trick-pause", "drain-seconds", "metrics", "status-every", "log-level",
             "log-format", "web")


def configuration(args: argparse.Namespace):
    """The effective configuration: defaults, then ``--config FILE``, then the options
    given (ConfigError if any of it cannot be used)."""
    from .config import effective
    flags = {}
    for key in FLAG_KEYS:
        attr = key.replace("-", "_")
        if hasattr(args, attr):
            value = getattr(args, attr)
            if key == "proxy-from":
                value = [str(n) for n in value]
            flags[key] = value
    path = getattr(args, "config", None)
    return effective(Path(path) if path else None, flags)


async def serve(settings) -> None:
    from engine.room.errors import N_, Said

    from .service import RoomConfig
    from .ssh import start_server

    t0 = time.monotonic()
    config = RoomConfig.of(settings)
    config.bot_pause, config.trick_pause = max(0.0, config.bot_pause), max(0.0, config.trick_pause)
    host, port = settings.serve("host"), settings.serve("port")
    server, room, host_key = await start_server(config, host, port)
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

    def hang_up() -> None:              # SIGHUP: the configuration file again
        from .config import ConfigError
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
    from . import runtime
    runtime.tune_gc()
    gc_task = asyncio.create_task(runtime.gc_task())
    from . import metrics
    watching = [asyncio.create_task(metrics.LOOP_LAG.run())]
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
    room.close()


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


def notify_systemd(state: str) -> None:
    """Tells systemd (Type=notify, deploy/lamma.service) the room is ready or stopping;
    nothing without ``NOTIFY_SOCKET``."""
    import os
    import socket
    where = os.environ.get("NOTIFY_SOCKET")
    if not where:
        return
    if where.startswith("@"):
        where = "\0" + where[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(where)
            sock.sendall(state.encode())
    except OSError as e:
        log.warning("could not tell systemd %s (%s)", state, e)


def setup_logging(level: str, form: str) -> None:
    from .logs import JsonFormatter
    handler = logging.StreamHandler()
    if form == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(getattr(logging, level.upper(), logging.WARNING))
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
            print(f"lamma: {exc}", file=sys.stderr)
            return 2
        if settings.serve("proxy-from") and not settings.serve("proxy-protocol"):
            parser.error("--proxy-from needs --proxy-protocol")
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
    if args.command == "admin":
        from .admin import run_admin
        data = args.data
        if data is None and args.config:
            from .config import read_file
            try:
                data = read_file(Path(args.config)).serve("data")
            except ConfigError as exc:
                print(f"lamma: {exc}", file=sys.stderr)
                return 2
        return run_admin(Path(data or "./data"), args.words)
    if args.command == "backup":
        from .store import Store
        if args.database and is_postgres(args.database):
            print("lamma: backup copies the SQLite database only; back up PostgreSQL with "
                  f"pg_dump, e.g. pg_dump -Fc -f lamma.dump '{redact(args.database)}'",
                  file=sys.stderr)
            return 1
        source = args.database or Path(args.data) / "lamma.db"
        try:
            store = Store(source)
            store.backup(args.path)
            store.close()
        except (StoreError, OSError) as exc:
            print(f"lamma: backup failed: {exc}", file=sys.stderr)
            return 1
        print(f"Backed up {source} to {args.path}")
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
