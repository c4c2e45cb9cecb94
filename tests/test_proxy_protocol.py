"""``lamma serve --proxy-protocol``: behind a TCP load balancer the room takes each
client's address from the PROXY protocol header the balancer sends (v1 text, v2
binary), so per-address limits and address bans hold each client, not the balancer.
A real room, a small forwarder in the test playing the balancer, real SSH clients."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import time
from collections.abc import Callable, Mapping

import asyncssh
import pytest
from conftest import LammaServer, reply_line, start_room, stop_room

from server.limits import Limits
from server.proxyproto import (
    V1_MAX,
    V2_MAX_LENGTH,
    V2_SIGNATURE,
    Header,
    HeaderError,
    parse,
    parse_networks,
)

REFUSED = (asyncssh.Error, ConnectionError, OSError, asyncio.IncompleteReadError)


# ----------------------------------------------------------------- headers, as sent
def v1(source: str, port: int = 40000, dest: str | None = None, dport: int = 22) -> bytes:
    kind = "TCP6" if ":" in source else "TCP4"
    dest = dest or ("::1" if ":" in source else "127.0.0.1")
    return f"PROXY {kind} {source} {dest} {port} {dport}\r\n".encode()


def v2(source: str | None, port: int = 40000, dest: str | None = None, dport: int = 22,
       tlvs: bytes = b"", command: int = 1) -> bytes:
    """A version 2 block: PROXY (command 1) from ``source``, or LOCAL (0, no source)."""
    if source is None:
        fam, block = 0x00, b""
    else:
        src = ipaddress.ip_address(source)
        dst = ipaddress.ip_address(dest or ("127.0.0.1" if src.version == 4 else "::1"))
        fam = 0x11 if src.version == 4 else 0x21
        block = (src.packed + dst.packed + port.to_bytes(2, "big")
                 + dport.to_bytes(2, "big"))
    body = block + tlvs
    return (V2_SIGNATURE + bytes([0x20 | command, fam]) + len(body).to_bytes(2, "big")
            + body)


# --------------------------------------------------------------------- the parser
def test_version_1_lines():
    assert parse(v1("10.1.2.3", 51000)) == Header(len(v1("10.1.2.3", 51000)),
                                                 ("10.1.2.3", 51000))
    line = b"PROXY TCP6 2001:db8::7 2001:db8::1 65535 22\r\n"
    assert parse(line + b"SSH-2.0-x\r\n") == Header(len(line), ("2001:db8::7", 65535))
    # UNKNOWN (short or with anything after it): the real peer is kept.
    assert parse(b"PROXY UNKNOWN\r\nSSH-2.0-x") == Header(15, None)
    worst = b"PROXY UNKNOWN " + b"f" * (V1_MAX - 16) + b"\r\n"
    assert len(worst) == V1_MAX and parse(worst) == Header(V1_MAX, None)
    # Byte by byte: nothing decided until the CRLF.
    whole = v1("192.0.2.9", 1)
    for n in range(len(whole)):
        assert parse(whole[:n]) is None
    assert parse(whole) == Header(len(whole), ("192.0.2.9", 1))


@pytest.mark.parametrize("data", [
    b"SSH-2.0-OpenSSH_9.6\r\n",                          # a client straight to the port
    b"GET / HTTP/1.1\r\n",
    b"proxy TCP4 1.2.3.4 5.6.7.8 1 2\r\n",                # the keyword is upper case
    b"PROXY  TCP4 1.2.3.4 5.6.7.8 1 2\r\n",
    b"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n",                  # LF alone
    b"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\r\n",
    b"PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n",
    b"PROXY TCP4 1.2.3.4 5.6.7.8 1 2 3\r\n",
    b"PROXY TCP4 01.2.3.4 5.6.7.8 1 2\r\n",               # leading zero: octal?
    b"PROXY TCP4 1.2.3.4 5.6.7.8 080 22\r\n",
    b"PROXY TCP4 1.2.3.4 5.6.7.8 65536 22\r\n",
    b"PROXY TCP4 1.2.3.4 5.6.7.8 -1 22\r\n",
    b"PROXY TCP4 2001:db8::1 5.6.7.8 1 2\r\n",           # family and address disagree
    b"PROXY TCP6 1.2.3.4 2001:db8::1 1 2\r\n",
    b"PROXY TCP4 1.2.3.\xff 5.6.7.8 1 2\r\n",
    b"PROXY UDP4 1.2.3.4 5.6.7.8 1 2\r\n",
    b"PROXY " + b"9" * V1_MAX,                          # no CRLF in 107 bytes
])
def test_version_1_garbage_is_refused_as_soon_as_it_shows(data):
    with pytest.raises(HeaderError):
        parse(data)


def test_version_2_blocks():
    block = v2("10.1.2.3", 51000)
    assert len(block) == 28 and parse(block + b"SSH-2.0-") == Header(28, ("10.1.2.3", 51000))
    six = v2("2001:db8::9", 7, dest="2001:db8::1")
    assert parse(six) == Header(52, ("2001:db8::9", 7))
    # TLVs after the addresses are skipped (here an AWS-style endpoint id and a NOOP).
    tlvs = b"\xea\x00\x0a\x01vpce-1234" + b"\x04\x00\x03abc"
    assert parse(v2("10.1.2.3", 9, tlvs=tlvs)) == Header(28 + len(tlvs), ("10.1.2.3", 9))
    # LOCAL (a health check): the real peer, whatever addresses it carries.
    assert parse(v2(None, command=0)) == Header(16, None)
    assert parse(v2("10.9.9.9", command=0)) == Header(28, None)
    # PROXY with a family not relayed here (UNSPEC, Unix): the real peer as well.
    unix = V2_SIGNATURE + b"\x21\x31" + (216).to_bytes(2, "big") + bytes(216)
    assert parse(unix) == Header(232, None)
    for n in range(len(block)):
        assert parse(block[:n]) is None
    biggest = v2("10.1.2.3", tlvs=b"\x04" + (V2_MAX_LENGTH - 15).to_bytes(2, "big")
                 + bytes(V2_MAX_LENGTH - 15))
    assert parse(biggest) == Header(16 + V2_MAX_LENGTH, ("10.1.2.3", 40000))


@pytest.mark.parametrize("data", [
    V2_SIGNATURE[:7] + b"X",
    V2_SIGNATURE + b"\x11\x11\x00\x0c" + bytes(12),          # version 1
    V2_SIGNATURE + b"\x22\x11\x00\x0c" + bytes(12),          # command 2
    V2_SIGNATURE + b"\x21\x41\x00\x0c" + bytes(12),          # family 4
    V2_SIGNATURE + b"\x21\x13\x00\x0c" + bytes(12),          # protocol 3
    V2_SIGNATURE + b"\x21\x11\x00\x08" + bytes(8),           # too short for IPv4
    V2_SIGNATURE + b"\x21\x21\x00\x0c" + bytes(12),          # too short for IPv6
    V2_SIGNATURE + b"\x21\x11" + (V2_MAX_LENGTH + 1).to_bytes(2, "big"),   # oversized
    V2_SIGNATURE + b"\x21\x11\xff\xff",
])
def test_version_2_garbage_is_refused_as_soon_as_it_shows(data):
    with pytest.raises(HeaderError):
        parse(data)


def test_proxy_from_takes_cidrs_and_addresses():
    assert [str(n) for n in parse_networks("10.0.0.0/8, 192.0.2.7,2001:db8::/32")] == \
        ["10.0.0.0/8", "192.0.2.7/32", "2001:db8::/32"]
    for bad in ("", "10.0.0.0/33", "balancer.example"):
        with pytest.raises(ValueError):
            parse_networks(bad)


# ------------------------------------------------------------------- a balancer
class Balancer:
    """A TCP forwarder playing HAProxy: each connection it accepts is relayed to the
    room, after the header ``header()`` makes for it; or, when ``header`` is a map,
    after the header for the client's own address (``connect(..., source=...)``, a
    loopback address of its own), so that a connection the test did not make (another
    worker's, a retry) takes no client's header. One it has no header for is closed.

    Clients that need headers of their own use the map: ``header()`` is for a header
    that is every connection's alike (or one the test changes between connections),
    never for the next of a sequence, which a stray connection would shift."""

    def __init__(self, room_port: int, header: Callable[[], bytes] | Mapping[str, bytes]):
        self.room_port = room_port
        self.header = header
        self.streams: set[asyncio.StreamWriter] = set()
        self.keys: dict[str, asyncssh.SSHKey] = {}
        self.server: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> Balancer:
        self.server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        if isinstance(self.header, Mapping):
            header = self.header.get(writer.get_extra_info("peername")[0])
        else:
            header = self.header()
        if header is None:
            writer.close()
            return
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.room_port)
        except OSError:
            writer.close()
            return
        self.streams |= {writer, up_w}
        up_w.write(header)                  # at once, before any of the client's bytes

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
                # One side is done: say so to the other and go on reading it (HAProxy
                # half-closes too; closing here reset the client with its bytes unread).
                dst.write_eof()
            except (ConnectionError, OSError, RuntimeError):
                dst.close()

        await asyncio.gather(pipe(reader, up_w), pipe(up_r, writer))
        writer.close()
        up_w.close()
        self.streams -= {writer, up_w}

    async def connect(self, name: str, guest: bool = False,
                      source: str | None = None) -> asyncssh.SSHClientConnection:
        """``name`` logs in through the balancer, from ``source`` if given (a loopback
        address: the key of its header when ``header`` is a map)."""
        local = {"local_addr": (source, 0)} if source else {}
        if guest:
            return await asyncssh.connect(
                "127.0.0.1", self.port, username=name, known_hosts=None, client_keys=None,
                agent_path=None, password="x", preferred_auth="keyboard-interactive",
                **local)
        if name not in self.keys:
            self.keys[name] = asyncssh.generate_private_key("ssh-ed25519")
        return await asyncssh.connect(
            "127.0.0.1", self.port, username=name, known_hosts=None,
            client_keys=[self.keys[name]], agent_path=None, preferred_auth="publickey",
            **local)

    async def close(self) -> None:
        assert self.server is not None
        self.server.close()
        for writer in list(self.streams):
            writer.close()
        await asyncio.sleep(0.01)


async def proxied_room(tmp_path, limits: Limits | None = None, **config) -> LammaServer:
    return await start_room(tmp_path, proxy_protocol=True,
                            limits=limits or Limits(proxy_header_timeout=1.0), **config)


async def where(srv: LammaServer, name: str) -> str:
    """The address the room shows an operator for ``name`` (``/who``): the row that
    begins with the name (not one that has it anywhere: a key's fingerprint in another
    row, random base64, sometimes held "cy")."""
    who = srv.room.moderation.admin("who")
    rows = who.split(": ", 1)[1].split("; ")            # after "N here: "
    part = next(r for r in rows if r.startswith(f"{name} ("))
    return part.split(", ")[1].split(")")[0]


async def closed_within(reader: asyncio.StreamReader, timeout: float) -> float:
    """Seconds until the room closes the connection (reading nothing but EOF or a
    reset); fails if it is still open after ``timeout``."""
    started = time.monotonic()
    try:
        data = await asyncio.wait_for(reader.read(4096), timeout)
    except ConnectionError:
        data = b""
    assert data == b"", data                # not even the SSH banner
    return time.monotonic() - started


async def stranger(bal: Balancer) -> None:
    """A connection to the balancer that is no test client's (another worker's probe
    of a port it was told was free, say), from 127.0.0.1: a balancer whose headers are
    keyed by the client's address closes it unanswered."""
    reader, writer = await asyncio.open_connection("127.0.0.1", bal.port)
    try:
        data = await asyncio.wait_for(reader.read(4096), 5)
    except ConnectionError:
        data = b""
    writer.close()
    assert data == b"", data


