"""Stacked deals and scripted play for the rules tests.

Everything here drives the engine through its public API only (new_match, apply,
legal_actions, view, to_act, history); nothing reads engine internals.

The central tool is :func:`forced_plan`: given the number of tricks each seat must
take and the round's trump, it builds a deal and a card-per-trick script that gives
exactly those trick counts, with every scripted card legal (E-26 / T-15).

How the deal is built
---------------------
The 52 cards are cut into 13 "tricks":

* 12 same-suit groups: for each suit, (A K Q J), (T 9 8 7), (6 5 4 3); each seat
  holds exactly one card of every group, so when a group's card is led every seat
  holds a card of the led suit and the scripted card is a legal follow.  The trick
  goes to whoever holds the group's top card (all four cards are of one suit, so the
  trump does not matter).
* the four 2s (2S 2H 2D 2C), one per seat, played last: every seat has one card left,
  all of different suits.  With a trump suit T the holder of 2T wins it (the only
  trump); in NT the leader wins it (nobody can follow), and the leader is the winner
  of trick 12.

Every seat therefore holds 4-3-3-3 (three of each suit plus one 2).
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from engine import new_match

RANKS = "AKQJT98765432"
SUITS = "SHDC"
PARTNER_SUIT = {"S": "C", "C": "S", "H": "D", "D": "H"}   # T-9: same colour


# --------------------------------------------------------------------------- actions

def dash(take: bool) -> dict:
    return {"type": "dash", "take": bool(take)}


def bid(n: int, suit: str | None = None) -> dict:
    a = {"type": "bid", "n": n}
    if suit is not None:
        a["suit"] = suit
    return a


def with_() -> dict:
    return {"type": "with"}


def pass_() -> dict:
    return {"type": "pass"}


def call(n: int, suit: str) -> dict:
    return {"type": "call", "n": n, "suit": suit}


def declare(n: int) -> dict:
    return {"type": "declare", "n": n}


def play(card: str) -> dict:
    return {"type": "play", "card": card}


# --------------------------------------------------------------------------- deals

def full_deck() -> list[str]:
    return [r + s for s in SUITS for r in RANKS]


def shuffled_deal(rng: random.Random) -> list[list[str]]:
    deck = full_deck()
    rng.shuffle(deck)
    return [deck[i * 13:(i + 1) * 13] for i in range(4)]


def complete_deal(partial: dict[int, list[str]], fill_order=(0, 1, 2, 3)) -> list[list[str]]:
    """Give each seat the cards listed for it, then fill every seat up to 13 with the
    remaining cards (deck order: spades, hearts, diamonds, clubs, high to low)."""
    used = [c for cards in partial.values() for c in cards]
    assert len(used) == len(set(used)), "a card is given twice"
    rest = [c for c in full_deck() if c not in used]
    hands = [list(partial.get(s, [])) for s in range(4)]
    for s in fill_order:
        while len(hands[s]) < 13:
            hands[s].append(rest.pop(0))
    assert not rest and all(len(h) == 13 for h in hands)
    return hands


@dataclass
class Plan:
    """A stacked deal plus the card every seat plays in every trick."""
    deal: list[list[str]]
    cards: list[dict[int, str]]          # trick index -> seat -> card
    tricks: list[int]                    # tricks each seat will take
    winners: list[int] = field(default_factory=list)   # winner of each trick
    trump: str = "NT"
    shown_card: str | None = None


def forced_plan(tricks, trump: str, *, shown: tuple[int, str] | None = None) -> Plan:
    """Deal + play script in which seat s takes exactly tricks[s] tricks when the
    round is played with `trump` ("S" "H" "D" "C" or "NT").

    shown=(dealer, suit): Tarneeb -- put a card of `suit` last in the dealer's list,
    so that it is the shown card (T-8)."""
    tricks = list(tricks)
    assert len(tricks) == 4 and sum(tricks) == 13 and min(tricks) >= 0, tricks
    # the 13th trick (the four 2s): its winner
    # (the seat with most tricks: it has at least 4, so in NT it can also win trick 12)
    last = max(range(4), key=lambda s: tricks[s])
    rest = list(tricks)
    rest[last] -= 1
    group_winners = [s for s in range(4) for _ in range(rest[s])]
    if trump == "NT":
        # the winner of trick 12 leads trick 13 and wins it
        group_winners.remove(last)
        group_winners.append(last)
    assert len(group_winners) == 12

    groups = [[r + s for r in RANKS[4 * g:4 * g + 4]] for s in SUITS for g in range(3)]
    hands: list[list[str]] = [[] for _ in range(4)]
    cards: list[dict[int, str]] = []
    for grp, w in zip(groups, group_winners, strict=False):
        top, *low = grp
        trick = {w: top}
        others = [s for s in range(4) if s != w]
        for s, c in zip(others, low, strict=False):
            trick[s] = c
        for s, c in trick.items():
            hands[s].append(c)
        cards.append(trick)
    twos = ["2" + s for s in SUITS]
    trick = {}
    if trump != "NT":
        trick[last] = "2" + trump
        twos.remove("2" + trump)
    else:
        trick[last] = twos.pop(0)
    for s in range(4):
        if s != last:
            trick[s] = twos.pop(0)
    for s, c in trick.items():
        hands[s].append(c)
    cards.append(trick)
    winners = [*group_winners, last]

    shown_card = None
    if shown is not None:
        dealer, suit = shown
        h = hands[dealer]
        pick = next(c for c in h if c[1] == suit)
        h.remove(pick)
        h.append(pick)
        shown_card = pick
    plan = Plan(deal=hands, cards=cards, tricks=tricks, winners=winners,
                trump=trump, shown_card=shown_card)
    assert sorted(c for h in hands for c in h) == sorted(full_deck())
    assert [winners.count(s) for s in range(4)] == tricks
    return plan


# --------------------------------------------------------------------------- driving

def phase(m) -> str:
    return m.view(None)["phase"]


def rnd(m) -> int:
    return m.view(None)["round"]


def run(m, steps):
    """Apply (seat, action) steps in order, checking that it is that seat's turn."""
    for seat, action in steps:
        assert m.to_act == seat, (
            f"expected seat {seat} to act for {action}, engine has to_act={m.to_act} "
            f"(phase {phase(m)})")
        m.apply(seat, action)


