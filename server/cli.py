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


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lamma", description="Lamma: a card room over SSH.")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="run the server")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    s.add_argument("--port", type=int, default=2222, help="port (default 2222)")
    s.add_argument("--reuse-port", action="store_true",
                   help="listen with SO_REUSEPORT, so that several processes on this "
                        "machine share the port and the kernel spreads connections "
                        "among them (default off)")
    s.add_argument("--proxy-protocol", action="store_true",
                   help="every connection begins with a PROXY protocol header (v1 or "
                        "v2, e.g. HAProxy's send-proxy-v2) and the room takes the "
                        "client's address from it; only the balancer may reach the "
                        "port (default off)")
    s.add_argument("--proxy-from", metavar="CIDR[,CIDR]", type=_networks, default=(),
                   help="with --proxy-protocol: close at once any connection that does "
                        "not come from these addresses (the balancers'); default: from "
                        "any address")
    s.add_argument("--data", default="./data", help="data folder (default ./data)")
    s.add_argument("--database", metavar="URL", default=None,
                   help="a postgresql://USER@HOST/DB URL to share one PostgreSQL database "
                        "between server processes (needs pip install 'lamma[postgres]'), "
                        "or a SQLite file path; default: the SQLite file DATA/lamma.db")
    s.add_argument("--process-name", default="", metavar="NAME",
                   help="this process's name among the processes of one room on one "
                        "PostgreSQL database: it drives the tables made through it and "
                        "resumes them after a restart unless another process took them "
                        "over (give each process its own; default with PostgreSQL: HOST:PID)")
    s.add_argument("--keys", default="./keys", help="keys folder: host key, authorized_keys (default ./keys)")
    s.add_argument("--guests", type=_on_off, default=True, metavar="on|off",
                   help="admit clients without a key as guests (default on)")
    s.add_argument("--allow-list", action="store_true",
                   help="admit only keys listed in KEYS/authorized_keys (no guests)")
    s.add_argument("--bot-pause", type=float, default=0.8,
                   help="seconds a computer player waits before it moves (default 0.8)")
    s.add_argument("--trick-pause", type=float, default=1.0,
                   help="seconds a finished trick stays on the table (default 1.0)")
    s.add_argument("--metrics", metavar="HOST:PORT", type=_listen, default=None,
                   help="serve Prometheus metrics at http://HOST:PORT/metrics (default "
                        "off; no authentication: bind to localhost or a private network)")
    s.add_argument("--status-every", type=float, default=60.0, metavar="SECONDS",
                   help="a one-line status in the log this often (default 60; 0: never)")
    s.add_argument("--log-level", default="WARNING")
    b = sub.add_parser("backup", help="copy the SQLite database while the server runs "
                                      "(SQLite online backup; for PostgreSQL use pg_dump)")
    b.add_argument("path", help="file to write the copy to")
    b.add_argument("--data", default="./data", help="data folder (default ./data)")
    b.add_argument("--database", metavar="PATH", default=None,
                   help="the SQLite file to copy (default DATA/lamma.db); a postgresql:// "
                        "URL is refused: back that up with pg_dump")
    a = sub.add_parser("admin", help="an operator's command to the running room, e.g. "
                                     "'lamma admin who', 'lamma admin ban bob 1d spam'")
    a.add_argument("words", nargs="*", help="the command and its arguments (help lists them)")
    a.add_argument("--data", default="./data", help="the running room's data folder")
    return p


async def serve(args) -> None:
    from engine.room.errors import N_, Said

    from .ssh import RoomConfig, start_server

    t0 = time.monotonic()
    config = RoomConfig(data=Path(args.data), keys=Path(args.keys),
                        database=args.database, process=args.process_name,
                        guests=args.guests and not args.allow_list,
                        allow_list=args.allow_list, bot_pause=max(0.0, args.bot_pause),
                        trick_pause=max(0.0, args.trick_pause), metrics=args.metrics,
                        reuse_port=args.reuse_port, proxy_protocol=args.proxy_protocol,
                        proxy_from=args.proxy_from)
    server, room, host_key = await start_server(config, args.host, args.port)
    fp = host_key.get_fingerprint("sha256")
    elapsed = time.monotonic() - t0
    port_arg = "" if args.port == 22 else f"-p {args.port} "
    print(f"Lamma is listening on {args.host}:{args.port} (ready in {elapsed:.2f} s)")
    print(f"Host key fingerprint: {fp}")
    print(f"Play:    ssh {port_arg}YOURNAME@{args.host if args.host not in ('0.0.0.0', '::') else 'localhost'}")
    print(f"Program: ssh {port_arg}YOURNAME@{args.host if args.host not in ('0.0.0.0', '::') else 'localhost'} play")
    mode = "allow-list" if config.allow_list else ("guests on" if config.guests else "guests off")
    where = redact(config.database) if config.database else config.data
    process = f" as process '{config.process}'" if config.process else ""
    shared = "; port shared (SO_REUSEPORT)" if config.reuse_port else ""
    print(f"Mode: {mode}; data in {where}{process}, keys in {config.keys}{shared}")
    if config.proxy_protocol:
        if config.proxy_from:
            sources = "from " + ", ".join(str(n) for n in config.proxy_from) + " only"
        else:
            sources = ("from any address; set --proxy-from to the balancers' addresses "
                       "(any client that reaches this port may claim any address)")
        print(f"PROXY protocol: every connection starts with a header, {sources}")
    if room.metrics is not None:
        host = room.metrics.host
        print(f"Metrics: http://{f'[{host}]' if ':' in host else host}:{room.metrics.port}/metrics")
    sys.stdout.flush()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):
            pass
    from . import runtime
    runtime.tune_gc()
    gc_task = asyncio.create_task(runtime.gc_task())
    from . import metrics
    watching = [asyncio.create_task(metrics.LOOP_LAG.run())]
    if args.status_every > 0:
        # Said at INFO, shown whatever --log-level (0 turns it off).
        metrics.status_log.setLevel(logging.INFO)
        watching.append(asyncio.create_task(metrics.status_task(room, args.status_every)))
    await stop.wait()
    gc_task.cancel()
    for task in watching:
        task.cancel()
    server.close()
    for member in list(room.online.values()):
        try:
            member.kick(Said(N_("The server is stopping.")))
        except Exception:
            pass
    await asyncio.sleep(0.2)
    room.close()


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "serve" and args.proxy_from and not args.proxy_protocol:
        parser.error("--proxy-from needs --proxy-protocol")
    logging.basicConfig(level=getattr(logging, str(getattr(args, "log_level", "WARNING")).upper(), logging.WARNING),
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if args.command == "serve":
        try:
            asyncio.run(serve(args))
        except OSError as exc:
            print(f"lamma: cannot start: {exc}", file=sys.stderr)
            return 1
        except StoreError as exc:           # a damaged database, said clearly
            print(f"lamma: cannot start: {exc}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            pass
        return 0
    if args.command == "admin":
        from .admin import run_admin
        return run_admin(Path(args.data), args.words)
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
