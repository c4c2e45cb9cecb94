"""``lamma serve --web HOST:PORT``: the room's page and its websocket (docs/web.md).

One listener (the ``websockets`` package: asyncio, RFC 6455 and permessage-deflate)
answers a few GETs itself — the page, its scripts (xterm.js, vendored in
``static/``), ``/link`` and ``/unlink`` — and upgrades ``/ws`` to the websocket a
browser plays on. Each websocket is one session: its own LammaApp on the SSH driver
(``channel.WebProcess``), at the same table engine, held to the same limits.

Every byte is hostile, as over SSH:

* connections: the room's cap on all of them (``Book.connections``, shared with SSH),
  and per address those still sending their request (``handshakes-per-address``);
  the request within ``OPEN_TIMEOUT``; a page's requests per address a second;
  websockets opened per address a second (``connects-rate``, SSH's own allowance);
  guests per address (``guests-per-address``, with SSH's guests) and sessions per key
  (``connections-per-key``); address bans;
* the websocket: an ``Origin`` of the page's own host (or ``[web] origins``), else
  403; messages of at most ``MESSAGE_MAX`` bytes, a few queued (``MAX_QUEUE``), then
  TCP holds the browser; what it types goes through the SSH driver's limits (bytes
  and keys a second, pastes, window sizes) and its output is the app's, as over SSH;
* the client's address from ``X-Forwarded-For`` only when the connection comes from
  one of ``[web] proxies`` (the right-most address that is not a proxy);
* responses carry a Content-Security-Policy (scripts from the room only, nothing
  framed, sockets to the room only), ``nosniff`` and no referrer.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import html
import ipaddress
import itertools
import json
import logging
import string
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from engine.room import Said
from engine.room.errors import N_
from engine.room.text import check_name, name_key
from tui.i18n import LANGUAGES, Speech

from ..book import key_of
from ..limits import Address, Buckets, KeyHold, address_key
from ..refusals import looks_like, said_to
from ..sessions import Claim, SessionHandler
from ..store import StoreError
from .app import TAKEN_OVER, WebLammaApp
from .channel import WebProcess
from .links import COOKIE, WebLinks

if TYPE_CHECKING:
    import asyncio.transports

log = logging.getLogger("lamma.web")
_session_ids = itertools.count(1)

STATIC = Path(__file__).parent / "static"
# What the page is made of, and how each is served; nothing else is.
FILES = {"xterm.js": "text/javascript", "addon-fit.js": "text/javascript",
         "lamma.js": "text/javascript", "xterm.css": "text/css", "lamma.css": "text/css",
         "LICENSE-xterm.txt": "text/plain", "LICENSE-addon-fit.txt": "text/plain"}
CSP = ("default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self'; "
       # xterm.js's DOM renderer writes its own <style> (cell sizes, colours): no script
       # can be injected by a style, and the page's own styles are files.
       "style-src 'self' 'unsafe-inline'; font-src 'self'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
MESSAGE_MAX = 64 * 1024        # bytes of one websocket message (the page sends 16 KB)
MAX_QUEUE = (8, 2)             # messages received and not read, before TCP holds the client
OPEN_TIMEOUT = 10.0            # seconds from the TCP connection to its request
PAGE_RATE, PAGE_BURST = 10.0, 60.0     # GETs a second per address (a page load is ~7)
PAGE_BUCKETS_KEPT = 4096
CLOSE_LEFT = 1000              # the player left (q): the page does not come back by itself
CLOSE_REFUSED = 4001           # refused (the reason said first): nor here
CLOSE_TAKEN_OVER = 4002        # another terminal of the same person took the session
CLOSE_ENDED = 4003             # closed by the room (a kick, a restart): the page comes back


# Said on the page (the form before the terminal), in the visitor's language.
PAGE_WORDS = {
    "title": N_("Lamma — a card room"),
    "name": N_("Your name"),
    "guest": N_("Play"),
    "guest_note": N_("Without a link you play as a guest (NAME°): nothing is kept."),
    "code": N_("Own a name through an SSH key? Type /web in your SSH session and enter "
               "the code here:"),
    "link": N_("Link this browser"),
    "unlink": N_("Unlink this browser"),
    "linked": N_("This browser plays as {name}."),
    "lost": N_("The link was lost; connecting again…"),
    "left": N_("You left the room."),
    "again": N_("Enter again"),
    "nojs": N_("The room's page needs JavaScript."),
}


def accept_language(header: str | None) -> str | None:
    """The first language of an ``Accept-Language`` header the room speaks (by its
    q-values, then its order), or None."""
    if not header:
        return None
    ranked = []
    for i, part in enumerate(header[:512].split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        code = tag.strip().split("-")[0].lower()
        if code in LANGUAGES and q > 0:
            ranked.append((-q, i, code))
    return min(ranked)[2] if ranked else None


def cookie_of(headers: Headers, name: str) -> str:
    for line in headers.get_all("Cookie")[:4]:
        for part in line[:4096].split(";"):
            key, _, value = part.strip().partition("=")
            if key == name:
                return value.strip()
    return ""


def browser_label(agent: str | None) -> str:
    """A linked browser as the profile names it: its kind and system, from what it
    says it is (nothing else of it is kept)."""
    agent = (agent or "")[:512]
    kind = next((k for k, m in (("Edge", "Edg/"), ("Opera", "OPR/"), ("Firefox", "Firefox/"),
                                ("Chromium", "Chromium/"), ("Chrome", "Chrome/"),
                                ("Safari", "Safari/")) if m in agent), "a browser")
    system = next((s for s, m in (("Android", "Android"), ("iPhone", "iPhone"),
                                  ("iPad", "iPad"), ("Windows", "Windows"),
                                  ("macOS", "Mac OS X"), ("Linux", "Linux"))
                   if m in agent), "")
    return f"{kind} on {system}" if system else kind


class Held(TypedDict, total=False):
    """What one browser's session holds of the limits while it lasts (given back at
    its end): a linked key's connection and the link, or a guest's place."""
    key: KeyHold
    fingerprint: str
    link: str
    guest: bool


@dataclass
class Visit:
    """What one connection's request said, as far as it is believed."""

    address: str                    # the client's address key (a proxy's word, if trusted)
    secure: bool = False            # came over HTTPS (said by a trusted proxy)
    language: str | None = None
    query: dict[str, str] = field(default_factory=dict)
    cookie: str = ""
    agent: str = ""