def answer_dash(m, takers=()):
    """Answer every dash offer of this round: seats in `takers` take it."""
    asked = []
    while m.to_act is not None and phase(m) == "dash":
        s = m.to_act
        asked.append(s)
        m.apply(s, dash(s in takers))
    return asked


def simple_auction(m, caller: int, n: int, suit: str | None):
    """The auction as a list of steps: `caller` bids n/suit when their turn comes,
    everyone else passes.  Starts at m.to_act, goes in seat order skipping dash
    players (read from the view)."""
    v = m.view(None)
    dashers = set(v["dash_players"])
    first = m.to_act
    order = [(first + i) % 4 for i in range(4) if (first + i) % 4 not in dashers]
    steps = [(s, bid(n, suit) if s == caller else pass_()) for s in order]
    return steps


def play_plan(m, plan: Plan, check: bool = True):
    """Play the 52 cards of one round following the plan."""
    start_round = rnd(m)
    hist_len = len(m.history)
    for i in range(52):
        s = m.to_act
        assert s is not None, f"match ended after {i} cards of the round"
        k = i // 4
        card = plan.cards[k][s]
        m.apply(s, play(card))
    assert len(m.history) == hist_len + 1, "the round did not end after 13 tricks"
    rec = m.history[-1]
    if check:
        assert rec["tricks_taken"] == plan.tricks, (
            f"stacked plan should give {plan.tricks}, engine counted {rec['tricks_taken']}"
            f" (round {start_round})")
    return rec


def declare_all(m, decls):
    """decls: list of (seat, n) in the expected declaration order."""
    run(m, [(s, declare(n)) for s, n in decls])


def script_round(m, dashes, auction, called, decls):
    """One scripted round up to the first lead: dash answers, auction steps, the call
    ``(seat, n, suit)`` (None: everyone passed, E-14), then the declarations."""
    answer_dash(m, dashes)
    run(m, auction)
    if called:
        seat, n, suit = called
        assert phase(m) == "call" and m.view(None)["caller"] == seat
        run(m, [(seat, call(n, suit))])
    else:
        assert phase(m) == "declare" and m.view(None)["caller"] is None, \
            "E-14: all pass goes straight to the declarations"
    declare_all(m, decls)


