"""Four SSH clients with PTYs, rendered with pyte, play a whole calculator-scoring
micro match by key presses."""

from __future__ import annotations

import asyncio
import re
import time

import pytest

from tui.cards import Look

LOOK = Look()


def card_text(code: str) -> str:
    return LOOK.card_str(code)


def keys_for(m, seat: int, screen_sel: int | None) -> tuple[list, dict]:
    """The key presses a player makes for a chosen legal action."""
    legal = m.legal_actions(seat)
    types = {a["type"] for a in legal}
    if "declare" in types:
        nums = sorted(a["n"] for a in legal)
        small = [n for n in nums if n <= 9]
        n = small[len(small) // 3] if small else nums[0]
        if n >= 10:
            return ["1", str(n - 10), "enter"], {"type": "declare", "n": n}
        return [str(n), "enter"], {"type": "declare", "n": n}
    if "call" in types:
        return ["enter"], None   # confirm what the screen offers (keeps the fixed trump)
    if "play" in types:
        cards = [a["card"] for a in legal]
        card = cards[len(cards) // 2]
        rank = card[0].lower()
        return [rank, card[1].lower()], {"type": "play", "card": card}
    raise AssertionError(f"unexpected legal actions {legal}")


async def settle(srv, clients, table, timeout=1.0):
    """Every App showed the table's current version (or had nothing to show)
    and each client received every byte its App wrote."""
    apps = {app.member.name: app for app in list(srv.room.apps)}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        # The table shows a move once the store's writer has committed it: first that.
        if table.match is not None and table.view(None) != table.match.view(None):
            await asyncio.sleep(0.002)
            continue
        if all(app.displayed_version == table.version for app in apps.values()):
            break
        await asyncio.sleep(0.002)
    else:
        print("settle timeout", table.version, {n: (a.displayed_version, a.screen.rendered_version) for n, a in apps.items()})
    deadline = time.monotonic() + 5
    for c in clients:
        app = apps[c.name]
        while len(c.raw) < app._driver.bytes_out and time.monotonic() < deadline:
            await asyncio.sleep(0.002)


CARD_RE = re.compile(r"(10|[AKQJ2-9])([♠♥♦♣])")
SUIT_OF = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def cards_in(text: str) -> set[str]:
    out = set()
    for r, s in CARD_RE.findall(text):
        out.add(("T" if r == "10" else r) + SUIT_OF[s])
    return out


@pytest.mark.slow
async def test_four_pty_clients_play_a_kotshina_micro_match_by_keys(lamma_server, monkeypatch):
    srv = lamma_server
    # The clients type each move as soon as the last one shows, faster than a person:
    # on a loaded machine keys arrive in bursts past the per-session key limit (30 a
    # second after 60), which has its own tests (test_hostile_pty, test_limits).
    from server import driver
    monkeypatch.setattr(driver, "KEY_RATE", 1000.0)
    names = ["amal", "badr", "carim", "dina"]
    clients = [await srv.pty_client(n) for n in names]
    try:
        for c in clients:
            await c.wait_for("card room")
        # amal opens a table: n, game -> calculator scoring (micro), wait for people
        a = clients[0]
        a.press("n")
        await a.wait_for("New table")
        a.press("right")                     # game: Estimation (calculator)
        a.press("down", "down", "down", "down", "right")   # empty seats: wait for people
        await a.wait_for("wait for people")
        a.press("enter")
        await a.wait_for("Waiting for 3 more players")        # amal alone, seated
        tid = next(iter(srv.registry.tables))
        table = srv.registry.tables[tid]
        assert table.game == "estimation-kotshina" and table.length == "micro"
        for c in clients[1:]:
            await c.wait_for(" #  game")
            for _ in range(200):
                if tid in c.text():
                    break
                await asyncio.sleep(0.01)
            c.press("enter")                 # sit at the selected (only) table
        for _ in range(500):
            if table.match is not None:
                break
            await asyncio.sleep(0.01)
        m = table.match
        assert m is not None
        seat_of = {table.seats[i].name: i for i in range(4)}
        by_seat = {seat_of[n]: clients[i] for i, n in enumerate(names)}
        offsets = {s: 0 for s in range(4)}
        moves = 0
        hands_checked = 0
        while m.to_act is not None:
            await settle(srv, clients, table)
            # No client ever received another seat's unplayed card.
            public = set()
            v0 = m.view(None)
            for t in v0["tricks"]:
                public |= {c["card"] for c in t["cards"]}
            public |= {c["card"] for c in v0["trick"]}
            for s, c in by_seat.items():
                new_text = c.plain_since(offsets[s])
                offsets[s] = len(c.raw)
                own = set(m.view(s)["hand"])
                others_unplayed = set()
                for o in range(4):
                    if o != s:
                        others_unplayed |= set(m.view(o)["hand"])
                leaked = cards_in(new_text) & others_unplayed - public - own
                assert not leaked, f"seat {s} received {leaked} at move {moves} phase {v0['phase']} round {v0['round']}:\n{new_text}"
            seat = m.to_act
            v = m.view(seat)
            if v["phase"] == "play" and len(v["hand"]) == 13 and not v["trick"]:
                # each screen shows its own hand
                for s, c in by_seat.items():
                    screen = c.text()
                    for code in m.view(s)["hand"]:
                        assert card_text(code) in screen, f"{code} missing on seat {s}'s screen"
                hands_checked += 1
            keys, expect = keys_for(m, seat, None)
            before = len(m.log)
            by_seat[seat].press(*keys)
            for _ in range(1000):
                if len(m.log) > before:
                    break
                await asyncio.sleep(0.005)
            assert len(m.log) == before + 1, (
                f"keys {keys} did nothing for seat {seat}:\n{by_seat[seat].text()}")
            if expect is not None:
                assert m.log[-1] == (seat, expect)
            moves += 1
        assert m.result is not None
        assert hands_checked == 5
        await settle(srv, clients, table)
        for c in clients:
            await c.wait_for("Match over")
        assert moves >= 5 * (4 + 52)
    finally:
        for c in clients:
            await c.close()


@pytest.mark.slow
async def test_one_ssh_client_plays_a_whole_estimation_round_by_keys(lamma_server):
    """A real SSH client (PTY, rendered with pyte) opens quick play with three
    computer players and plays a whole Estimation round by key presses only;
    the round summary then shows on its screen."""
    srv = lamma_server
    c = await srv.pty_client("hala")
    try:
        await c.wait_for("card room")
        c.press("p")                                  # quick play: Estimation + computer players
        for _ in range(500):
            table = next(iter(srv.registry.tables.values()), None)
            if table is not None and table.match is not None:
                break
            await asyncio.sleep(0.01)
        m = table.match
        seat = table.seat_of(next(mb for mb in table.members() if mb.name == "hala"))
        presses = 0
        while not m.history and m.to_act is not None:
            # the turn as shown (committed, then drawn), not the engine's, which runs ahead
            shown = table.view(seat)
            if m.to_act != seat or shown is None or shown.get("to_act") != seat:
                await asyncio.sleep(0.005)
                continue
            await c.quiet(0.02)
            legal = m.legal_actions(seat)
            types = {a["type"] for a in legal}
            before = len(m.log)
            if "dash" in types:
                c.press("n")
            elif "pass" in types:
                c.press("p")
            elif "call" in types:
                c.press("enter")
            elif "declare" in types:
                n = min(a["n"] for a in legal)
                c.press(*(["1", str(n - 10)] if n >= 10 else [str(n)]), "enter")
            else:
                card = [a["card"] for a in legal][-1]
                c.press(card[0].lower(), card[1].lower())
            presses += 1
            for _ in range(1000):
                if len(m.log) > before:
                    break
                await asyncio.sleep(0.005)
            assert len(m.log) > before and m.log[before][0] == seat, (
                f"keys did nothing in {types}:\n{c.text()}")
        assert m.history, "the round did not finish"
        assert presses >= 13
        await c.wait_for("Round 1 summary")
    finally:
        await c.close()