# ------------------------------------------------------------------- the room
async def test_the_room_sees_the_address_in_the_header_v1_and_v2(tmp_path):
    srv = await proxied_room(tmp_path)
    # Each client's header is its own (keyed by the loopback address it connects
    # from), not the next in the order of accepts: a stray connection to the balancer
    # under load once took ana's or ben's and the next client got the wrong address.
    clients = {"ana": ("127.0.0.11", v1("10.1.2.3", 51000)),
               "ben": ("127.0.0.12", v2("10.1.2.4", 51000)),
               "cy": ("127.0.0.13", v2("2001:db8:5::9", 51000))}
    bal = await Balancer(srv.port, {local: header
                                    for local, header in clients.values()}).start()
    try:
        conns = []
        for name, (local, _) in clients.items():
            await stranger(bal)             # takes no one's header
            conn = await bal.connect(name, source=local)
            proc = await conn.create_process("play", encoding=None)
            proc.stdin.write(b'{"op":"tables"}\n')
            assert b'"tables"' in await reply_line(proc.stdout)
            conns.append(conn)
        assert await where(srv, "ana") == "10.1.2.3"
        assert await where(srv, "ben") == "10.1.2.4"
        assert await where(srv, "cy") == "2001:db8:5::/64"     # an IPv6 client's /64
        assert set(srv.room.book.addresses) >= {"10.1.2.3", "10.1.2.4", "2001:db8:5::/64"}
        assert "127.0.0.1" not in srv.room.book.addresses            # not the balancer's
        for conn in conns:
            conn.close()
    finally:
        await bal.close()
        await stop_room(srv)


