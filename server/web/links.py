"""Who a browser is, without passwords (docs/web.md, "Who you are").

* A **guest** types a name (``NAME°``, as over SSH). The page is given a *resume*
  token for its guest identity, signed by the room: a page that lost its link comes
  back as the same guest, to the same seat; anyone else is a new guest.
* A player who **owns a name** (their SSH key proved it) types ``/web`` in an SSH
  session (or ``l`` on the profile): a one-time code, good for ``[web]
  code-minutes``. Entered on the page, it gives the browser a **token** for that name:
  an HttpOnly cookie ``lamma_link=ID.SECRET.SIGNATURE``. The signature (HMAC-SHA256
  with the room's key, kept in the database: one for every process) turns forgeries
  away before the database is asked; the database keeps a hash of the secret only,
  the name, the key, and when the browser was last seen. A token unused for ``[web]
  link-days`` ends; ``/web unlink`` (or ``u`` on the profile) revokes them, and the
  browser's session ends with it. A token stops working when its key no longer owns
  the name.

``WebLinks`` is the room's ``BrowserLinks`` (``Registry.browsers``): what the screens
and the ``/web`` command do about a player's browsers.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.room import Member, RoomError, Said
from engine.room.errors import N_
from engine.room.people import Person
from engine.room.store import LinkedBrowser
from engine.room.text import name_key

from ..book import key_of
from ..limits import Bucket, Buckets

if TYPE_CHECKING:
    from ..store import Store
    from .settings import WebSettings

log = logging.getLogger("lamma.web")

COOKIE = "lamma_link"
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"   # no 0/O, 1/I: read off a screen
CODE_LENGTH = 8                                       # 40 bits, for minutes, used once
COOKIE_MAX = 200             # characters of a cookie value looked at
TOUCH_EVERY = 3600.0         # a linked browser's last visit is written at most this often
# Codes tried: per address (a person mistypes a few), and in the whole room (so many
# addresses together still cannot walk 2^40 codes in their minutes).
CODE_TRIES_RATE, CODE_TRIES_BURST = 0.1, 5.0
ROOM_CODE_TRIES_RATE, ROOM_CODE_TRIES_BURST = 20.0, 100.0
TRIES_KEPT = 4096


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def normal_code(text: str) -> str:
    """A code as typed (any case, spaces or dashes) as it is kept."""
    return "".join(ch for ch in text.upper() if ch.isalnum())[:CODE_LENGTH * 2]


def shown_code(code: str) -> str:
    return code[:4] + "-" + code[4:]


class WebLinks:
    """Codes, tokens and resume tokens, over the room's store."""

    def __init__(self, store: Store, settings: WebSettings, url: Callable[[], str]):
        self.store = store
        self.settings = settings            # the room's [web] (changed in place on reload)
        self.url = url                      # the page's address, as the room shows it
        self._key = self.store.web_secret().encode()
        self._tries = Buckets(CODE_TRIES_RATE, CODE_TRIES_BURST, TRIES_KEPT)
        self._room_tries = Bucket(ROOM_CODE_TRIES_RATE, ROOM_CODE_TRIES_BURST)
        # Sessions open now under each linked browser (ended when it is unlinked).
        self.sessions: dict[str, set[Member]] = {}
        self._touched: dict[str, float] = {}

    # ---------------------------------------------------------------- signing
    def _sign(self, text: str) -> str:
        return _b64(hmac.new(self._key, text.encode(), hashlib.sha256).digest()[:16])

    def guest_resume(self, name: str) -> tuple[str, str]:
        """A new guest under ``name``: (its resume token, its identity)."""
        nonce = secrets.token_urlsafe(12)
        nk = name_key(name)
        return f"{nonce}.{self._sign('guest:' + nonce + ':' + nk)}", f"guest:w{nonce}:{nk}"

    def guest_ident(self, token: str, name: str) -> str | None:
        """The identity a resume token gives back under ``name``; None if it is not one
        of the room's for that name."""
        if not token or len(token) > COOKIE_MAX or token.count(".") != 1:
            return None
        nonce, sig = token.split(".")
        nk = name_key(name)
        if not hmac.compare_digest(sig, self._sign("guest:" + nonce + ":" + nk)):
            return None
        return f"guest:w{nonce}:{nk}"

    # ------------------------------------------------------------------ codes
    def new_code(self, member: Person) -> str:
        fp = key_of(member.ident)
        if member.guest or fp is None:
            raise RoomError("Guests cannot link a browser: connect with an SSH key to own "
                            "your name first.")
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        minutes = self.settings.code_minutes
        self.store.add_link_code(_hash(code), member.name, fp, time.time() + minutes * 60)
        log.info("link code made for %s", member.name,
                 extra={"event": "web-code", "player": member.name})
        return shown_code(code)

    def may_try(self, address: str) -> bool:
        """A code may be tried from ``address`` now (few a minute; the room's own cap)."""
        return self._tries.take(address) and self._room_tries.take()

    def redeem(self, code: str, label: str) -> tuple[str, str] | str:
        """A code entered on a page: (the cookie's value, the name) — or why not."""
        code = normal_code(code)
        if len(code) != CODE_LENGTH:
            return Said(N_("A link code has 8 letters and digits (like ABCD-2345)."))
        found = self.store.take_link_code(_hash(code))
        if found is None:
            return Said(N_("That code is not known, used already or too old: type /web in "
                           "your SSH session for a new one."))
        name, fp = found
        if self.store.owner(name) != fp:
            return Said(N_("That code is not known, used already or too old: type /web in "
                           "your SSH session for a new one."))
        link_id = secrets.token_urlsafe(9)
        secret = secrets.token_urlsafe(18)
        self.store.add_link(link_id, name, fp, _hash(secret), label)
        log.info("browser linked to %s", name, extra={"event": "web-link", "player": name})
        return f"{link_id}.{secret}.{self._sign('link:' + link_id + '.' + secret)}", name

    def holder(self, cookie: str) -> tuple[str, str, str] | None:
        """Who a link cookie names: (name, key fingerprint, link id), or None (forged,
        revoked, too old, or its key no longer owns the name)."""
        if not cookie or len(cookie) > COOKIE_MAX or cookie.count(".") != 2:
            return None
        link_id, secret, sig = cookie.split(".")
        if not hmac.compare_digest(sig, self._sign("link:" + link_id + "." + secret)):
            return None
        row = self.store.link(link_id)
        if row is None:
            return None
        name, fp, secret_hash, last_used = row
        if not hmac.compare_digest(secret_hash, _hash(secret)):
            return None
        now = time.time()
        if now - last_used > self.settings.link_days * 86400:
            self.store.remove_links(name, link_id)
            return None
        if self.store.owner(name) != fp:
            return None
        if now - self._touched.get(link_id, last_used) >= TOUCH_EVERY:
            self._touched[link_id] = now
            self.store.touch_link(link_id)
        return name, fp, link_id

    # ------------------------------------------------------------ BrowserLinks
    def linked(self, member: Person) -> list[LinkedBrowser]:
        if member.guest:
            return []
        return self.store.links_of(member.name)

    def unlink(self, member: Person, link_id: str | None = None) -> int:
        if member.guest:
            return 0
        mine = {b.id for b in self.store.links_of(member.name)}
        gone = self.store.remove_links(member.name, link_id)
        for lid in mine if link_id is None else {link_id} & mine:
            self._touched.pop(lid, None)
            for session in list(self.sessions.get(lid, ())):
                session.kick(Said(N_("This browser was unlinked from your name.")))
        return gone

    def opened(self, link_id: str, member: Member) -> None:
        self.sessions.setdefault(link_id, set()).add(member)

    def closed(self, link_id: str, member: Member) -> None:
        held = self.sessions.get(link_id)
        if held is not None:
            held.discard(member)
            if not held:
                del self.sessions[link_id]

    # ----------------------------------------------------------------- /web
    def command(self, member: Member, words: list[str]) -> str:
        """``/web`` (a code), ``/web list``, ``/web unlink N|all``."""
        what = words[0].lower() if words else "code"
        if what == "code":
            code = self.new_code(member)
            return Said(N_("Your link code: {code}. Enter it on the room's web page ({url}) "
                           "within {n} minutes; it works once."), code=code,
                        url=self.url(),
                        n=round(self.settings.code_minutes))
        if what == "list":
            links = self.linked(member)
            if not links:
                return Said(N_("No browser is linked to your name (/web gives a code)."))
            return "\n".join(f"{i}. {b.label} · "
                             f"{time.strftime('%Y-%m-%d', time.gmtime(b.last_used))}"
                             for i, b in enumerate(links, 1))
        if what == "unlink" and len(words) == 2:
            links = self.linked(member)
            if words[1].lower() == "all":
                n = self.unlink(member)
                return Said(N_("Browsers unlinked: {n}."), n=n)
            if words[1].isdigit() and 1 <= int(words[1]) <= len(links):
                n = self.unlink(member, links[int(words[1]) - 1].id)
                return Said(N_("Browsers unlinked: {n}."), n=n)
        raise RoomError("Usage: /web (a link code) · /web list · /web unlink N|all")