class WebConnection(ServerConnection):
    """websockets' connection, counted from the moment it opens (``create_connection``
    is the library's hook for this)."""

    listener: WebListener
    peer_key = ""                   # the TCP peer's address key ("" if not counted by it)
    counted = False                 # in the room's count of connections
    waiting = False                 # its request not read yet
    visit: Visit | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.listener.opened(self, transport)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.listener.lost(self)


class WebListener:
    """The page and its websocket; each browser's session is handed to the same
    session handler as an SSH terminal's (``handler.run_tui``, on the same driver),
    and uses what that handler is given of the room (``Hall``)."""

    def __init__(self, handler: SessionHandler):
        self.handler = handler
        self.hall = hall = handler.hall    # what the web's sessions use of the room
        self.book = hall.book
        self.settings = hall.config.web
        # (the page's address once it listens: /web said none before)
        self.links = WebLinks(hall.identity, self.settings,
                              lambda: self.url if self.server is not None else "")
        hall.registry.browsers = self.links
        self.server: Server | None = None
        self.host, self.port = "127.0.0.1", 0
        self._files: dict[str, tuple[bytes, bytes, str, str]] = {}
        self._template = string.Template((STATIC / "index.html").read_text())
        self._waiting: dict[str, int] = {}          # per peer: requests not read yet
        self._pages = Buckets(PAGE_RATE, PAGE_BURST, PAGE_BUCKETS_KEPT)  # GETs per address
        self.sessions: set[WebProcess] = set()

    @property
    def url(self) -> str:
        if self.settings.origins:
            return self.settings.origins[0] + "/"
        host = self.host if self.host not in ("0.0.0.0", "::") else "localhost"
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.port}/"

    async def start(self, host: str, port: int) -> None:
        for name, kind in FILES.items():
            data = (STATIC / name).read_bytes()
            etag = '"' + hashlib.sha256(data).hexdigest()[:16] + '"'
            self._files[name] = (data, gzip.compress(data, 9, mtime=0), kind, etag)
        listener = self

        class Connection(WebConnection):
            pass

        Connection.listener = listener
        self.server = await serve(
            self.session, host, port, process_request=self.request,
            create_connection=Connection, compression="deflate", max_size=MESSAGE_MAX,
            max_queue=MAX_QUEUE, open_timeout=OPEN_TIMEOUT, ping_interval=20,
            ping_timeout=20, close_timeout=5, server_header=None,
            reuse_port=self.hall.config.reuse_port or None)
        sock = self.server.sockets[0].getsockname()
        self.host, self.port = host, sock[1]
        log.info("web page on %s", self.url)

    def stop_accepting(self) -> None:
        """A clean restart: no new connection; the sessions open go on."""
        if self.server is not None:
            self.server.close(close_connections=False)

    def close(self) -> None:
        if self.server is not None:
            self.server.close()

    # ----------------------------------------------------------- connections
    def opened(self, conn: WebConnection, transport: asyncio.BaseTransport) -> None:
        book = self.book
        peer = transport.get_extra_info("peername")
        host = str(peer[0]) if peer else "?"
        if book.connections >= book.connection_cap:
            book.full.note(host)
            transport.abort()           # type: ignore[attr-defined]
            return
        book.connections += 1
        conn.counted = True
        conn.waiting = True
        if self.settings.trusts(host):
            return                      # a proxy: its clients are counted by their address
        key = address_key(host)
        limit = self.hall.config.limits.for_address(key).handshakes_per_address
        if self._waiting.get(key, 0) >= limit:
            log.info("refused a web connection from %s: %d waiting already", key, limit,
                     extra={"event": "refused", "address": key})
            transport.abort()           # type: ignore[attr-defined]
            return
        conn.peer_key = key
        self._waiting[key] = self._waiting.get(key, 0) + 1

    def _read(self, conn: WebConnection) -> None:
        """Its request is in: no longer waiting for it."""
        if conn.waiting:
            conn.waiting = False
            key = conn.peer_key
            if key:
                n = self._waiting.get(key, 1) - 1
                if n <= 0:
                    self._waiting.pop(key, None)
                else:
                    self._waiting[key] = n

    def lost(self, conn: WebConnection) -> None:
        self._read(conn)
        if conn.counted:
            conn.counted = False
            self.book.connections -= 1

    # ----------------------------------------------------------------- HTTP
    def visit_of(self, conn: WebConnection, request: Request) -> Visit:
        peer = conn.remote_address
        host = str(peer[0]) if peer else "?"
        client, secure = host, False
        headers = request.headers
        if self.settings.trusts(host):
            hops = [h.strip() for line in headers.get_all("X-Forwarded-For")[:8]
                    for h in line[:1024].split(",") if h.strip()]
            for hop in reversed(hops):
                if not self.settings.trusts(hop):
                    client = hop
                    break
            proto = headers.get("X-Forwarded-Proto", "") or ""
            secure = proto.split(",")[0].strip().lower() == "https"
            try:
                ipaddress.ip_address(client.split("%")[0])
            except ValueError:
                client = host
        query: dict[str, str] = {}
        try:
            raw = parse_qs(urlsplit(request.path).query[:2048], max_num_fields=8)
            query = {k[:16]: v[0][:512] for k, v in raw.items() if v}
        except ValueError:
            pass
        return Visit(address_key(client), secure, accept_language(headers.get("Accept-Language")),
                     query, cookie_of(headers, COOKIE)[:512], (headers.get("User-Agent") or "")[:512])

    def _respond(self, status: int, body: bytes, kind: str,
                 extra: list[tuple[str, str]] | None = None) -> Response:
        headers = Headers([("Content-Type", kind), ("Content-Length", str(len(body))),
                           ("Content-Security-Policy", CSP),
                           ("X-Content-Type-Options", "nosniff"),
                           ("Referrer-Policy", "no-referrer"),
                           ("Cache-Control", "no-store"), *(extra or [])])
        return Response(status, HTTPStatus(status).phrase, headers, body)

    def _text(self, status: int, text: str) -> Response:
        return self._respond(status, text.encode(), "text/plain; charset=utf-8")

    def request(self, conn: ServerConnection, request: Request) -> Response | None:
        assert isinstance(conn, WebConnection)
        self._read(conn)
        visit = conn.visit = self.visit_of(conn, request)
        path = urlsplit(request.path).path
        if self.hall.bans.banned(address=visit.address):
            return self._text(403, "Banned.\n")
        if path == "/ws":
            if not self.origin_allowed(request):
                log.info("websocket refused: origin %r", (request.headers.get("Origin") or "")[:80],
                         extra={"event": "refused", "address": visit.address})
                return self._text(403, "This page may not open the room's websocket.\n")
            if not self.book.address(visit.address).connects.take():
                return self._text(429, "Too many connections from your address; wait a "
                                       "little.\n")
            return None                 # the websocket: ``session``
        if not self._pages.take(visit.address):
            return self._text(429, "Too many requests; wait a little.\n")
        if path == "/":
            return self.page(visit)
        if path in ("/link", "/unlink"):
            return self.link(request, visit, path == "/link")
        name = path.removeprefix("/static/")
        if name != path and name in self._files:
            data, packed, kind, etag = self._files[name]
            if request.headers.get("If-None-Match") == etag:
                return self._respond(304, b"", kind, [("ETag", etag)])
            extra = [("ETag", etag), ("Cache-Control", "no-cache")]
            if "gzip" in (request.headers.get("Accept-Encoding") or "")[:256]:
                data = packed
                extra.append(("Content-Encoding", "gzip"))
            response = self._respond(200, data, kind + "; charset=utf-8", extra)
            del response.headers["Cache-Control"]
            response.headers["Cache-Control"] = "no-cache"
            return response
        return self._text(404, "Not here.\n")

    def origin_allowed(self, request: Request) -> bool:
        """The page's own host (scheme aside: TLS may end at a proxy), or a configured
        origin. A request without an Origin is no browser's: refused too."""
        origin = (request.headers.get("Origin") or "")[:256].lower()
        if not origin:
            return False
        if origin in self.settings.origins:
            return True
        parts = urlsplit(origin)
        host = (request.headers.get("Host") or "")[:256].lower()
        return parts.scheme in ("http", "https") and bool(host) and parts.netloc == host

    def page(self, visit: Visit) -> Response:
        speech = Speech(visit.language or "en")
        words = {k: html.escape(speech._(v)) for k, v in PAGE_WORDS.items()}
        linked = ""
        if visit.cookie:
            try:
                holder = self.links.holder(visit.cookie)
            except Exception:
                holder = None
            linked = holder[0] if holder else ""
        words["linked"] = html.escape(speech._(PAGE_WORDS["linked"]).format(name=linked))
        body = self._template.substitute(
            lang=speech.code, dir="rtl" if speech.rtl else "ltr",
            linked_name=html.escape(linked),
            words=html.escape(json.dumps(words, ensure_ascii=False)),
            **words).encode()
        return self._respond(200, body, "text/html; charset=utf-8")

    def link(self, request: Request, visit: Visit, link: bool) -> Response:
        """``GET /link`` with the code in an ``X-Lamma-Code`` header (a header no other
        site's page can send without the room's consent: no forged link from
        elsewhere): the cookie, or why not. ``/unlink`` (``X-Lamma-Code: unlink``)
        revokes this browser's token and forgets the cookie."""
        code = (request.headers.get("X-Lamma-Code") or "")[:64]
        if not code:
            return self._text(400, "Send the code in an X-Lamma-Code header.\n")
        speech = Speech(visit.language or "en")
        secure = "; Secure" if visit.secure else ""
        if not link:
            holder = self.links.holder(visit.cookie) if visit.cookie else None
            if holder is not None:
                self.hall.identity.remove_links(holder[0], holder[2])
            gone = f"{COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict{secure}"
            return self._respond(200, b"{}", "application/json", [("Set-Cookie", gone)])
        if not self.links.may_try(visit.address):
            said = Said(N_("Too many codes tried from your address; wait a minute."))
            return self._json(429, {"error": said_to(speech, said)})
        try:
            got = self.links.redeem(code, browser_label(visit.agent))
        except StoreError:
            got = Said(N_("The room's database does not answer; try again in a minute."))
        if isinstance(got, str):
            return self._json(403, {"error": said_to(speech, got)})
        value, name = got
        days = int(self.settings.link_days * 86400)
        cookie = f"{COOKIE}={value}; Max-Age={days}; Path=/; HttpOnly; SameSite=Strict{secure}"
        return self._json(200, {"name": name}, [("Set-Cookie", cookie)])

    def _json(self, status: int, body: dict[str, Any],
              extra: list[tuple[str, str]] | None = None) -> Response:
        return self._respond(status, json.dumps(body, ensure_ascii=False).encode(),
                             "application/json", extra)

    # ------------------------------------------------------------- sessions
    async def session(self, ws: ServerConnection) -> None:
        """One browser's session: who it is, then its app, to the end."""
        assert isinstance(ws, WebConnection) and ws.visit is not None
        visit = ws.visit
        hall, book = self.hall, self.book
        task = asyncio.current_task()
        if task is not None:
            book.session_tasks.add(task)
        address = book.address(visit.address)
        address.connections += 1
        held: Held = {}
        try:
            who = self.admit(visit, address, held)
            speech = Speech(visit.language or "en")
            if isinstance(who, str):
                await self._refuse(ws, speech, who)
                return
            name, ident, guest, resume = who
            if not guest and hall.registry.side is not None:
                await hall.registry.side.fresh_rows()
            await self.play(ws, visit, name, ident, guest, resume, held.get("link"))
        except Exception:
            log.exception("web session failed")
        finally:
            if held.get("guest"):
                address.guests -= 1
            hold: KeyHold | None = held.get("key")
            if hold is not None:
                book.release_key(held["fingerprint"], hold)
            address.connections -= 1
            if address.connections == 0 and address.idle():
                book.addresses.pop(visit.address, None)
            if task is not None:
                book.session_tasks.discard(task)

    def admit(self, visit: Visit, address: Address,
              held: Held) -> tuple[str, str, bool, str] | str:
        """Who this browser is: (name, identity, guest, resume token) — or why it is
        refused. What it holds of the limits is put in ``held`` (given back at its end)."""
        hall = self.hall
        limits = hall.config.limits
        holder = None
        if visit.cookie:
            try:
                holder = self.links.holder(visit.cookie)
            except Exception:
                return Said(N_("The room's database does not answer; try again in a "
                               "minute."))
        if holder is not None:
            name, fp, link_id = holder
            banned = hall.bans.banned(fingerprint=fp, name=name)
            if banned:
                return banned
            held_now = self.book.keys.get(fp)
            if held_now is not None and held_now.connections >= limits.connections_per_key:
                return Said(N_("Your key has {n} connections open here already; close one "
                               "first."), n=limits.connections_per_key)
            hold = self.book.key_hold(fp)
            hold.connections += 1
            held.update({"key": hold, "fingerprint": fp, "link": link_id})
            refusal = self.claim(name, f"key:{fp}:{name_key(name)}", False)
            return refusal or (name, f"key:{fp}:{name_key(name)}", False, "")
        checked, reason = check_name(visit.query.get("name", ""))
        if checked is None:
            return reason
        name = checked
        refusal = self.guest_refusal(name)
        if refusal:
            return refusal
        ident = self.links.guest_ident(visit.query.get("resume", ""), name)
        if ident is not None:
            resume = visit.query["resume"]
        else:
            resume, ident = self.links.guest_resume(name)
        old = self.book.online.get(name_key(name))
        if old is not None and old.ident != ident:
            return Said(N_("A guest named '{name}' is already here; choose another name."),
                        name=name)
        if address.guests >= address.limits.guests_per_address:
            return Said(N_("Too many guests from your address (at most {n} at once)."),
                        n=address.limits.guests_per_address)
        address.guests += 1
        held["guest"] = True
        refusal = self.claim(name, ident, True)
        return refusal or (name, ident, True, resume)

    def guest_refusal(self, name: str) -> str | None:
        """As over SSH: bans, guests admitted, a name owned by a key or like one."""
        hall = self.hall
        banned = hall.bans.banned(name=name)
        if banned:
            return banned
        if hall.config.allow_list or not hall.config.guests:
            return Said(N_("This room does not admit guests: link this browser to a name "
                           "you own through an SSH key (/web in your SSH session)."))
        if hall.identity.owner(name) is not None:
            return Said(N_("The name '{name}' belongs to a player with an SSH key: choose "
                           "another, or link this browser (/web in their SSH session)."),
                        name=name)
        like = hall.identity.lookalike_of(name)
        if like is not None:
            return looks_like(name, like, N_("a name that belongs to a key"))
        like = self.book.online_lookalike(name)
        if like is not None:
            return looks_like(name, like, N_("the name of someone here now"))
        return None

    def claim(self, name: str, ident: str, guest: bool) -> str | None:
        """The name for this session, as an SSH session claims it (an older session of
        the same identity is closed: this one takes over)."""
        return self.handler.claim_name(Claim(name, ident, guest, key_of(ident)))

    async def _refuse(self, ws: ServerConnection, speech: Speech, reason: str) -> None:
        said = said_to(speech, reason)
        log.info("web session refused: %s", str(reason)[:200], extra={"event": "refused"})
        try:
            await ws.send(json.dumps({"type": "refused", "message": said}, ensure_ascii=False))
            await ws.close(CLOSE_REFUSED, "refused")
        except Exception:
            pass

    async def play(self, ws: ServerConnection, visit: Visit, name: str, ident: str,
                   guest: bool, resume: str, link_id: str | None) -> None:
        from ..driver import clamp_size

        try:
            cols, rows = clamp_size(visit.query.get("cols", "80"), visit.query.get("rows", "24"))
        except Exception:
            cols, rows = 80, 24
        env = {"LANG": visit.language} if visit.language else {}
        process = WebProcess(ws, self.hall.config.limits, (cols, rows), env)
        process.say({"type": "hello", "name": name, "guest": guest, "resume": resume})
        session = f"w{next(_session_ids)}"
        facts = {"session": session, "player": name, "address": visit.address}
        log.info("web session opened: %s from %s", name, visit.address,
                 extra={**facts, "event": "session-open"})
        self.sessions.add(process)
        member = None
        try:
            app_task = asyncio.ensure_future(self.handler.run_tui(
                process, name, ident, guest, visit.address, app_class=WebLammaApp,
                transport="web", returns=guest))
            if link_id is not None:
                await asyncio.sleep(0)          # (the session is online from its first step)
                member = self.book.online.get(name_key(name))
                if member is not None:
                    self.links.opened(link_id, member)
            await app_task
        finally:
            self.sessions.discard(process)
            if link_id is not None and member is not None:
                self.links.closed(link_id, member)
            await process.finish()
            log.info("web session closed: %s", name, extra={**facts, "event": "session-close"})
        kicked = process.kicked
        if kicked is None:
            code, why = CLOSE_LEFT, "left"
        elif kicked == TAKEN_OVER:
            code, why = CLOSE_TAKEN_OVER, "taken over"
        else:
            code, why = CLOSE_ENDED, "ended"
        try:
            await ws.close(code, why)
        except Exception:
            pass