async def test_an_address_ban_holds_the_headers_address_not_the_balancers(tmp_path):
    srv = await proxied_room(tmp_path)
    source = {"v": "10.1.2.3"}
    banned = await Balancer(srv.port, lambda: v1(source["v"])).start()
    other = await Balancer(srv.port, lambda: v2("10.1.2.4")).start()
    try:
        assert "banned" in srv.room.moderation.admin("ban addr:10.1.2.3 5m spam").lower()
        with pytest.raises((asyncssh.DisconnectError, ConnectionError)) as err:
            await banned.connect("eve")
        assert "banned" in str(err.value)
        (await other.connect("ana")).close()          # the next address: admitted
        source["v"] = "10.1.2.5"
        (await banned.connect("eve")).close()         # the same balancer, another client
    finally:
        await banned.close()
        await other.close()
        await stop_room(srv)


async def test_per_address_limits_count_each_client_behind_the_balancer(tmp_path):
    """What HAProxy showed before the option: the 21st connection in a row refused
    for everyone. Now each header address has its own allowance (here of guests)."""
    srv = await proxied_room(tmp_path, Limits(proxy_header_timeout=1.0,
                                              guests_per_address=3, connects_burst=50))
    # Each client connects from a loopback address of its own and the balancer sends
    # that address's header (not the next in the order of accepts, which a stray or
    # retried connection would shift from one client to the next).
    clients = {f"127.0.7.{i}": f"10.7.0.{i}" for i in range(1, 5)}
    bal = await Balancer(srv.port, {local: v2(addr)
                                    for local, addr in clients.items()}).start()
    try:
        held, refused = [], 0
        for i in range(16):                   # 4 clients, 4 connections each
            local = f"127.0.7.{i // 4 + 1}"
            if i % 4 == 0:
                await stranger(bal)         # takes no one's header
            try:
                held.append(await bal.connect(f"p{i}", guest=True, source=local))
            except (asyncssh.DisconnectError, ConnectionError) as e:
                assert "Too many connections" in str(e)
                refused += 1
        assert len(held) == 12 and refused == 4       # 3 each: the 4th of each refused
        assert {srv.room.book.addresses[c].guests for c in clients.values()} == {3}
        for conn in held:
            conn.close()
    finally:
        await bal.close()
        await stop_room(srv)


