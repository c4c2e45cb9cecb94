"""Names that cannot impersonate, and stored text cleaned where it is drawn (issue 11).

The rules (engine/room/text.py): one script per name; no invisible code point; at most
2 marks stacked on one letter and 4 script-less accents in a name; nothing that looks
like a reserved word or a computer player's name; and a new name whose skeleton (Unicode
TR39, case-folded) is that of an owned name or of someone online is refused. Names and
seats read back from the database are cleaned before any screen or JSON client gets
them. The store's part runs on SQLite and, where one can be started, on a throwaway
PostgreSQL (tests/test_store_postgres.py's fixtures).
"""

from __future__ import annotations

import asyncio
import json
import unicodedata

import asyncssh
import pytest
from conftest import LammaServer, reply_line, start_room, stop_room

import server.store.database as store_module
from engine import new_match
from engine.room.catalogue import display_name
from engine.room.seats import Seat
from engine.room.text import (
    DEFAULT_IGNORABLE,
    check_name,
    clean_name,
    is_default_ignorable,
    reserved_lookalike,
    skeleton,
)
from server.store import MIGRATIONS, Store

# ---- what the attacker tried ------------------------------------------------------------

ATTACKS = {
    "\u0430lice": "mixes Cyrillic and Latin",            # Cyrillic а next to alice
    "alice\u17b4": "invisible characters (U+17B4",        # Khmer vowel inherent aq
    "\u1160": "invisible characters (U+1160",             # Hangul jungseong filler
    "r\u043e\u043et": "mixes Cyrillic and Latin",          # Cyrillic о's past the list
    "B\u043et-1": "mixes Cyrillic and Latin",              # a computer player, nearly
    "Z" + "\u0301" * 15: "At most 2 combining marks on one letter",
}


@pytest.mark.parametrize("name", list(ATTACKS))
def test_the_attackers_names_are_refused_with_a_reason(name):
    ok, reason = check_name(name)
    assert ok is None and ATTACKS[name] in reason


@pytest.mark.parametrize("name, like", [
    ("r00t", "root"), ("\u0251dmin", "admin"),            # Latin alpha ɑ
    ("\u0412\u041e\u0422-1", "Bot-1"),              # all Cyrillic: ВОТ-1
    ("\u0392\u039f\u03a4", "bot"),                  # all Greek: ΒΟΤ
    ("B0T-12", "Bot-1"), ("bot_l", "Bot-1"),
    ("\u0455\u0443\u0455t\u0435m", None),           # mixed: refused for that instead
])
def test_single_script_lookalikes_of_reserved_names_are_refused(name, like):
    ok, reason = check_name(name)
    assert ok is None
    if like is None:
        assert "one script" in reason
    else:
        assert reserved_lookalike(name) == like
        assert f"looks like '{like}'" in reason


def test_reserved_names_themselves_say_reserved():
    for name in ("admin", "ROOT", "Bot-1", "bot3"):
        ok, reason = check_name(name)
        assert ok is None and "is reserved" in reason


@pytest.mark.parametrize("name", [
    "سارة", "مُحَمَّد",                                   # Arabic, with its vowel marks
    "Ελένη", "Νίκος",                                     # Greek
    "प्रियंका", "लक्ष्मीनारायण",                          # Devanagari with its signs
    "陳大文", "山田たろう", "カタカナ", "김민준",           # CJK: Han, Japanese, Hangul
    "ศักดิ์สิทธิ์",                                        # Thai, many marks of its own
    "José", "Zoë", "Łukasz", "Nguyễn", "François", "Ørjan",   # Latin with accents
    "ana_99", "x-1", "q\u0301\u0302",                     # 2 marks on one letter
    "q\u0301x\u0301q\u0301x\u0301",                       # 4 accents in all
    "сергей", "Иван",                                     # Cyrillic alone is fine
])
def test_names_of_one_script_stay_valid(name):
    ok, reason = check_name(name)
    assert ok == unicodedata.normalize("NFC", name), reason


