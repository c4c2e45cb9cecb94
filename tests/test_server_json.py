"""The JSON-lines interface: four programs play whole matches of each game,
with every kind of bad line interleaved."""

from __future__ import annotations

import asyncio
import json

import pytest

GAMES = [("estimation", 13), ("estimation-kotshina", "micro"), ("tarneeb41", None)]


def bad_lines(client, view):
    """Each returns (line, expected error fragment or None)."""
    return [
        b"this is not json",
        b"[1, 2, 3]",
        b'{"op": "dance"}',
        b'{"no_op": 1}',
        json.dumps({"op": "join", "table": "9999"}).encode(),
        json.dumps({"op": "act", "action": {"type": "play", "card": "ZZ"}}).encode(),
        json.dumps({"op": "act", "action": "pass"}).encode(),
        json.dumps({"op": "act", "action": {"type": "declare", "n": True}}).encode(),
        json.dumps({"op": "act", "action": {"type": "bid", "n": 99, "suit": "X"}}).encode(),
        b"\xff\xfe\x00garbage\x1b[31m",
        b'{"op": "act", "action": {"type": "pass", "extra": [1, {"a": 2}]}}',
        b'{"op": "create", "game": "poker"}',
        b'{"op": "chat", "text": "\\u001b[2J\\u001b]0;pwned\\u0007hello"}',
    ]


def tarneeb_deals(hands: int = 8) -> list:
    """Stacked Tarneeb deals that finish a match in six hands whatever is
    played: one player holds all thirteen trumps (spades; the dealer's last
    card, the shown card, is a club).  Seat 2 holds them in hands 1 and 5,
    seat 0 in the others: seat 0 reaches 48 while seat 2 stays above 0."""
    ranks = "AKQJT98765432"
    spades = [r + "S" for r in ranks]
    others = [r + s for s in "HDC" for r in ranks]
    deals = []
    for h in range(1, hands + 1):
        dealer = (h - 1) % 4
        holder = 2 if h in (1, 5) else 0
        rest = [s for s in range(4) if s != holder]
        lists = {s: [] for s in rest}
        for i, card in enumerate(others):
            lists[rest[i % 3]].append(card)
        if dealer in lists:
            lst = lists[dealer]
            club = next(c for c in lst if c[1] == "C")
            lst.remove(club)
            lst.append(club)
        lists[holder] = list(spades)
        deals.append([lists[s] for s in range(4)])
    return deals


def tarneeb_policy(m, seat, moves):
    legal = m.legal_actions(seat)
    if legal[0]["type"] == "declare":
        view = m.view(seat)
        want = 13 if all(c[1] == "S" for c in view["hand"]) else 2
        return next(a for a in legal if a["n"] == want)
    return legal[(moves * 7) % len(legal)]


def any_policy(m, seat, moves):
    legal = m.legal_actions(seat)
    return legal[(moves * 7) % len(legal)]


async def play_match(srv, game, length, names, policy=any_policy, deals=None):
    clients = [await srv.json_client(n) for n in names]
    try:
        c0 = clients[0]
        c0.send({"op": "create", "game": game, "length": length})
        joined = await c0.expect("joined")
        tid = joined["table"]
        assert joined["seat"] == 0
        srv.registry.tables[tid].deals = deals
        for i, c in enumerate(clients[1:], start=1):
            c.send({"op": "join", "table": tid, "seat": i})
            j = await c.expect("joined")
            assert j == {"type": "joined", "table": tid, "seat": i}
        for c in clients:
            await c.expect("view")
        table = srv.registry.tables[tid]
        m = table.match
        moves = 0
        bad_sent = 0
        junk = bad_lines(None, clients[0].view)
        huge = b"x" * (1 << 20)
        while m.to_act is not None:
            seat = m.to_act
            c = clients[seat]
            # wait until that client has the current view
            for _ in range(500):
                if c.view and c.view.get("to_act") == seat and c.view["legal"] == m.legal_actions(seat):
                    break
                await asyncio.sleep(0.002)
            assert c.view["seat"] == seat
            assert c.view == m.view(seat), "pushed view must be exactly the engine view"
            # interleave a bad line now and then, from the player to act or another
            if moves % 7 == 0:
                bad = junk[bad_sent % len(junk)]
                who = clients[(seat + bad_sent) % 4]
                before = json.dumps(m.to_dict())
                n_err = len(who.errors)
                who.send(bad)
                if bad_sent == 3:
                    who.send(huge)    # a megabyte of garbage with no newline...
                    who.send(b"\n")   # ...then the end of that line
                if b'"chat"' in bad:
                    # Said cleaned, or (a fast machine plays ~100 moves a second) refused
                    # by the chat limit of a few lines every few seconds.
                    chats: list[dict] = []
                    for _ in range(2500):
                        chats += [x for x in who.drain() if x.get("type") == "chat"]
                        if chats or len(who.errors) > n_err:
                            break
                        await asyncio.sleep(0.002)
                    if chats:
                        text = chats[0]["text"]
                        assert "\x1b" not in text and "\x07" not in text
                    else:
                        assert who.errors[n_err:] and "Slow down" in who.errors[n_err], \
                            who.errors[n_err:]
                else:
                    for _ in range(500):
                        if len(who.errors) > n_err:
                            break
                        await asyncio.sleep(0.002)
                    assert len(who.errors) > n_err, f"no error for {bad[:40]!r}"
                assert json.dumps(m.to_dict()) == before, "a bad line changed the game"
                bad_sent += 1
            # not your turn: refused, nothing changes
            other = clients[(seat + 1 + moves % 3) % 4]
            n_err = len(other.errors)
            legal = m.legal_actions(seat)
            other.send({"op": "act", "action": legal[0]})
            for _ in range(1000):
                if len(other.errors) > n_err:
                    break
                await asyncio.sleep(0.001)
            assert other.errors[n_err:] == ["It is not your turn."]
            assert len(m.log) == moves
            action = policy(m, seat, moves)
            c.send({"op": "act", "action": action})
            for _ in range(2000):
                if len(m.log) > moves:
                    break
                await asyncio.sleep(0.001)
            assert len(m.log) == moves + 1, "the legal action was not applied"
            moves += 1
        assert m.result is not None
        for c in clients:
            for _ in range(500):
                if c.view and c.view["phase"] == "over":
                    break
                await asyncio.sleep(0.005)
            assert c.view["phase"] == "over"
            assert c.view == m.view(c.view["seat"])
        return moves, bad_sent
    finally:
        for c in clients:
            await c.close()