async def test_allow_list_from_matches_the_headers_address(tmp_path):
    srv = await proxied_room(tmp_path, allow_list=True, guests=False)
    source = {"v": "10.1.2.4"}
    bal = await Balancer(srv.port, lambda: v2(source["v"])).start()
    try:
        key = asyncssh.generate_private_key("ssh-ed25519")
        bal.keys["ana"] = key
        (srv.room.config.keys / "authorized_keys").write_text(
            'from="10.1.2.3" ' + key.export_public_key().decode())
        with pytest.raises(asyncssh.PermissionDenied):
            await bal.connect("ana")                   # the header says 10.1.2.4
        source["v"] = "10.1.2.3"
        (await bal.connect("ana")).close()
    finally:
        await bal.close()
        await stop_room(srv)


async def test_local_and_unknown_headers_keep_the_real_peer(tmp_path):
    """A health check (v2 LOCAL, v1 UNKNOWN) is the balancer itself."""
    srv = await proxied_room(tmp_path)
    # Each check's header is keyed by the loopback address it connects from (the
    # order of accepts is shifted by a stray connection): the peer the room keeps is
    # still the balancer's own, 127.0.0.1, whatever address the check came from.
    checks = {"hc1": ("127.0.0.21", v2(None, command=0)),
              "hc2": ("127.0.0.22", b"PROXY UNKNOWN\r\n")}
    bal = await Balancer(srv.port, {local: header
                                    for local, header in checks.values()}).start()
    try:
        for name, (local, _) in checks.items():
            await stranger(bal)             # takes no one's header
            conn = await bal.connect(name, source=local)
            proc = await conn.create_process("play", encoding=None)
            proc.stdin.write(b'{"op":"tables"}\n')
            assert b'"tables"' in await reply_line(proc.stdout)
            assert await where(srv, name) == "127.0.0.1"
            conn.close()
    finally:
        await bal.close()
        await stop_room(srv)


