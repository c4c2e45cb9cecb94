"""Moderation, as people running a public room expect (ssh-chat's /ban, /mute, /ignore).

Operators are named by key in ``keys/operators`` (OpenSSH public-key lines, reread when
the file changes). From their own session (chat line or lobby ``/``, or the JSON
``command`` op) or with ``lamma admin`` on the server machine they list sessions and
tables, announce, mute, kick, ban (a key, a name or an address, for a while or for
good), and close a table; every such action is written to the store with who did it.
Every player can /ignore someone's chat and /report someone to the operators.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Protocol

import asyncssh

from engine.room import PLAYER_HELP, Member, Registry, RoomError, Said, own_command
from engine.room.errors import N_
from engine.room.moderation import bare_name
from engine.room.text import clean_chat, name_key

from .book import key_of
from .cluster import PgCluster
from .keyfiles import KeyFile
from .limits import address_key
from .roomconfig import RoomConfig
from .store import Store

log = logging.getLogger("lamma.moderation")

OPERATOR_HELP = ("Operators: /who · /tables · /announce TEXT · /mute NAME [TIME] · "
                 "/unmute NAME · /kick NAME [REASON] · /ban NAME|key:FP|addr:IP [TIME] "
                 "[REASON] · /unban TARGET · /bans · /close TABLE · /reports · /log · "
                 "/event list · /event make GAME BOARDS HOURS [private] · /event close ID")
# Where the room has a web page (server/web): a player with a key links browsers.
WEB_HELP = N_("/web gives a code that links a web browser to your name · /web list · "
              "/web unlink N|all")
TIME_RE = re.compile(r"^(\d{1,6})([mhd]?)$")      # 30 (minutes), 30m, 2h, 7d
ADMIN = "admin (server console)"


# Commands whose effect reaches every process of a room that spans several; /kick and
# /close of someone or something on another process are passed on too (``_Elsewhere``).
ROOM_WIDE = ("/announce", "/mute", "/unmute", "/ban", "/event")


class ConsoleError(RoomError):
    """A refusal of a command only ``lamma admin`` may give (its words are the
    operator's, in English, never a player's)."""


class _Elsewhere(Exception):
    """The command's target is on another process of the room: passed on to them."""


def parse_time(word: str) -> float | None:
    """Seconds, from ``30``/``30m`` (minutes), ``2h``, ``7d``; None if not a time."""
    m = TIME_RE.match(word.lower())
    if not m:
        return None
    return int(m.group(1)) * {"": 60, "m": 60, "h": 3600, "d": 86400}[m.group(2)]


def words_of(seconds: float | None) -> str:
    if seconds is None:
        return "for good"
    if seconds % 86400 == 0:
        return f"for {int(seconds // 86400)} d"
    if seconds % 3600 == 0:
        return f"for {int(seconds // 3600)} h"
    return f"for {max(1, round(seconds / 60))} min"