@pytest.mark.parametrize("name, reason", [
    ("q\u0301\u0302\u0303", "At most 2 combining marks on one letter"),
    ("q\u0301x\u0301q\u0301x\u0301q\u0301", "At most 4 combining accents"),
    ("\u0301a", "must follow a letter"),
    ("_\u0301", "must follow a letter"),
    ("Ali山田", "mixes Han and Latin"),
    ("ελλάδαrules", "mixes Greek and Latin"),
    ("سارةsara", "mixes Arabic and Latin"),
    ("a\u0661", "mixes Arabic and Latin"),                # an Arabic-Indic digit
])
def test_marks_and_mixed_scripts_are_refused_with_reasons(name, reason):
    ok, why = check_name(name)
    assert ok is None and reason in why, why


# Each range of Unicode's Default_Ignorable_Code_Point, at both ends.
IGNORABLE = sorted({cp for lo, hi in DEFAULT_IGNORABLE for cp in (lo, hi)})


@pytest.mark.parametrize("cp", IGNORABLE, ids=[f"U+{cp:04X}" for cp in IGNORABLE])
def test_every_default_ignorable_code_point_is_refused(cp):
    assert is_default_ignorable(chr(cp))
    for name in ("ab" + chr(cp) + "c", chr(cp) + "ab", "ab" + chr(cp)):
        ok, reason = check_name(name)
        assert ok is None and f"invisible characters (U+{cp:04X}" in reason


def test_the_ignorable_table_is_exact_around_its_ranges():
    for cp in (0x00AC, 0x00AE, 0x115E, 0x1161, 0x17B3, 0x17B6, 0x200A, 0x2010, 0x3163,
               0x3165, 0xFDFF, 0xFE10, 0x1D172, 0x1D17B, 0xE1000):
        assert not is_default_ignorable(chr(cp)), hex(cp)


def test_skeletons_fold_case_compatibility_forms_and_confusables():
    alike = [("alice", "ALICE"), ("alice", "Alice"), ("alice", "a1ice"),
             ("alice", "\u0430lice"), ("cop", "\u0441\u043e\u0440"),      # Cyrillic сор
             ("bot", "\u0392\u039f\u03a4"), ("root", "r00t"),
             ("alice", "\uff41lice"), ("alice", "\U0001d41alice"),      # fullwidth, bold a
             ("山田", "\u2f2d\u2f65")]                                   # Kangxi radicals
    for a, b in alike:
        assert skeleton(a) == skeleton(b), (a, b)
    for a, b in [("alice", "alike"), ("ali", "all"), ("sara", "سارة"), ("bob", "bib")]:
        assert skeleton(a) != skeleton(b), (a, b)


# ---- drawing what the database holds ----------------------------------------------------

OSC52 = "evil\x1b]52;c;SGVsbG8gd29ybGQ=\x07name"      # a clipboard write
CLEAR = "\x1b[2J"                                     # clears the screen
C1 = "x\x9b2Jy\x85"                                   # C1 CSI and NEL