@pytest.mark.slow
@pytest.mark.parametrize("game,length", GAMES)
async def test_four_json_clients_play_a_whole_match(lamma_server, game, length):
    kwargs = {}
    if game == "tarneeb41":
        kwargs = {"policy": tarneeb_policy, "deals": tarneeb_deals()}
    moves, bad = await play_match(lamma_server, game, length,
                                  [f"{game[:6]}{i}" for i in range(4)], **kwargs)
    assert moves > 50
    assert bad >= 5


@pytest.mark.slow
async def test_json_create_with_computer_players_and_views_hide_other_hands(lamma_server):
    c = await lamma_server.json_client("solo")
    try:
        c.send({"op": "create", "game": "estimation-kotshina", "computer": [1, 2, 3]})
        j = await c.expect("joined")
        assert j["seat"] == 0
        table = lamma_server.registry.tables[j["table"]]
        m = table.match
        seen_views = 0
        while m.to_act is not None:
            msg = await c.expect("view")
            v = msg["view"]
            seen_views += 1
            assert v["seat"] == 0
            if v["to_act"] == 0 and v["legal"] and v == m.view(0):
                c.send({"op": "act", "action": v["legal"][-1]})
        assert m.result is not None
        assert seen_views > 20
        # The engine is done; the room shows it once the last writes are stored: the
        # final view first, then the listing says "over".
        while v.get("phase") != "over":
            v = (await c.expect("view"))["view"]
        c.send({"op": "tables"})
        t = await c.expect("tables")
        assert t["tables"][0]["status"] == "over"
    finally:
        await c.close()


async def test_reconnect_gets_view_at_once_and_watchers_see_public_view(lamma_server):
    srv = lamma_server
    a = await srv.json_client("anna")
    a.send({"op": "create", "game": "tarneeb41", "computer": [1, 3]})
    j = await a.expect("joined")
    tid = j["table"]
    b = await srv.json_client("badr")
    b.send({"op": "join", "table": tid, "seat": 2})
    await b.expect("joined")
    await b.expect("view")
    w = await srv.json_client("watcher")
    w.send({"op": "watch", "table": tid})
    await w.expect("watching")
    wv = (await w.expect("view"))["view"]
    assert wv["seat"] is None and wv["hand"] == []
    await a.close()
    await asyncio.sleep(0.1)
    table = srv.registry.tables[tid]
    assert table.seats[0].kind == "human" and table.seats[0].member is None  # seat held
    a2 = await srv.json_client("anna")
    joined = await a2.expect("joined")
    assert joined == {"type": "joined", "table": tid, "seat": 0}
    v = (await a2.expect("view"))["view"]
    assert v == table.match.view(0)
    for c in (a2, b, w):
        await c.close()


async def test_an_illegal_action_is_refused_with_the_rules_reason(lamma_server):
    """``act`` with an action the rules refuse answers why (the engine's reason, as a
    screen says it), not only "Illegal action {...}."; nothing changes."""
    c = await lamma_server.json_client("reasons")
    try:
        c.send({"op": "create", "game": "tarneeb41", "computer": [1, 2, 3]})
        await c.expect("joined")
        while True:
            v = (await c.expect("view"))["view"]
            if v["to_act"] == 0 and v["phase"] == "declare":
                break
        c.send({"op": "act", "action": {"type": "declare", "n": 1}})
        err = await c.expect("error")
        assert err["message"] == ('Illegal action {"type": "declare", "n": 1}: declare a '
                                  "number from 2 to 13 (there is no pass).")
        c.send({"op": "act", "action": {"type": "bid", "n": 3, "suit": "S"}})
        err = await c.expect("error")
        assert err["message"].endswith(
            ": Tarneeb has no auction: every player declares 2 to 13."), err
        c.send({"op": "act", "action": {"type": "declare", "n": 4}})
        v = (await c.expect("view"))["view"]
        assert v["declarations"][0] == 4
    finally:
        await c.close()