def random_match(game, length=None, seed=1, until=None):
    """A match played with random legal moves (Tarneeb declares by T-25 so it ends),
    stopped after ``until`` actions if given."""
    m = new_match(game, length, seed=seed)
    rng = random.Random(seed)
    while m.to_act is not None and (until is None or len(m.log) < until):
        seat = m.to_act
        if m.game == "tarneeb41" and m.phase == "declare":
            m.apply(seat, m.auto_action(seat))
        else:
            m.apply(seat, rng.choice(m.legal_actions(seat)))
    return m


def snapshot(m):
    """Everything observable, to show that a refused action changed nothing."""
    views = {str(s): m.view(s) for s in (0, 1, 2, 3, None)}
    return json.dumps({
        "views": views,
        "log": [[s, a] for s, a in m.log],
        "to_act": m.to_act,
        "totals": list(m.totals),
        "history": m.history,
        "result": m.result,
        "legal": {s: m.legal_actions(s) for s in range(4)},
    }, sort_keys=True, default=str)


def simple_policy(m, seat):
    """A plain, deterministic legal move: decline the dash, pass, confirm the call
    at the won number, declare the first legal number, play the first legal card."""
    legal = m.legal_actions(seat)
    assert legal, f"seat {seat} is to act but has no legal action"
    for pref in ({"type": "dash", "take": False}, {"type": "pass"}):
        if pref in legal:
            return pref
    return legal[0]


def advance_to_round(m, target: int):
    """Play with simple_policy until round `target` has started (or the match ended)."""
    guard = 0
    while m.to_act is not None and rnd(m) < target:
        s = m.to_act
        m.apply(s, simple_policy(m, s))
        guard += 1
        assert guard < 100_000
    return m


def play_to_end(m):
    guard = 0
    while m.to_act is not None:
        s = m.to_act
        m.apply(s, simple_policy(m, s))
        guard += 1
        assert guard < 200_000
    return m


def check_breakdown_sums(rec):
    """history contract: scores = multiplier x sum(breakdown) (except a Sa'ayda)."""
    if rec.get("saayda"):
        assert rec["scores"] == [0, 0, 0, 0]
        return
    mult = rec.get("multiplier", 1) or 1
    for s in range(4):
        b = rec["breakdown"][s]
        assert mult * sum(v for v in b.values() if v) == rec["scores"][s], (s, b, rec["scores"])


def quick_policy(m, seat: int) -> dict:
    """A legal action that moves a round along: decline the dash, pass the auction,
    declare near 3, else the first legal action (a card)."""
    return quick_choice(m.legal_actions(seat))


def view_policy(view: dict) -> dict:
    """``quick_policy`` from a player's view (its ``legal`` list), as a program would."""
    return quick_choice(view["legal"])


def quick_choice(legal: list[dict]) -> dict:
    for a in legal:
        if (a["type"] == "dash" and not a["take"]) or a["type"] == "pass":
            return a
    decl = [a for a in legal if a["type"] == "declare"]
    if decl:
        return min(decl, key=lambda a: abs(a["n"] - 3))
    return legal[0]


def play_to(m, stop, seat: int = 0, policy=quick_policy, limit: int = 20000) -> dict:
    """Apply ``policy``'s actions to the engine until ``stop(view of seat)``."""
    for _ in range(limit):
        v = m.view(seat)
        if stop(v) or m.to_act is None:
            return v
        m.apply(m.to_act, policy(m, m.to_act))
    raise AssertionError("never reached the wanted state")


def act_until(table, members, stop, policy=quick_policy, seat: int | None = 0,
              limit: int = 20000) -> dict:
    """The seats act through the room's table (as people would) until
    ``stop(view of seat)``; ``members`` by seat."""
    m = table.match
    for _ in range(limit):
        v = m.view(seat)
        if stop(v) or m.to_act is None:
            return v
        s = m.to_act
        table.act(members[s], policy(m, s))
    raise AssertionError("never reached the wanted state")