def hostile_chars(text: str) -> list[str]:
    """What could act on a terminal: C0, DEL, C1, ESC, BEL, bidi and other format marks."""
    return [ch for ch in text if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")]


def strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in strings(k) + strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def test_clean_name_and_display_name():
    for raw in (OSC52, CLEAR, C1, "a\u202eb", "a\u200bb", "a" + "\u0301" * 9, "x\ny"):
        for shown in (clean_name(raw), display_name(raw, False), display_name(raw, True)):
            assert not hostile_chars(shown) and len(shown) <= 17, repr(shown)
    assert clean_name(OSC52) == "evil]52;c;SGVsbG"
    assert clean_name(CLEAR) == "[2J" and clean_name("\x1b\x07") == "?"
    assert clean_name("a" + "\u0301" * 9) == "a\u0301\u0301"
    for good in ("alice", "سارة", "लक्ष्मीनारायण", "ศักดิ์สิทธิ์", "Nguyễn"):
        assert clean_name(good) == good and display_name(good, True) == good + "°"
    assert clean_name(None) == "?" and clean_name(42) == "?"


def test_seat_label_and_public_are_cleaned():
    seat = Seat.from_settings({"kind": "human", "name": OSC52, "ident": "key:x:y",
                               "guest": True})
    assert seat.name == OSC52                      # the identity is left as it was
    assert not hostile_chars(seat.label) and seat.label.endswith("°")
    assert not any(hostile_chars(s) for s in strings(seat.public()))
    assert seat.public()["name"] == clean_name(OSC52)
    bot = Seat.from_settings({"kind": "bot", "name": CLEAR + "Bot"})
    assert bot.label == "[2JBot" and bot.public()["name"] == "[2JBot"
    assert Seat().public()["name"] is None and Seat().label == "(empty)"


# ---- the store: SQLite and PostgreSQL ----------------------------------------------------

@pytest.fixture(params=["sqlite", "postgres"])
def opener(request, tmp_path):
    """opener() -> a new Store on one database (SQLite, or a fresh PostgreSQL one)."""
    target = tmp_path / "lamma.db" if request.param == "sqlite" \
        else request.getfixturevalue("pg_url")
    opened: list[Store] = []

    def open_():
        opened.append(Store(target))
        return opened[-1]

    yield open_
    for s in opened:
        try:
            s.close()
        except Exception:
            pass


def test_bind_refuses_a_name_that_looks_like_an_owned_one(opener):
    s = opener()
    assert s.bind("alice", "fp-a") and s.bind("cop", "fp-c")
    assert s.lookalike_of("a1ice") == "alice" and not s.bind("a1ice", "fp-b")
    assert s.lookalike_of("\uff41lice") == "alice" and not s.bind("\uff41lice", "fp-b")
    assert s.lookalike_of("\u0441\u043e\u0440") == "cop" and not s.bind("\u0441\u043e\u0440", "x")
    assert not s.bind("a1ice", "fp-a")                 # not even by alice's own key
    assert s.owner("a1ice") is None and s.may_use("a1ice", "fp-b")   # exact names only
    # The very same name: owner()'s business, as before.
    assert s.lookalike_of("ALICE") is None and not s.bind("ALICE", "fp-b")
    assert s.bind("Alice", "fp-a") and s.owner("ALICE") == "fp-a"
    assert s.lookalike_of("bob") is None and s.bind("bob", "fp-b")
    assert s.names_of("fp-b") == 1


def test_migration_backfills_skeletons_and_old_lookalikes_keep_working(opener, monkeypatch):
    with monkeypatch.context() as mp:
        mp.setattr(store_module, "MIGRATIONS", MIGRATIONS[:5])
        old = opener()
        assert old.version() == 5
        assert old.bind("alice", "fp-a") and old.bind("a1ice", "fp-b")   # no rule then
        old.close()
    s = opener()
    assert s.version() == len(MIGRATIONS)
    rows = dict(s._x("SELECT name, skeleton FROM players").fetchall())
    assert rows == {"alice": "alice", "a1ice": "alice"}
    if s.kind == "sqlite":
        indexes = [r[1] for r in s._x("PRAGMA index_list(players)")]
    else:
        indexes = [r[0] for r in s._x("SELECT indexname FROM pg_indexes "
                                      "WHERE tablename = 'players'")]
    assert "players_skeleton" in indexes
    # Both old names keep their keys; a new look-alike of either is refused.
    assert s.owner("alice") == "fp-a" and s.owner("a1ice") == "fp-b"
    assert s.bind("a1ice", "fp-b") and s.bind("alice", "fp-a")
    assert s.lookalike_of("a1ice") == "alice" and s.lookalike_of("alice") == "a1ice"
    assert not s.bind("\uff41lice", "fp-c") and s.lookalike_of("\uff41lice") == "alice"
    # Migrating twice (a database put back to version 5 by hand) changes nothing.
    s._x("UPDATE schema_version SET version = 5")
    assert opener().version() == len(MIGRATIONS)


def plant(store: Store) -> int:
    """Hostile names where no client could have put them: players and a finished match."""
    for i, name in enumerate((OSC52, CLEAR, C1)):
        store._x("INSERT INTO players (name_key, name, fingerprint, created, last_seen, "
                 "level_points) VALUES (?, ?, ?, 0, 0, ?)", (name.casefold(), name, f"f{i}",
                                                            1000 - i))
    m = new_match("estimation", 13, seed=4)
    mid = store.create_match("9", {**m.to_dict(), "log": []},
                             [OSC52, "guest:" + CLEAR, None, C1], {"timer": 0})
    store.abandon(mid, 1)
    return mid


def test_the_stores_readers_return_cleaned_names(opener):
    s = opener()
    plant(s)
    board = s.leaderboard()
    assert [r["name"] for r in board[:3]] == [clean_name(OSC52), clean_name(CLEAR),
                                              clean_name(C1)]
    for name in (OSC52, CLEAR, C1):
        prof = s.profile(name)
        assert prof is not None and prof["name"] == clean_name(name)
    [row] = s.finished_matches()
    assert row["seats"] == [clean_name(OSC52), "guest:" + clean_name(CLEAR), None,
                            clean_name(C1)]
    for value in (board, [s.profile(n) for n in (OSC52, CLEAR, C1)], row):
        assert not any(hostile_chars(x) for x in strings(value))


# ---- over real SSH ------------------------------------------------------------------------

async def start(tmp_path) -> LammaServer:
    return await start_room(tmp_path)


stop = stop_room


class Told(asyncssh.SSHClient):
    """A keyless client that keeps what the server says in keyboard-interactive."""

    def __init__(self) -> None:
        self.told: list[str] = []
        self.tries = 0

    def kbdint_auth_requested(self) -> str | None:
        self.tries += 1
        return "" if self.tries <= 2 else None     # asking on and on would never end

    def kbdint_challenge_received(self, name, instructions, lang, prompts):
        self.told.append(instructions)
        return [""] * len(prompts)


async def guest_refusal(srv: LammaServer, name: str) -> str:
    """Why the room will not let a guest in under ``name`` (it must not)."""
    client = Told()
    with pytest.raises(asyncssh.PermissionDenied):
        await asyncssh.connect("127.0.0.1", srv.port, username=name, known_hosts=None,
                               client_factory=lambda: client, client_keys=None,
                               agent_path=None, preferred_auth="keyboard-interactive")
    assert client.told, "no reason was given"
    return client.told[0]


async def guest(srv: LammaServer, name: str):
    conn = await srv.connect(name, keyless=True)
    proc = await conn.create_process("play", encoding=None)
    proc.stdin.write(b'{"op":"tables"}\n')
    assert b'"tables"' in await reply_line(proc.stdout)
    return conn


async def test_a_key_cannot_bind_a_lookalike_of_an_owned_name(room):
    srv = room
    alice = await srv.json_client("alice")
    alice.send({"op": "tables"})
    await alice.expect("tables")
    await alice.close()
    # Cyrillic а: the name itself is refused, before any key is looked at.
    with pytest.raises(asyncssh.PermissionDenied):
        await srv.connect("\u0430lice", key=srv.key("mallory"))
    assert "mixes Cyrillic and Latin" in await guest_refusal(srv, "\u0430lice")
    # Of one script, but alike: the key is refused at authentication, with the reason.
    # (Fullwidth or bold letters arrive as plain ones: SSH prepares user names with NFKC.)
    for name in ("a1ice", "\u0251lice"):                  # digit one, Latin alpha
        reply = await srv.first_reply(name, key=srv.key("mallory"))
        assert reply["type"] == "error", reply
        reason = reply["message"]
        assert f"'{name}' looks like 'alice'" in reason, reason
        assert srv.room.identity.owner(name) is None
    assert srv.room.identity.names_of(srv.key("mallory").get_fingerprint("sha256")) == 0
    # Alice's key still gets in under her own name, in any case.
    again = await srv.json_client("ALICE", key=srv.key("alice"))
    again.send({"op": "tables"})
    await again.expect("tables")
    await again.close()


async def test_a_guest_cannot_pose_as_a_computer_player_or_an_owned_name(room):
    srv = room
    assert "mixes Cyrillic and Latin" in await guest_refusal(srv, "B\u043et-1")
    assert "computer player's name" in await guest_refusal(srv, "\u0412\u041e\u0422-1")
    assert "looks like 'root'" in await guest_refusal(srv, "r00t")
    assert "is reserved" in await guest_refusal(srv, "Bot-1")
    cop = await srv.json_client("cop")
    cop.send({"op": "tables"})
    await cop.expect("tables")
    await cop.close()
    reason = await guest_refusal(srv, "\u0441\u043e\u0440")               # Cyrillic сор
    assert "looks like 'cop'" in reason and "belongs to a key" in reason


@pytest.mark.parametrize("name, reason", [
    ("alice\u17b4", "invisible characters (U+17B4"),
    ("\u1160", "invisible characters (U+1160"),
    ("Z" + "\u0301" * 15, "At most 2 combining marks on one letter"),
])
async def test_invisible_and_stacked_names_are_refused_over_ssh(room, name, reason):
    assert reason in await guest_refusal(room, name)


@pytest.mark.parametrize("name", ["a b", "a.b", "", "x" * 40, "root", "r00t", "Bot-1"])
def test_a_refused_ascii_name_is_told_in_ascii(name):
    """OpenSSH prints a keyboard-interactive text and a disconnect's reason through its
    log, which writes every byte past ASCII as an octal escape: "(1–16 characters)"
    reached the player as "(1\\342\\200\\22316 characters)". The room's own words there
    are plain ASCII (a name the person typed is theirs)."""
    _name, reason = check_name(name)
    assert reason and str(reason).isascii(), str(reason)


async def test_the_general_name_refusal_reaches_an_ssh_client_in_ascii(room):
    told = await guest_refusal(room, "a.b")
    assert "letters of any script" in told and told.isascii(), told


async def test_a_guest_cannot_look_like_a_guest_online_now(room):
    srv = room
    first = await guest(srv, "alice")
    assert srv.room.book.online_lookalike("a1ice") == "alice"
    assert srv.room.book.online_lookalike("alice") is None       # the same name: not this check
    told = await guest_refusal(srv, "a1ice")
    assert "looks like 'alice'" in told and "here now" in told
    assert "looks like 'alice'" in await guest_refusal(srv, "\u0251lice")
    first.close()
    for _ in range(100):
        if not srv.room.online:
            break
        await asyncio.sleep(0.05)
    assert not srv.room.online
    later = await guest(srv, "a1ice")                        # alice is gone: free again
    later.close()


async def test_a_json_client_never_receives_stored_escape_sequences(tmp_path):
    """Hostile names planted in the players table and in a stored match's seats (another
    version, a restored backup, a shared PostgreSQL) reach a JSON client cleaned."""
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    s = Store(data / "lamma.db")
    plant(s)
    m = new_match("estimation", 13, seed=9)
    seats = [{"kind": "human", "name": OSC52, "ident": "key:fp-evil:x", "guest": False,
              "level": "normal", "replaced": None},
             {"kind": "human", "name": C1, "ident": "guest:tok:y", "guest": True,
              "level": "normal", "replaced": None},
             {"kind": "bot", "name": CLEAR + "Bot-3", "ident": None, "guest": False,
              "level": "normal", "replaced": None},
             {"kind": "bot", "name": "Bot-4", "ident": None, "guest": False,
              "level": "normal", "replaced": None}]
    s.create_match("5", {**m.to_dict(), "log": []}, [OSC52, "guest:" + C1, None, None],
                   {"timer": 0, "private": False, "code": None, "seats": seats})
    s.close()
    srv = await start(tmp_path)
    try:
        [table] = srv.registry.tables.values()
        assert table.seats[0].name == OSC52               # who holds it: as stored
        labels = [seat.label for seat in table.seats]
        assert labels == [clean_name(OSC52), clean_name(C1) + "°", "[2JBot-3", "Bot-4"]
        conn = await srv.connect("viewer")
        proc = await conn.create_process("play", encoding=None)
        requests = [{"op": "tables"}, {"op": "leaderboard"},
                    {"op": "profile", "name": CLEAR}, {"op": "profile", "name": C1}]
        replies = []
        for req in requests:
            proc.stdin.write(json.dumps(req).encode() + b"\n")
            while True:             # every line that arrives, up to the reply
                raw = await asyncio.wait_for(proc.stdout.readline(), 5)
                assert raw, "the connection closed"
                assert b"\x1b" not in raw and b"\x07" not in raw
                text = raw.decode("utf-8")
                assert not any("\x80" <= ch <= "\x9f" for ch in text)   # no C1, raw
                reply = json.loads(text)
                assert not any(hostile_chars(x) for x in strings(reply)), reply
                if reply["type"] in (req["op"], "error"):
                    replies.append(reply)
                    break
        conn.close()
        tables, board, prof_clear, prof_c1 = replies
        assert tables["type"] == "tables" and board["type"] == "leaderboard"
        assert prof_clear["profile"]["name"] == "[2J"
        assert prof_c1["profile"]["name"] == clean_name(C1)
        [listed] = tables["tables"]
        assert [x["name"] for x in listed["seats"]] == [clean_name(OSC52), clean_name(C1),
                                                        "[2JBot-3", "Bot-4"]
        assert clean_name(OSC52) in [r["name"] for r in board["leaderboard"]]
    finally:
        await stop(srv)