@pytest.mark.parametrize("what,data", [
    ("no header", b"SSH-2.0-OpenSSH_9.6\r\n"),
    ("garbage", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"),
    ("a malformed v1 line", b"PROXY TCP4 10.1.2.3 127.0.0.1 99999 22\r\nSSH-2.0-x\r\n"),
    ("an oversized v1 line", b"PROXY TCP4 " + b"1" * 200),
    ("an oversized v2 block", V2_SIGNATURE + b"\x21\x11\xff\xff" + bytes(4000)),
    ("a v2 block of another version", V2_SIGNATURE + b"\x31\x11\x00\x0c" + bytes(12)),
])
async def test_a_connection_without_a_valid_header_is_closed_at_once(tmp_path, what, data):
    srv = await proxied_room(tmp_path, Limits(proxy_header_timeout=5.0))
    bal = await Balancer(srv.port, lambda: v1("10.1.2.3")).start()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
        writer.write(data)
        assert await closed_within(reader, 2.0) < 1.0, what    # not the 5 s timeout
        writer.close()
        assert srv.room.book.addresses.get("127.0.0.1") is None      # never reached the room
        (await bal.connect("ana")).close()                  # the others are served
    finally:
        await bal.close()
        await stop_room(srv)


async def test_a_silent_or_slow_connection_is_closed_after_the_timeout(tmp_path):
    srv = await proxied_room(tmp_path, Limits(proxy_header_timeout=1.0))
    bal = await Balancer(srv.port, lambda: v2("10.1.2.3")).start()
    try:
        opened = time.monotonic()
        silent = await asyncio.open_connection("127.0.0.1", srv.port)
        slow = await asyncio.open_connection("127.0.0.1", srv.port)
        slow[1].write(v1("10.6.6.6")[:20])          # a header that never ends
        # Meanwhile a proxied client logs in and plays.
        conn = await bal.connect("ana")
        proc = await conn.create_process("play", encoding=None)
        proc.stdin.write(b'{"op":"tables"}\n')
        assert b'"tables"' in await reply_line(proc.stdout)
        since = time.monotonic() - opened         # the login took this long
        waited = await asyncio.gather(closed_within(silent[0], 3.0),
                                      closed_within(slow[0], 3.0))
        lived = [since + w for w in waited]
        assert all(0.95 < t < 2.5 for t in lived), lived
        assert "10.6.6.6" not in srv.room.book.addresses
        proc.stdin.write(b'{"op":"tables"}\n')                 # still served
        assert b'"tables"' in await reply_line(proc.stdout)
        conn.close()
        for _, w in (silent, slow):
            w.close()
    finally:
        await bal.close()
        await stop_room(srv)


async def test_the_bytes_after_the_header_reach_ssh_whole(tmp_path):
    """Header and the client's SSH banner in one segment, or the header a byte at a
    time: the room reads exactly the header and answers SSH."""
    srv = await proxied_room(tmp_path)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
        writer.write(v2("10.1.2.3") + b"SSH-2.0-Probe_1.0\r\n")
        assert (await asyncio.wait_for(reader.readline(), 5)).startswith(b"SSH-2.0-")
        writer.close()
        reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
        for byte in v1("10.1.2.4"):
            writer.write(bytes([byte]))
            await writer.drain()
            await asyncio.sleep(0.002)
        assert (await asyncio.wait_for(reader.readline(), 5)).startswith(b"SSH-2.0-")
        writer.close()
    finally:
        await stop_room(srv)


async def test_at_most_so_many_connections_wait_for_their_header(tmp_path):
    srv = await proxied_room(tmp_path, Limits(proxy_header_timeout=1.5, proxy_pending=2))
    bal = await Balancer(srv.port, lambda: v1("10.1.2.3")).start()
    try:
        waiting = [await asyncio.open_connection("127.0.0.1", srv.port) for _ in range(2)]
        await asyncio.sleep(0.1)
        third = await asyncio.open_connection("127.0.0.1", srv.port)
        assert await closed_within(third[0], 1.2) < 1.0      # not its 1.5 s
        for r, _ in waiting:
            await closed_within(r, 3.0)             # they time out, freeing their places
        (await bal.connect("ana")).close()
        for _, w in [*waiting, third]:
            w.close()
    finally:
        await bal.close()
        await stop_room(srv)


async def test_without_proxy_from_one_address_cannot_take_every_waiting_place(tmp_path):
    """Issue 30: 512 connections that never sent a header, from one address, took every
    place from the balancer's. Without --proxy-from waiting ones are capped per address
    too; with it, only balancers reach the port, and the cap is theirs alone."""
    limits = Limits(proxy_header_timeout=3.0, proxy_pending_per_address=3)
    srv = await proxied_room(tmp_path / "a", limits)
    bal = await Balancer(srv.port, lambda: v1("10.1.2.3")).start()
    try:
        silent = [await asyncio.open_connection("127.0.0.1", srv.port,
                                                local_addr=("127.0.0.5", 0))
                  for _ in range(3)]
        await asyncio.sleep(0.1)
        fourth = await asyncio.open_connection("127.0.0.1", srv.port,
                                               local_addr=("127.0.0.5", 0))
        assert await closed_within(fourth[0], 2.0) < 1.0        # not its 3 s
        (await bal.connect("ana")).close()                      # the balancer's get in
        for _, w in [*silent, fourth]:
            w.close()
    finally:
        await bal.close()
        await stop_room(srv)
    srv = await proxied_room(tmp_path / "b", limits, proxy_from=parse_networks("127.0.0.0/8"))
    try:
        waiting = [await asyncio.open_connection("127.0.0.1", srv.port,
                                                 local_addr=("127.0.0.5", 0))
                   for _ in range(4)]
        with pytest.raises(TimeoutError):                       # all four wait
            await asyncio.wait_for(waiting[3][0].read(1), 0.5)
        for _, w in waiting:
            w.close()
    finally:
        await stop_room(srv)


async def test_proxy_from_closes_connections_from_anywhere_else(tmp_path):
    srv = await proxied_room(tmp_path / "a", proxy_from=parse_networks("10.0.0.0/8"))
    bal = await Balancer(srv.port, lambda: v1("10.1.2.3")).start()
    try:
        started = time.monotonic()
        with pytest.raises(REFUSED):
            await bal.connect("ana")      # a valid header, from 127.0.0.1: no
        assert time.monotonic() - started < 1.0
    finally:
        await bal.close()
        await stop_room(srv)
    srv = await proxied_room(tmp_path / "b", proxy_from=parse_networks("127.0.0.0/8,::1"))
    bal = await Balancer(srv.port, lambda: v1("10.1.2.3")).start()
    try:
        conn = await bal.connect("ana")
        proc = await conn.create_process("play", encoding=None)
        proc.stdin.write(b'{"op":"tables"}\n')
        assert b'"tables"' in await reply_line(proc.stdout)
        assert await where(srv, "ana") == "10.1.2.3"
        conn.close()
    finally:
        await bal.close()
        await stop_room(srv)


async def test_reuse_port_with_proxy_protocol(tmp_path):
    """Two rooms on one port (SO_REUSEPORT), both reading PROXY headers."""
    if not hasattr(socket, "SO_REUSEPORT"):
        pytest.skip("no SO_REUSEPORT here")
    from server.service import RoomConfig
    from server.ssh import start_server
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    rooms = []
    for name in ("east", "west"):
        cfg = RoomConfig(data=tmp_path / name, keys=tmp_path / "keys", bot_pause=3600.0,
                         trick_pause=0.0, reuse_port=True, proxy_protocol=True)
        server, room, _ = await start_server(cfg, "127.0.0.1", port)
        rooms.append(LammaServer(server, room, port))
    # Client i connects from 127.0.3.(10+i) and is relayed as 10.3.0.i, its own
    # header whatever else connects to the balancer meanwhile.
    bal = await Balancer(port, {f"127.0.3.{10 + i}": v2(f"10.3.0.{i}")
                                for i in range(16)}).start()
    try:
        await stranger(bal)                 # takes no one's header
        conns = [await bal.connect(f"p{i}", source=f"127.0.3.{10 + i}")
                 for i in range(16)]
        seen = [set(r.room.book.addresses) for r in rooms]
        assert all(seen), seen                  # both processes answered some
        assert seen[0] | seen[1] == {f"10.3.0.{i}" for i in range(16)}
        for conn in conns:
            conn.close()
    finally:
        await bal.close()
        for r in rooms:
            await stop_room(r)


async def test_without_the_option_a_header_is_not_believed(room):
    """Normal mode is as before: the peer is the socket's, and a PROXY line in front
    of SSH is not a header the room reads."""
    srv = room
    assert srv.room.config.proxy_protocol is False
    reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
    # The banner comes at once (with the option nothing is said before the header) ...
    assert (await asyncio.wait_for(reader.readline(), 5)).startswith(b"SSH-2.0-")
    assert "127.0.0.1" in srv.room.book.addresses            # ... to the socket's peer
    writer.write(v1("10.1.2.3") + b"SSH-2.0-Probe_1.0\r\n")
    await asyncio.sleep(0.3)
    assert "10.1.2.3" not in srv.room.book.addresses
    writer.close()
    conn = await srv.connect("ana")
    assert "127.0.0.1" in srv.room.book.addresses
    conn.close()


async def test_a_proxied_session_leaves_no_cycles(tmp_path):
    """The reader of the header is gone once SSH has the connection, and the session
    ends as one without the option does (issue 12: nothing left for the collector)."""
    from conftest import JsonClient
    from test_session_garbage import assert_clean, one_session

    srv = await proxied_room(tmp_path)
    bal = await Balancer(srv.port, lambda: v2("10.1.2.3")).start()

    async def start() -> tuple[JsonClient, None]:
        conn = await bal.connect("jay")
        client = JsonClient(conn, await conn.create_process("play", encoding=None))
        client.send({"op": "create", "game": "estimation", "computer": [1, 2, 3]})
        await client.expect("view")
        transport = vars(srv.room.online["jay"].process.get_extra_info("connection"))[
            "_transport"]
        assert type(transport.get_protocol()).__name__ == "QuietConnection"   # the SSH connection itself
        return client, None
    try:
        assert_clean(await one_session(srv, start))
    finally:
        await bal.close()
        await stop_room(srv)


async def test_lamma_serve_with_proxy_protocol(tmp_path):
    """The options as an operator gives them, to a real ``lamma serve`` process."""
    from procs import stop_process, wait_line
    from test_operations import free_port, serve, started

    from server.admin import run_admin
    from server.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["serve", "--proxy-from", "10.0.0.0/8"])       # needs --proxy-protocol
    assert stop.value.code == 2
    port, data = free_port(), tmp_path / "data"
    proc = await serve(port, data, tmp_path / "keys", "--proxy-protocol",
                       "--proxy-from", "127.0.0.0/8", "--reuse-port")
    source = {"v": "10.1.2.3"}
    bal = Balancer(port, lambda: v1(source["v"]))
    try:
        await bal.start()
        printed: list[bytes] = []
        await started(proc, printed)
        assert proc.stdout is not None
        said = (await wait_line(proc.stdout, "PROXY protocol", 5, printed)).decode()
        assert "127.0.0.0/8 only" in said, said
        loop = asyncio.get_running_loop()
        assert await loop.run_in_executor(
            None, run_admin, data, ["ban", "addr:10.1.2.3", "5m"]) == 0
        with pytest.raises((asyncssh.DisconnectError, ConnectionError)) as err:
            await bal.connect("eve")
        assert "banned" in str(err.value)
        source["v"] = "10.1.2.4"
        (await bal.connect("ana")).close()
    finally:
        if bal.server is not None:
            await bal.close()
        await stop_process(proc)