def _muted(seconds: float) -> Said:
    """What a muted person is told (``words_of``, said in their language)."""
    if seconds % 86400 == 0:
        return Said(N_("An operator has muted you for {n} d."), n=int(seconds // 86400))
    if seconds % 3600 == 0:
        return Said(N_("An operator has muted you for {n} h."), n=int(seconds // 3600))
    return Said(N_("An operator has muted you for {n} min."), n=max(1, round(seconds / 60)))


def fingerprints(text: str) -> set[str]:
    """The keys of ``keys/operators`` (OpenSSH public-key lines; # comments)."""
    fps = set()
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            fps.add(asyncssh.import_public_key(line).get_fingerprint("sha256"))
        except (asyncssh.KeyImportError, ValueError):
            log.warning("keys/operators: a line that is not a public key is ignored")
    return fps


class Commands(Protocol):
    """Its web page's commands (``/web``: server/web/links.py), where the room has one."""

    def command(self, member: Member, words: list[str]) -> str: ...


class Page(Protocol):
    """The room's web page (server/web/listener.py), as moderation reaches it."""

    @property
    def links(self) -> Commands: ...


class Governed(Protocol):
    """The room as its operators govern it (server/service.py's ``RoomService``): its
    configuration, store, tables and people here, the room's other processes, its web
    page, and what an operator may have it do (count the bans, read its settings and
    host keys again, restart)."""

    config: RoomConfig
    store: Store
    registry: Registry
    online: dict[str, Member]
    cluster: PgCluster | None

    @property
    def web(self) -> Page | None: ...

    def count_bans(self) -> None: ...
    def reload(self) -> str: ...
    def reload_host_keys(self) -> str: ...
    def start_drain(self, seconds: float | None = None) -> str: ...


class Moderation:
    """The room's ``Moderator``: runs slash commands, keeps bans, logs what operators do."""

    def __init__(self, room: Governed):
        self.room = room
        self.operators: KeyFile[set[str]] = KeyFile(room.config.keys / "operators",
                                                    fingerprints, set())
        self.named: set[str] = set()        # named in the configuration file
        self.named_operators(room.config.operators)

    def named_operators(self, lines: tuple[str, ...] | list[str]) -> None:
        """Operators named in the configuration (``[moderation] operators``)."""
        self.named = fingerprints("\n".join(lines))

    # ------------------------------------------------------------- who is who
    def is_operator(self, member: Member) -> bool:
        fp = key_of(member.ident)
        return fp is not None and (fp in self.named or fp in self.operators.current())

    def banned(self, *, address: str | None = None, fingerprint: str | None = None,
               name: str | None = None) -> str | None:
        """Why a connection is refused, if a ban in force matches it."""
        store = self.room.store
        for kind, value in (("addr", address), ("key", fingerprint),
                            ("name", name_key(name) if name else None)):
            if value:
                ban = store.ban_in_force(kind, value)
                if ban is not None:
                    until = ban["until"]
                    if until is None:
                        return Said(N_("You are banned from this room."))
                    return Said(N_("You are banned from this room until {when}."),
                                when=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(until)))
        return None

    # --------------------------------------------------------------- commands
    def command(self, member: Member, line: str) -> str:
        """A command typed by a member (Moderator)."""
        line = clean_chat(line)
        own = own_command(member, line, self.known)
        if own is not None:
            return own
        words = line.split()
        cmd = words[0].lower() if words else ""
        if cmd == "/help":
            web = "\n" + WEB_HELP if self.room.web is not None and not member.guest else ""
            return (PLAYER_HELP + web
                    + ("\n" + OPERATOR_HELP if self.is_operator(member) else ""))
        if cmd == "/web":
            # Browsers linked to this player's name (server/web/links.py).
            browsers = self.room.web.links if self.room.web is not None else None
            if browsers is None:
                raise RoomError("This room has no web page.")
            return browsers.command(member, words[1:])
        if cmd == "/report":
            if len(words) < 3:
                raise RoomError("Usage: /report NAME REASON")
            target = bare_name(words[1])
            member.chat_guard.check()        # a report is held to chat's pace: stored rows
            self.room.store.add_report(member.name, target, " ".join(words[2:])[:300])
            log.info("%s reported %s", member.name, target)
            return Said(N_("Thank you: the operators will see your report about {name}."),
                        name=target)
        if cmd == "/key":
            return self.key_command(member, words[1:])
        if not self.is_operator(member):
            raise RoomError("Unknown command {command}: /help lists yours.",
                            command=repr(cmd[:20]))
        return self.operate(member.name, words)

    def known(self, name: str) -> bool:
        """A name the room knows: somebody here now (a key's or a guest's session, on
        this process or, as of the last heartbeat, another of the room's), or a name a
        key owns (here or not)."""
        if name_key(name) in self.room.online:
            return True
        cluster = self.room.cluster
        if cluster is not None and cluster.named_elsewhere(name):
            return True
        return self.room.store.owner(name) is not None

    def key_command(self, member: Member, args: list[str]) -> str:
        """A player's keys (issue 45): ``/key add`` makes a one-time code with which
        another device adds its key to this name; ``/key list`` lists the name's keys."""
        if member.guest or key_of(member.ident) is None:
            raise RoomError("Guests have no key: connect with an SSH key to have a name "
                            "and keys of your own.")
        store = self.room.store
        if args == ["add"]:
            member.chat_guard.check()        # held to chat's pace: each is a stored row
            code = store.make_code(member.name)
            log.info("%s made a code to add a key", member.name,
                     extra={"event": "key-code", "player": member.name})
            return Said(N_("Your one-time code to add another key to {name}: {code}, for 10 "
                           "minutes. On the other device, connect with its key as you do "
                           "here, adding the command: key {code}"),
                        name=member.name, code=code)
        if args == ["list"]:
            keys = [fp for fp, _ in store.keys_of(member.name)]
            return Said(N_("Keys of {name}: {keys}"), name=member.name, keys=", ".join(keys))
        raise RoomError("Usage: /key add (a code for another device's key) · /key list")

    def admin(self, line: str) -> str:
        """A command from ``lamma admin`` on the server machine (an operator's power)."""
        words = clean_chat(line).split()
        if words and not words[0].startswith("/"):
            words[0] = "/" + words[0]
        if not words or words[0] == "/help":
            return OPERATOR_HELP + (" · From the server machine: reload (the "
                                    "configuration file again) · drain [SECONDS] (a "
                                    "clean restart) · hostkeys (the keys folder's host "
                                    "keys again) · player list|rename|delete|key (names "
                                    "and their keys)")
        return self.operate(ADMIN, words)

    def operate(self, by: str, words: list[str]) -> str:
        cmd, args = words[0].lower(), words[1:]
        handler = getattr(self, "op_" + cmd[1:], None) if cmd[1:].isalpha() else None
        if handler is None:
            raise RoomError("Unknown command {command}: /help lists them.",
                            command=repr(cmd[:20]))
        cluster = self.room.cluster
        try:
            reply: str = handler(by, args)
        except _Elsewhere as e:
            # Not on this process: every process of the room is asked (server.cluster).
            assert cluster is not None
            cluster.moderate(cmd, args, by)
            reply = str(e)
        else:
            if cluster is not None and cmd in ROOM_WIDE:
                cluster.moderate(cmd, args, by)
        if cmd not in ("/who", "/tables", "/bans", "/reports", "/log") and \
                words[1:2] != ["list"]:
            self.room.store.log_action(by, cmd[1:], " ".join(args)[:300])
            log.info("operator %s: %s", by, " ".join(words)[:300])
        return reply

    def _online(self, name: str) -> Member:
        member = self.room.online.get(name_key(bare_name(name)))
        if member is None:
            if self.room.cluster is not None:
                raise _Elsewhere(f"{name[:20]} is not on this process; the room's other "
                                 "processes were asked.")
            raise RoomError("Nobody called {name} is here.", name=name[:20])
        return member

    def heard(self, cmd: str, args: list[str], by: str) -> None:
        """An operator's command given through another process of the room: its effect
        on this process's people and tables (stored effects, a ban's row, were made
        there)."""
        try:
            if cmd in ("/ban", "/unban"):
                self.room.count_bans()
            if cmd == "/ban":
                kind, value = self._target(args[0])
                self._close_banned(kind, value, by)
            elif cmd == "/event":
                if args[:1] == ["close"]:
                    self.room.registry.events.sweep()   # its boards played here end
            elif cmd == "/close":
                table = self.room.registry.tables.get(args[0])
                if table is not None:       # we drive it
                    self.room.registry.close_table(table,
                                                   Said(N_("An operator closed this table.")))
            elif cmd == "/mute":
                # Stored by the process it was given through; the one its person is
                # connected to adds what is behind the name (their key, a guest's
                # address: ``Mutes.marks``).
                if args and name_key(bare_name(args[0])) in self.room.online:
                    self.op_mute(by, args)
            elif cmd in ("/announce", "/kick"):
                getattr(self, "op_" + cmd[1:])(by, args)
        except (RoomError, _Elsewhere, IndexError):
            pass                            # nobody of theirs here
        except Exception:
            log.exception("operator's %s from another process", cmd)

    # The operators' commands: (by, args) -> the reply.
    def names_here(self) -> list[str]:
        """The names of this process's people (a guest's may not look like one)."""
        return [m.name for m in list(self.room.online.values())]

    def who_here(self) -> list[str]:
        """This process's people as /who lists them."""
        rows = []
        for m in sorted(self.room.online.values(), key=lambda m: name_key(m.name)):
            where = ""
            if m.table is not None:
                where = f" table {m.table.id}" + (f" seat {m.seat}" if m.seat is not None
                                                  else " watching")
            # The key, as /ban key:FP takes it (issue 45); a guest has none.
            fp = key_of(m.ident)
            rows.append(f"{m.display_name} ({getattr(m, 'kind', '?')}, "
                        f"{m.address or '?'}, {f'key {fp}' if fp else 'guest'}){where}")
        return rows

    def op_who(self, by: str, args: list[str]) -> str:
        rows = self.who_here()
        cluster = self.room.cluster
        if cluster is not None:
            # Every process of the room (issue 41), each session with its process.
            rows = [f"{r} @{cluster.process}" for r in rows]
            try:
                for process, lines in cluster.people_elsewhere():
                    rows += [f"{r} @{process}" for r in lines]
            except Exception as e:          # the database: said, our own still listed
                rows.append(f"(the other processes could not be read: {str(e)[:80]})")
        return f"{len(rows)} here: " + "; ".join(rows) if rows else "Nobody is here."

    def op_tables(self, by: str, args: list[str]) -> str:
        reg = self.room.registry
        tables = list(reg.tables.values())
        if reg.side is not None:                # the room's other processes' tables too
            tables += [rt.table for rt in reg.side.remote.values() if rt.row]
        rows = [f"{t.id} {t.game} {t.status} [" + ", ".join(s.label for s in t.seats) + "]"
                for t in sorted(tables, key=lambda t: (len(t.id), t.id))]
        return f"{len(rows)} tables: " + "; ".join(rows) if rows else "No tables."

    def op_announce(self, by: str, args: list[str]) -> str:
        text = " ".join(args)
        if not text:
            raise RoomError("Usage: /announce TEXT")
        for m in list(self.room.online.values()):
            try:
                m.notice(Said(N_("Announcement: {text}"), text=text))
            except Exception:
                log.exception("announcing to %s failed", m.name)
        said = f"Announced to {len(self.room.online)} session(s)"
        cluster = self.room.cluster
        if cluster is not None:
            # and by every other process of the room to its own (issue 41)
            try:
                elsewhere = sum(len(lines) for _, lines in cluster.people_elsewhere())
                said += f" here and {elsewhere} on the room's other processes"
            except Exception as e:
                said += f" here (the other processes could not be counted: {str(e)[:80]})"
        return said + "."

    def op_mute(self, by: str, args: list[str]) -> str:
        if not args:
            raise RoomError("Usage: /mute NAME [TIME]")
        seconds = parse_time(args[1]) if len(args) > 1 else 3600.0
        if seconds is None:
            raise RoomError("A time is like 30m, 2h or 7d.")
        name = bare_name(args[0])
        member = self.room.online.get(name_key(name))
        marks, until = self.room.registry.mutes.mute(name, seconds, member)
        if self.room.cluster is not None:   # the room's, enforced by every process
            self.room.cluster.save_mute(name_key(name), marks, until)
        if member is not None:
            member.notice(_muted(seconds))
        return f"{name} is muted {words_of(seconds)}."

    def op_unmute(self, by: str, args: list[str]) -> str:
        if len(args) != 1:
            raise RoomError("Usage: /unmute NAME")
        if not self.room.registry.mutes.unmute(bare_name(args[0])):
            raise RoomError("{name} is not muted.", name=args[0][:20])
        if self.room.cluster is not None:
            self.room.cluster.lift_mute(name_key(bare_name(args[0])))
        return f"{args[0]} may chat again."

    def op_kick(self, by: str, args: list[str]) -> str:
        if not args:
            raise RoomError("Usage: /kick NAME [REASON]")
        member = self._online(args[0])
        reason = " ".join(args[1:]) or N_("no reason given")
        member.kick(Said(N_("An operator closed your session ({reason})."), reason=reason))
        return f"{member.display_name} was disconnected."

    def _target(self, word: str) -> tuple[str, str]:
        kind, _, value = word.partition(":")
        if kind == "addr" and value:
            return kind, address_key(value)       # as connections are counted (IPv6: /64)
        if kind == "key" and value:
            return kind, value
        if kind == "name" and value:
            return "name", name_key(value)
        return "name", name_key(bare_name(word))

    def op_ban(self, by: str, args: list[str]) -> str:
        if not args:
            raise RoomError("Usage: /ban NAME|key:FP|addr:IP [TIME] [REASON]")
        kind, value = self._target(args[0])
        rest = args[1:]
        seconds = parse_time(rest[0]) if rest else None
        if seconds is not None:
            rest = rest[1:]
        reason = " ".join(rest)[:200]
        until = time.time() + seconds if seconds is not None else None
        if kind == "name":
            # A name ban also holds the key behind it, when that key is known.
            fp = self.room.store.owner(value)
            if fp is not None:
                self.room.store.add_ban("key", fp, until, by, reason)
        self.room.store.add_ban(kind, value, until, by, reason)
        self.room.count_bans()
        kicked = self._close_banned(kind, value, by)
        return f"Banned {kind} {value} {words_of(seconds)}" + \
            (f"; {kicked} session(s) closed." if kicked else ".")

    def _close_banned(self, kind: str, value: str, by: str) -> int:
        kicked = 0
        for m in list(self.room.online.values()):
            if m.name == by:
                continue                # an operator's own address ban spares them
            if (kind == "name" and name_key(m.name) == value) or \
                    (kind == "key" and key_of(m.ident) == value) or \
                    (kind == "addr" and m.address == value):
                m.kick(Said(N_("An operator has banned you from this room.")))
                kicked += 1
        return kicked

    def op_unban(self, by: str, args: list[str]) -> str:
        if len(args) != 1:
            raise RoomError("Usage: /unban NAME|key:FP|addr:IP")
        kind, value = self._target(args[0])
        n = self.room.store.remove_bans(kind, value)
        if kind == "name":
            fp = self.room.store.owner(value)
            if fp is not None:
                n += self.room.store.remove_bans("key", fp)
        if not n:
            raise RoomError("No ban on {kind} {value}.", kind=kind, value=value[:40])
        self.room.count_bans()
        return f"Unbanned {kind} {value}."

    def op_bans(self, by: str, args: list[str]) -> str:
        rows = [f"{b['kind']} {b['value']} "
                + ("for good" if b["until"] is None else
                   "until " + time.strftime("%Y-%m-%d %H:%M", time.gmtime(b["until"])))
                + f" by {b['by']}" + (f" ({b['reason']})" if b["reason"] else "")
                for b in self.room.store.bans()]
        return "; ".join(rows) if rows else "No bans in force."

    def op_close(self, by: str, args: list[str]) -> str:
        if len(args) != 1:
            raise RoomError("Usage: /close TABLE")
        table = self.room.registry.get(args[0])
        if table.id not in self.room.registry.tables:
            raise _Elsewhere(f"Table {table.id} is played on another process; it was asked "
                             "to close it.")
        self.room.registry.close_table(table, Said(N_("An operator closed this table.")))
        return f"Table {table.id} was closed."

    def op_event(self, by: str, args: list[str]) -> str:
        """Duplicate events: every one listed (private ones with their code), one made
        (the room's, no cap), one closed now (its boards in play end)."""
        events = self.room.registry.events
        what = args[0].lower() if args else ""
        if what == "list" and len(args) == 1:
            rows = []
            now = time.time()
            for ev in events.store.events(now - 7 * 86400):
                state = "open" if ev.opens <= now < ev.closes else "closed"
                rows.append(f"{ev.id} {events.name(ev)} · {ev.game} · {ev.boards} boards · "
                            f"{state} until {time.strftime('%m-%d %H:%M', time.gmtime(ev.closes))}"
                            f" · {len(events.store.entries(ev.id))} entries"
                            + (f" · private, code {ev.code}" if ev.private else ""))
            return "\n".join(rows) if rows else "No events."
        if what == "make" and len(args) in (4, 5):
            if len(args) == 5 and args[4].lower() != "private":
                raise RoomError("Usage: /event make GAME BOARDS HOURS [private]")
            boards = int(args[2]) if args[2].isdigit() else args[2]
            hours = int(args[3]) if args[3].isdigit() else args[3]
            ev = events.make(args[1], boards, hours, len(args) == 5)
            return (f"Event {ev.id} made: {ev.game}, {ev.boards} boards, open until "
                    f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(ev.closes))}"
                    + (f"; private, code {ev.code}." if ev.private else "."))
        if what == "close" and len(args) == 2:
            ev = events.close_event(args[1])
            return f"Event {ev.id} was closed; its boards in play end."
        raise RoomError("Usage: /event list · /event make GAME BOARDS HOURS [private] · "
                        "/event close ID")

    def op_reload(self, by: str, args: list[str]) -> str:
        """The configuration file read again (as SIGHUP): only from the server machine."""
        self._console_only(by, "reload")
        from .config import ConfigError
        try:
            return self.room.reload()
        except ConfigError as e:
            raise RoomError("Not reloaded (nothing changed): {why}", why=str(e)) from None

    def op_hostkeys(self, by: str, args: list[str]) -> str:
        """The keys folder's host keys read again (lamma keys rotate / retire send it)."""
        self._console_only(by, "hostkeys")
        return self.room.reload_host_keys()

    def op_player(self, by: str, args: list[str]) -> str:
        """Names and their keys, from the server machine (issue 45): list [TEXT],
        rename OLD NEW, delete NAME, move NAME KEY (a public-key line or SHA256:…: the
        name logs in with that key only from now on). Each change is in /log and the
        log, with who did it; the name's sessions are closed."""
        self._console_only(by, "player list|rename|delete|move …")
        usage = ("Usage: player list [TEXT] · player rename OLD NEW · player delete NAME "
                 "· player move NAME PUBLIC-KEY|SHA256:FINGERPRINT")
        if not args:
            raise ConsoleError(usage)
        what, rest = args[0].lower(), args[1:]
        store = self.room.store
        if what == "list":
            rows = store.players(" ".join(rest)[:40])
            if not rows:
                return "No player matches."
            day = "%Y-%m-%d"
            return "\n".join(
                f"{r['name']}: keys {', '.join(r['keys'])}"
                + (f" (identity {r['identity']})" if r['identity'] not in r['keys'] else "")
                + f"; since {time.strftime(day, time.gmtime(r['created']))}, last seen "
                f"{time.strftime(day, time.gmtime(r['last_seen']))}, {r['points']} points"
                for r in rows)
        if what == "rename" and len(rest) == 2:
            old, new = rest
            from engine.room.text import check_name
            checked, why = check_name(new)
            if checked is None:
                raise ConsoleError(f"{new!r} cannot be a name: {why}")
            if self._seated(old):
                raise ConsoleError(f"{old} holds a seat in a match under way: rename "
                                   "once it is over (or the table closed)")
            refused = store.rename(old, checked)
            if refused is not None:
                raise ConsoleError(f"Not renamed: {refused}.")
            closed = self._close_sessions(old, "renamed")
            return f"Renamed {old} to {checked}" + (f"; {closed} session(s) closed."
                                                   if closed else ".")
        if what == "delete" and len(rest) == 1:
            if not store.delete_player(rest[0]):
                raise ConsoleError(f"Nobody is called {rest[0]}.")
            closed = self._close_sessions(rest[0], "deleted")
            return (f"Deleted {rest[0]}: the name is free again" +
                    (f"; {closed} session(s) closed." if closed else "."))
        if what == "move" and len(rest) >= 2:
            name, key = rest[0], " ".join(rest[1:])
            if key.startswith("SHA256:") and len(key.split()) == 1:
                fp = key
            else:
                try:
                    fp = asyncssh.import_public_key(key).get_fingerprint("sha256")
                except (asyncssh.KeyImportError, ValueError):
                    raise ConsoleError("Not a public key (give its OpenSSH line, or its "
                                       "SHA256: fingerprint).") from None
            if not store.move_to_key(name, fp):
                raise ConsoleError(f"Nobody is called {name}.")
            closed = self._close_sessions(name, "moved to a new key")
            return (f"{name} logs in with {fp} only from now on (its seats and points "
                    "kept)" + (f"; {closed} session(s) closed." if closed else "."))
        raise ConsoleError(usage)

    def _seated(self, name: str) -> bool:
        """Does ``name`` hold a seat in a match under way at a table of this process?"""
        end = ":" + name_key(name)
        return any(seat.kind == "human" and (seat.ident or "").endswith(end)
                   and (seat.ident or "").startswith("key:") and table.status == "playing"
                   for table in list(self.room.registry.tables.values())
                   for seat in table.seats)

    def _close_sessions(self, name: str, why: str) -> int:
        member = self.room.online.get(name_key(name))
        if member is None or member.guest:
            return 0
        member.kick(Said(N_("An operator changed your name or its keys; connect again.")))
        log.info("closed %s's session: %s", name, why)
        return 1

    def op_drain(self, by: str, args: list[str]) -> str:
        """A clean restart (as SIGTERM), in SECONDS or the configured wait."""
        self._console_only(by, "drain [SECONDS]")
        seconds = None
        if args:
            try:
                seconds = float(args[0])
            except ValueError:
                raise RoomError("Usage: drain [SECONDS]") from None
            if not 0 <= seconds <= 3600:
                raise RoomError("Usage: drain [SECONDS] (0 to 3600)")
        return self.room.start_drain(seconds)

    def _console_only(self, by: str, usage: str) -> None:
        if by != ADMIN:
            raise RoomError("Only on the server machine: lamma admin {usage}", usage=usage)

    def op_reports(self, by: str, args: list[str]) -> str:
        rows = [f"{time.strftime('%m-%d %H:%M', time.gmtime(r['at']))} {r['by']} about "
                f"{r['target']}: {r['reason']}" for r in self.room.store.reports(20)]
        return "\n".join(rows) if rows else "No reports."

    def op_log(self, by: str, args: list[str]) -> str:
        rows = [f"{time.strftime('%m-%d %H:%M', time.gmtime(r['at']))} {r['by']}: "
                f"{r['action']} {r['detail']}" for r in self.room.store.actions_log(20)]
        return "\n".join(rows) if rows else "Nothing logged."


