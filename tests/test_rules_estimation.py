"""Table-driven rules tests for Estimation, committee scoring (`estimation`).

An independent reading of ../shared/rules/estimation.md (and its Arabic seed): every
expected number below was worked out by hand from the rule text, never by calling
the engine's own scoring.  Rule ids (E-..) are in the test names and case ids.

All rounds are played on stacked deals (tests/stacked.py) so that the trick counts
are forced; everything goes through the public API.

Round 1 of a match: seat 0 deals, so the dash offer asks 1, 2, 3, 0 and the auction
starts with the first non-dash player after seat 0.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

import pytest
from stacked import (
    advance_to_round,
    answer_dash,
    bid,
    call,
    check_breakdown_sums,
    dash,
    declare,
    declare_all,
    forced_plan,
    pass_,
    phase,
    play,
    play_plan,
    play_to_end,
    rnd,
    run,
    script_round,
    shuffled_deal,
    snapshot,
    with_,
)

from engine import IllegalAction, new_match, replay
from engine.match import call_keeps_trump

P = pass_()


# --------------------------------------------------------------------------- the table

@dataclass
class Case:
    auction: list                    # (seat, action) in turn order
    call: tuple | None               # (seat, n, suit) or None (all pass)
    decls: list                      # (seat, n) in the expected declaration order
    tricks: list                     # tricks taken per seat
    scores: list                     # expected scores per seat (by hand, from the rules)
    dashes: tuple = ()
    trump: str | None = None         # defaults to the call's suit, NT when all pass
    breakdown: dict = field(default_factory=dict)   # seat -> {key: value} spot checks


def A(*steps):
    return list(steps)


# caller 1 wins with n/suit, everyone else passes (dealer 0, no dash)
def solo(n, suit="S"):
    return [(1, bid(n, suit)), (2, P), (3, P), (0, P)]


# dash player 1; auction starts at 2; 2 wins with n/suit
def solo2(n, suit="S"):
    return [(2, bid(n, suit)), (3, P), (0, P)]


ALL_PASS = [(1, P), (2, P), (3, P), (0, P)]

CASES = {
    # ---- E-28 base: made 13 + t; missed -|t-n|
    "E-28 4 made = 17 (caller 4 made = 17+10)": Case(
        solo(4), (1, 4, "S"), [(2, 4), (3, 2), (0, 4)],       # total 14: no risk
        tricks=[3, 4, 4, 2], scores=[-11, 27, 17, 15]),
        # 0: 4 took 3 -> -1, sole loser -10 = -11; 1: 17+10; 2: 17; 3: 15
    "E-28 6 made = 19": Case(
        solo(7), (1, 7, "S"), [(2, 6), (3, 0), (0, 1)],       # total 14
        tricks=[0, 7, 6, 0], scores=[-11, 30, 19, 13]),
    # ---- E-29 caller/sole: the seed's -21
    "E-29 caller sole loser by one (one too many) = -21": Case(
        solo(4), (1, 4, "S"), [(2, 3), (3, 3), (0, 2)],       # total 12: no risk
        tricks=[2, 5, 3, 3], scores=[15, -21, 16, 16]),
    "E-29 caller sole loser by one (one too few) = -21": Case(
        solo(4), (1, 4, "S"), [(2, 3), (3, 3), (0, 4)],       # total 14: no risk
        tricks=[4, 3, 3, 3], scores=[17, -21, 16, 16]),
    "E-29 caller sole winner = 17+10+10": Case(
        solo(4), (1, 4, "S"), [(2, 3), (3, 3), (0, 2)],
        tricks=[1, 4, 4, 4], scores=[-1, 37, -1, -1],
        breakdown={1: {"sole": 10, "caller": 10}}),
    # ---- E-29 With
    "E-13/E-29 With, outbid, With again: With on the caller's number +10, other number none": Case(
        [(1, bid(4, "H")), (2, with_()), (3, bid(5, "C")), (0, with_()), (1, with_()), (2, with_())],
        (3, 5, "C"), [(0, 5), (1, 3), (2, 2)],   # With players declare first; total 15 over, 2 declared 2: risk
        tricks=[5, 3, 0, 5], scores=[28, 16, -22, 28],
        breakdown={0: {"with": 10}, 1: {"with": 0}, 2: {"risk": -10, "sole": -10}}),
        # 3: 18+10 caller; 0: 18+10 With; 1: 16 (With, declared 3: no With ten);
        # 2: -2, risk -10, sole loser -10
    "E-29 With counts the final call: caller raised 4H->5S, With declared 5 gets +10": Case(
        [(1, bid(4, "H")), (2, with_()), (3, P), (0, P)],
        (1, 5, "S"), [(2, 5), (3, 2), (0, 0)],                 # total 12
        tricks=[0, 5, 5, 3], scores=[13, 28, 28, -11]),
    "E-29 With counts the final call: With declared the old number 4, no ten": Case(
        [(1, bid(4, "H")), (2, with_()), (3, P), (0, P)],
        (1, 5, "S"), [(2, 4), (3, 2), (0, 0)],                 # total 11: 0 in risk
        tricks=[0, 5, 4, 4], scores=[23, 28, 17, -12]),
    # ---- E-30 super call
    "E-30 super 8 made = 41": Case(
        solo(8), (1, 8, "S"), [(2, 3), (3, 1), (0, 0)],       # total 12
        tricks=[0, 8, 5, 0], scores=[13, 41, -2, -1]),
    "E-30 super 9 made = 42": Case(
        solo(9), (1, 9, "S"), [(2, 2), (3, 1), (0, 0)],
        tricks=[0, 9, 4, 0], scores=[13, 42, -2, -1]),
    "E-30 super 10 made = 43": Case(
        solo(10), (1, 10, "S"), [(2, 1), (3, 1), (0, 0)],
        tricks=[0, 10, 3, 0], scores=[13, 43, -2, -1]),
    "E-30 super 11 made = 44 (one more per trick)": Case(
        solo(11), (1, 11, "S"), [(2, 1), (3, 0), (0, 0)],
        tricks=[0, 11, 2, 0], scores=[13, 44, -11, 13]),
    "E-30 super reached by raising in the call (5S -> 8H) = 41": Case(
        solo(5), (1, 8, "H"), [(2, 3), (3, 1), (0, 0)],
        tricks=[0, 8, 5, 0], scores=[13, 41, -2, -1]),
    "E-30 super 8 failing by one = -(20+1)": Case(
        solo(8), (1, 8, "S"), [(2, 3), (3, 1), (0, 0)],
        tricks=[2, 7, 3, 1], scores=[-2, -21, 16, 14]),
    "E-30 super 8 failing by three = -(20+3)": Case(
        solo(8), (1, 8, "S"), [(2, 3), (3, 1), (0, 0)],
        tricks=[4, 5, 3, 1], scores=[-4, -23, 16, 14]),
    "E-30 super made and sole winner: 41+10": Case(
        solo(8), (1, 8, "S"), [(2, 3), (3, 1), (0, 0)],
        tricks=[3, 8, 2, 0], scores=[-3, 51, -1, -1]),
    "E-30 super failed and sole loser: -1-20-10": Case(
        solo(8), (1, 8, "S"), [(2, 3), (3, 1), (0, 0)],
        tricks=[0, 9, 3, 1], scores=[13, -31, 16, 14]),
    "E-30 With on a super call declaring the caller's number: +20 (41)": Case(
        [(1, bid(8, "S")), (2, with_()), (3, P), (0, P)],
        (1, 8, "S"), [(2, 8), (3, 0), (0, 1)],                 # total 17, 0 declared 1: no risk
        tricks=[0, 5, 8, 0], scores=[-1, -23, 41, 13]),
    "E-30 With on a super call failing: -(20+1); lone maker is sole winner": Case(
        [(1, bid(8, "S")), (2, with_()), (3, P), (0, P)],
        (1, 8, "S"), [(2, 8), (3, 0), (0, 1)],
        tricks=[0, 6, 7, 0], scores=[-1, -22, -21, 23]),
    # ---- E-23 risk
    "E-23 risk, under side (total 11), last declarer made: +10": Case(
        solo(4), (1, 4, "S"), [(2, 3), (3, 3), (0, 1)],
        tricks=[1, 4, 3, 5], scores=[24, 27, 16, -12],
        breakdown={0: {"risk": 10}, 3: {"sole": -10}}),
    "E-23 risk, under side (total 11), last declarer missed: -10": Case(
        solo(4), (1, 4, "S"), [(2, 3), (3, 3), (0, 1)],
        tricks=[3, 4, 3, 3], scores=[-22, 27, 16, 16],
        breakdown={0: {"risk": -10, "sole": -10}}),
    "E-23 risk, under side with a declaration of 0 (no condition on that side)": Case(
        solo(4), (1, 4, "S"), [(2, 3), (3, 2), (0, 0)],       # total 9
        tricks=[0, 4, 3, 6], scores=[23, 27, 16, -14]),
    "E-23 no risk at total 14": Case(
        solo(5), (1, 5, "S"), [(2, 4), (3, 3), (0, 2)],
        tricks=[1, 5, 4, 3], scores=[-11, 28, 17, 16],
        breakdown={0: {"risk": 0}}),
    "E-23 no risk, over side (15) with a declaration of 0": Case(
        solo(7), (1, 7, "S"), [(2, 5), (3, 3), (0, 0)],
        tricks=[0, 7, 5, 1], scores=[13, 30, 18, -12],
        breakdown={0: {"risk": 0}}),
    "E-23 no risk, over side (15) with a declaration of 1, made": Case(
        solo(7), (1, 7, "S"), [(2, 5), (3, 2), (0, 1)],
        tricks=[1, 7, 5, 0], scores=[14, 30, 18, -12]),
    "E-23 no risk, over side (15) with a declaration of 1, missed": Case(
        solo(7), (1, 7, "S"), [(2, 5), (3, 2), (0, 1)],
        tricks=[0, 7, 5, 1], scores=[-1, 30, 18, -1],
        breakdown={0: {"risk": 0}}),
    "E-23 risk, over side (15) with a declaration of 2, made: +10": Case(
        solo(7), (1, 7, "S"), [(2, 4), (3, 2), (0, 2)],
        tricks=[2, 7, 4, 0], scores=[25, 30, 17, -12]),
    "E-23 risk, over side (15) with a declaration of 2, missed: -10": Case(
        solo(7), (1, 7, "S"), [(2, 4), (3, 2), (0, 2)],
        tricks=[0, 7, 4, 2], scores=[-22, 30, 17, 15]),
    # ---- E-31 / E-32 dash call (dash player 1; auction from 2; declarations 3, 0)
    "E-31 dash made, table under: +23": Case(
        solo2(4), (2, 4, "S"), [(3, 3), (0, 4)], dashes=(1,),  # total 11: 0 in risk
        tricks=[6, 0, 4, 3], scores=[-22, 23, 27, 16]),
    "E-31 dash made, table over: +13": Case(
        solo2(5), (2, 5, "S"), [(3, 5), (0, 4)], dashes=(1,),  # total 14
        tricks=[3, 0, 5, 5], scores=[-11, 13, 28, 18]),
    "E-31 dash failed, table over: -t": Case(
        solo2(5), (2, 5, "S"), [(3, 5), (0, 4)], dashes=(1,),
        tricks=[1, 2, 5, 5], scores=[-3, -2, 28, 18]),
    "E-31 dash failed, table under: -t -10": Case(
        solo2(4), (2, 4, "S"), [(3, 3), (0, 4)], dashes=(1,),
        tricks=[5, 1, 4, 3], scores=[-11, -11, 27, 16]),
    "E-32 failed dash makes someone else the sole winner": Case(
        solo2(4), (2, 4, "S"), [(3, 3), (0, 4)], dashes=(1,),
        tricks=[3, 1, 4, 5], scores=[-11, -11, 37, -2],
        breakdown={2: {"sole": 10}, 1: {"sole": 0}}),
    "E-32 made dash is counted: one other maker is not the sole winner": Case(
        solo2(4), (2, 4, "S"), [(3, 3), (0, 4)], dashes=(1,),
        tricks=[3, 0, 4, 6], scores=[-11, 23, 27, -3]),
    "E-32 dash as the only loser is never paid the -10": Case(
        solo2(4), (2, 4, "S"), [(3, 3), (0, 4)], dashes=(1,),
        tricks=[4, 2, 4, 3], scores=[27, -12, 27, 16],
        breakdown={1: {"sole": 0}}),
    "E-32 dash as the only winner is never paid the +10": Case(
        solo2(4), (2, 4, "S"), [(3, 3), (0, 4)], dashes=(1,),
        tricks=[3, 0, 5, 5], scores=[-11, 23, -11, -2],
        breakdown={1: {"sole": 0}}),
    "E-8/E-31 two dash players, one made one failed (under)": Case(
        [(3, bid(5, "S")), (0, P)], (3, 5, "S"), [(0, 4)], dashes=(1, 2),   # total 9
        tricks=[7, 0, 1, 5], scores=[-13, 23, -11, 28]),
    # ---- E-14 / E-33 all-pass round: no bonus at all, NT, dealer declares first
    "E-33 all pass: only 13+t / -|t-n| (no risk, no sole)": Case(
        ALL_PASS, None, [(0, 4), (1, 3), (2, 3), (3, 1)],     # total 11
        tricks=[4, 3, 3, 3], scores=[17, 16, 16, -2]),
    "E-33 all pass: the lone maker is not paid sole winner": Case(
        ALL_PASS, None, [(0, 4), (1, 3), (2, 3), (3, 1)],
        tricks=[4, 5, 4, 0], scores=[17, -2, -1, -1]),
    "E-33 all pass with two dash players: dash scored as a plain 0 (13 / -t)": Case(
        [(3, P), (0, P)], None, [(0, 5), (3, 6)], dashes=(1, 2),  # total 11, under
        tricks=[5, 0, 2, 6], scores=[18, 13, -2, 19]),
}


def _play_case(case: Case, game="estimation", length=13):
    trump = case.trump or (case.call[2] if case.call else "NT")
    plan = forced_plan(case.tricks, trump)
    m = new_match(game, length, seed=11, deals=[plan.deal])
    script_round(m, case.dashes, case.auction, case.call, [])
    assert m.view(None)["trump"] == trump
    declare_all(m, case.decls)
    rec = play_plan(m, plan)
    return m, rec


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_estimation_scoring_table(case):
    m, rec = _play_case(case)
    assert rec["scores"] == case.scores
    assert list(m.totals) == case.scores
    check_breakdown_sums(rec)
    for seat, keys in case.breakdown.items():
        for k, v in keys.items():
            assert (rec["breakdown"][seat].get(k) or 0) == v, (seat, k, rec["breakdown"][seat])
    decls = {s: n for s, n in case.decls}
    for s in case.dashes:
        decls[s] = 0
    if case.call:
        decls[case.call[0]] = case.call[1]
    assert rec["declarations"] == [decls[s] for s in range(4)]
    assert rec["all_pass"] == (case.call is None)
    total = sum(decls.values())
    assert rec["over"] == (total > 13)


# --------------------------------------------------------------------------- phases

def test_E7_dash_offer_order_starts_after_dealer_and_asks_each_once():
    m = new_match("estimation", 13, seed=3)
    v = m.view(None)
    assert v["phase"] == "dash" and v["dealer"] == 0 and v["kind"] == "auction"
    asked = answer_dash(m, ())
    assert asked == [1, 2, 3, 0]
    assert phase(m) == "auction" and m.to_act == 1
    # round 2: dealer 1, asking starts with 2
    play_to_round(m, 2)
    assert m.view(None)["dealer"] == 1
    assert answer_dash(m, ()) == [2, 3, 0, 1]


def play_to_round(m, r):
    advance_to_round(m, r)
    assert rnd(m) == r


def test_E7_dash_legal_actions_are_take_or_play():
    m = new_match("estimation", 13, seed=3)
    legal = m.legal_actions(1)
    assert sorted(legal, key=json.dumps) == sorted(
        [dash(True), dash(False)], key=json.dumps)
    for s in (0, 2, 3):
        assert m.legal_actions(s) == []


def test_E8_two_dashes_end_the_offer():
    m = new_match("estimation", 13, seed=3)
    run(m, [(1, dash(True)), (2, dash(False)), (3, dash(True))])
    # seat 0 is never asked; the auction starts with the first non-dash after the dealer
    v = m.view(None)
    assert v["phase"] == "auction"
    assert sorted(v["dash_players"]) == [1, 3]
    assert m.to_act == 2
    assert all(a["type"] != "dash" for a in m.legal_actions(2))
    with pytest.raises(IllegalAction):
        m.apply(0, dash(True))


def test_E9_dash_players_are_out_of_auction_and_declare_0():
    m = new_match("estimation", 13, seed=3)
    run(m, [(1, dash(True)), (2, dash(False)), (3, dash(False)), (0, dash(False))])
    seen = []
    steps = [(2, bid(4, "H")), (3, bid(5, "H")), (0, P), (2, P)]
    for s, a in steps:
        seen.append(m.to_act)
        run(m, [(s, a)])
    assert 1 not in seen
    assert phase(m) == "call" and m.view(None)["caller"] == 3
    run(m, [(3, call(5, "H"))])
    v = m.view(None)
    assert v["declarations"][1] == 0 and v["declarations"][3] == 5
    # declarations after caller 3: 0, 2 (1 is a dash player)
    assert v["declaration_order"] == [0, 2]
    run(m, [(0, declare(2))])
    assert m.to_act == 2


def test_E10_E11_bids_range_and_must_beat():
    m = new_match("estimation", 13, seed=3)
    answer_dash(m, ())
    legal = m.legal_actions(1)
    bids = [a for a in legal if a["type"] == "bid"]
    assert {(a["n"], a["suit"]) for a in bids} == {
        (n, s) for n in range(4, 14) for s in ("NT", "S", "H", "D", "C")}
    assert {"type": "with"} not in legal            # E-13: nothing to join yet
    assert pass_() in legal
    with pytest.raises(IllegalAction):
        m.apply(1, bid(3, "NT"))                    # E-10 lowest bid is 4
    run(m, [(1, bid(5, "H"))])
    legal = m.legal_actions(2)
    bids = {(a["n"], a["suit"]) for a in legal if a["type"] == "bid"}
    # E-11 (E-5 NT > S > H > D > C): over 5H, 5S and 5NT beat it, 5D/5C/5H do not
    assert (5, "S") in bids and (5, "NT") in bids
    assert not {(5, "H"), (5, "D"), (5, "C")} & bids
    assert (6, "C") in bids and (13, "NT") in bids
    assert {"type": "with"} in legal
    for bad in (bid(5, "D"), bid(5, "H"), bid(4, "NT")):
        with pytest.raises(IllegalAction):
            m.apply(2, bad)


def test_E12_pass_is_final():
    m = new_match("estimation", 13, seed=3)
    answer_dash(m, ())
    turns = []
    for s, a in [(1, P), (2, bid(4, "S")), (3, bid(5, "S")), (0, P), (2, bid(6, "D"))]:
        turns.append(m.to_act)
        run(m, [(s, a)])
    # 3 outbid: continues after the new bidder, skipping 0 (passed) and 1 (passed)
    assert m.to_act == 3
    run(m, [(3, P)])
    assert phase(m) == "call" and m.view(None)["caller"] == 2
    assert turns.count(1) == 1 and turns.count(0) == 1


def test_E13_with_then_outbid_then_with_again_auction_state():
    """E-13: With joins; an overbid frees the With players; turns go on after the new
    bidder; the auction ends when everyone left owns or has joined the bid."""
    m = new_match("estimation", 13, seed=3)
    answer_dash(m, ())
    run(m, [(1, bid(4, "H"))])
    a = m.view(None)["auction"]
    assert a["bid"] == {"n": 4, "suit": "H"} and a["owner"] == 1 and a["with_players"] == []
    assert {"type": "with"} in m.legal_actions(2)
    run(m, [(2, with_())])
    a = m.view(None)["auction"]
    assert a["with_players"] == [2]
    assert m.to_act == 3                             # 1 (owner) and 2 (joined) are skipped
    run(m, [(3, bid(5, "C"))])
    a = m.view(None)["auction"]
    assert a["bid"] == {"n": 5, "suit": "C"} and a["owner"] == 3 and a["with_players"] == []
    assert m.to_act == 0
    run(m, [(0, with_())])
    assert m.to_act == 1                             # previous owner gets a turn
    assert {"type": "with"} in m.legal_actions(1)
    run(m, [(1, with_())])
    assert m.to_act == 2                             # freed With player gets a turn
    run(m, [(2, with_())])
    v = m.view(None)
    assert v["phase"] == "call" and v["caller"] == 3 and m.to_act == 3
    assert sorted(v["with_players"]) == [0, 1, 2]
    # Every turn as the table heard it, in order, the same from every seat (public).
    heard = [{"seat": 1, "type": "bid", "n": 4, "suit": "H"}, {"seat": 2, "type": "with"},
             {"seat": 3, "type": "bid", "n": 5, "suit": "C"}, {"seat": 0, "type": "with"},
             {"seat": 1, "type": "with"}, {"seat": 2, "type": "with"}]
    assert v["auction"]["bids"] == heard
    assert all(m.view(s)["auction"]["bids"] == heard for s in range(4))
    run(m, [(3, call(5, "C"))])
    # E-20: With players declare first, in seat order after the caller
    assert m.view(None)["declaration_order"] == [0, 1, 2]
    assert m.to_act == 0


def test_E13_owner_cannot_join_own_bid_and_with_needs_a_bid():
    m = new_match("estimation", 13, seed=3)
    answer_dash(m, ())
    with pytest.raises(IllegalAction):
        m.apply(1, with_())                          # no standing bid
    run(m, [(1, bid(4, "C")), (2, P), (3, P)])
    assert m.to_act == 0
    with pytest.raises(IllegalAction):
        m.apply(1, with_())                          # owner
    run(m, [(0, P)])
    assert phase(m) == "call"


def test_E13_auction_ends_when_the_rest_all_said_with():
    m = new_match("estimation", 13, seed=3)
    answer_dash(m, ())
    run(m, [(1, bid(6, "NT")), (2, with_()), (3, with_()), (0, with_())])
    v = m.view(None)
    assert v["phase"] == "call" and v["caller"] == 1
    assert sorted(v["with_players"]) == [0, 2, 3]


def test_E14_E24_E25_everyone_passes():
    plan = forced_plan([4, 3, 3, 3], "NT")
    m = new_match("estimation", 13, seed=3, deals=[plan.deal])
    answer_dash(m, ())
    run(m, ALL_PASS)
    v = m.view(None)
    assert v["phase"] == "declare" and v["trump"] == "NT" and v["caller"] is None
    assert m.to_act == 0                             # E-24: from the dealer
    legal = m.legal_actions(0)
    assert sorted(a["n"] for a in legal) == list(range(14))   # 0..13, no caller
    declare_all(m, [(0, 4), (1, 3), (2, 3)])
    assert m.view(3)["forbidden"] == 3
    assert declare(3) not in m.legal_actions(3)
    declare_all(m, [(3, 1)])
    assert phase(m) == "play" and m.to_act == 0      # E-25 decision: first declarer leads
    rec = play_plan(m, plan)
    assert rec["scores"] == [17, 16, 16, -2]
    assert rec["all_pass"] is True and rec["caller"] is None


def test_E24_all_pass_with_dealer_dashing_starts_after_dealer():
    m = new_match("estimation", 13, seed=3)
    run(m, [(1, dash(False)), (2, dash(False)), (3, dash(False)), (0, dash(True))])
    assert m.to_act == 1
    run(m, [(1, P), (2, P), (3, P)])
    v = m.view(None)
    assert v["phase"] == "declare" and v["trump"] == "NT"
    assert m.to_act == 1
    declare_all(m, [(1, 5), (2, 5)])
    assert m.view(3)["forbidden"] == 3
    declare_all(m, [(3, 2)])
    assert phase(m) == "play" and m.to_act == 1


def test_E16_call_may_raise_or_change_suit_not_go_below():
    m = new_match("estimation", 13, seed=3)
    answer_dash(m, ())
    run(m, [(1, bid(5, "H")), (2, P), (3, P), (0, P)])
    legal = m.legal_actions(1)
    calls = {(a["n"], a["suit"]) for a in legal}
    assert all(a["type"] == "call" for a in legal)
    assert calls == {(n, s) for n in range(5, 14) for s in ("NT", "S", "H", "D", "C")}
    with pytest.raises(IllegalAction):
        m.apply(1, call(4, "H"))
    run(m, [(1, call(5, "C"))])                      # change to a lower suit: allowed
    v = m.view(None)
    assert v["trump"] == "C" and v["call"] == {"n": 5, "suit": "C"}
    assert v["declarations"][1] == 5


def test_E16_E19_E21_call_raised_sets_declaration_and_ceiling():
    m = new_match("estimation", 13, seed=3)
    answer_dash(m, ())
    run(m, [(1, bid(4, "D")), (2, P), (3, P), (0, P), (1, call(6, "NT"))])
    v = m.view(None)
    assert v["trump"] == "NT" and v["declarations"][1] == 6
    assert m.to_act == 2
    assert sorted(a["n"] for a in m.legal_actions(2)) == list(range(7))    # E-21: 0..6
    with pytest.raises(IllegalAction):
        m.apply(2, declare(7))


def test_E20_with_players_declare_first_in_seat_order_after_caller():
    m = new_match("estimation", 13, seed=3)
    answer_dash(m, ())
    run(m, [(1, P), (2, bid(4, "D")), (3, with_()), (0, with_())])
    assert m.view(None)["caller"] == 2
    run(m, [(2, call(4, "D"))])
    assert m.view(None)["declaration_order"] == [3, 0, 1]
    declare_all(m, [(3, 4), (0, 1)])
    v = m.view(1)
    assert v["last_declarer"] == 1 and v["forbidden"] == 4
    declare_all(m, [(1, 2)])
    assert phase(m) == "play" and m.to_act == 2      # E-25 caller leads


def test_E22_last_declarers_forbidden_number():
    m = new_match("estimation", 13, seed=3)
    answer_dash(m, ())
    run(m, [*solo(5), (1, call(5, "S"))])
    declare_all(m, [(2, 3), (3, 4)])
    v = m.view(0)
    assert v["forbidden"] == 1
    nums = sorted(a["n"] for a in m.legal_actions(0))
    assert nums == [0, 2, 3, 4, 5]
    before = snapshot(m)
    with pytest.raises(IllegalAction):
        m.apply(0, declare(1))
    assert snapshot(m) == before
    # not the last declarer: nobody else is forbidden anything
    m2 = new_match("estimation", 13, seed=3)
    answer_dash(m2, ())
    run(m2, [*solo(5), (1, call(5, "S"))])
    assert m2.view(2)["forbidden"] is None
    assert sorted(a["n"] for a in m2.legal_actions(2)) == list(range(6))


@pytest.mark.parametrize("decls, said", [
    ([(2, 3), (3, 4), (0, 0)], {"total": 12, "over": False, "by": 1, "at_risk": None}),
    ([(2, 2), (3, 4), (0, 0)], {"total": 11, "over": False, "by": 2, "at_risk": 0}),
    ([(2, 3), (3, 4), (0, 2)], {"total": 14, "over": True, "by": 1, "at_risk": None}),
    ([(2, 5), (3, 4), (0, 1)], {"total": 15, "over": True, "by": 2, "at_risk": None}),
    ([(2, 5), (3, 4), (0, 2)], {"total": 16, "over": True, "by": 3, "at_risk": 0}),
], ids=["under-1", "under-2-risk", "over-1", "over-2-declared-1", "over-3-risk"])
def test_E22_E23_the_view_says_over_or_under_by_how_much_and_who_is_in_risk(decls, said):
    """What the table says aloud once the declarations are in (players read "over by
    2" in every app): from the engine, as the rules decide it, not from a screen."""
    m = new_match("estimation", 13, seed=3)
    answer_dash(m, ())
    run(m, [*solo(5), (1, call(5, "S"))])
    declare_all(m, decls[:2])
    assert m.view(0)["over_under"] is None          # not every declaration is in
    declare_all(m, decls[2:])
    assert phase(m) == "play"
    assert m.view(None)["over_under"] == said and m.view(2)["over_under"] == said


def test_E33_an_all_pass_round_has_no_risk_and_K9_has_no_over_side_condition():
    m = new_match("estimation", 13, seed=3)
    answer_dash(m, ())
    run(m, ALL_PASS)
    declare_all(m, [(0, 2), (1, 2), (2, 2), (3, 3)])
    assert m.view(None)["over_under"] == {"total": 9, "over": False, "by": 4,
                                          "at_risk": None}
    k = new_match("estimation-kotshina", "micro", seed=3)
    while k.phase != "declare":
        k.apply(k.to_act, {"type": "pass"} if k.phase == "auction"
                else k.legal_actions(k.to_act)[0])
    for n in (5, 5, 4, 1):
        seat = k.to_act
        legal = [a["n"] for a in k.legal_actions(seat) if a["type"] == "declare"]
        k.apply(seat, declare(n if n in legal else max(legal)))
    v = k.view(None)
    total = sum(v["declarations"])
    assert v["phase"] == "play" and v["over_under"]["total"] == total
    # the case the name is about: over, the last declarer's own number under 2 (E-23's
    # condition, which K-9 does not have)
    assert total >= 15 and v["declarations"][v["last_declarer"]] < 2
    assert v["over_under"]["at_risk"] == v["last_declarer"]


def test_E26_E27_follow_suit_and_offsuit_ace_is_a_discard():
    # seat 1 (caller, leads) has hearts; seat 2 is void in hearts and holds AC;
    # seat 3 has hearts; seat 0 is void in hearts and holds a trump (spade).
    from stacked import complete_deal
    deal = complete_deal({
        1: ["5H", "AH", "KH", "QH", "JH", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C"],
        2: ["AC", "KC", "QC", "JC", "TC", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D"],
        3: ["TH", "9H", "8H", "7H", "6H", "4H", "3H", "2H", "TD", "JD", "QD", "KD", "AD"],
        0: ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS"],
    })
    m = new_match("estimation", 13, seed=3, deals=[deal])
    answer_dash(m, ())
    run(m, [*solo(4, "S"), (1, call(4, "S"))])
    declare_all(m, [(2, 0), (3, 0), (0, 0)])
    assert m.to_act == 1
    run(m, [(1, play("5H"))])
    # seat 2 void in hearts: every card is legal
    assert len(m.legal_actions(2)) == 13
    run(m, [(2, play("AC"))])
    # seat 3 holds hearts: only hearts
    legal3 = {a["card"] for a in m.legal_actions(3)}
    assert legal3 == {"TH", "9H", "8H", "7H", "6H", "4H", "3H", "2H"}
    with pytest.raises(IllegalAction):
        m.apply(3, play("TD"))
    run(m, [(3, play("2H"))])
    run(m, [(0, play("2S"))])                        # lowest trump wins
    v = m.view(None)
    assert v["tricks"][0]["winner"] == 0 and v["tricks"][0]["leader"] == 1
    assert m.to_act == 0
    assert v["tricks_taken"] == [1, 0, 0, 0]


def test_E27_highest_of_led_suit_wins_without_trump():
    from stacked import complete_deal
    # seat 2 gets no heart (the fill gives it diamonds); 0 and 3 hold one heart each
    deal = complete_deal({
        1: ["5H", "AH", "KH", "QH", "JH", "TH", "8H", "6H", "4H", "3H", "2H", "2S", "3S"],
        2: ["AC"], 3: ["9H"], 0: ["7H"],
    }, fill_order=(0, 3, 2))
    assert not any(c[1] == "H" for c in deal[2])
    m = new_match("estimation", 13, seed=3, deals=[deal])
    answer_dash(m, ())
    run(m, [*solo(4, "NT"), (1, call(4, "NT"))])
    declare_all(m, [(2, 0), (3, 0), (0, 0)])
    run(m, [(1, play("5H")), (2, play("AC")), (3, play("9H")), (0, play("7H"))])
    assert m.view(None)["tricks"][0]["winner"] == 3
    assert m.to_act == 3


# --------------------------------------------------------------------------- fast rounds

def _match_at_round(length, r, plan_deal, seed=5):
    rng = random.Random(seed)
    deals = [shuffled_deal(rng) for _ in range(r - 1)] + [plan_deal]
    m = new_match("estimation", length, seed=seed, deals=deals)
    play_to_round(m, r)
    return m


@pytest.mark.parametrize("length,auction_rounds", [(18, 13), (13, 13), (24, 19)])
def test_E6_match_lengths_and_fast_round_order(length, auction_rounds):
    m = new_match("estimation", length, seed=2)
    assert m.view(None)["rounds"] == length
    seen = []
    while m.to_act is not None:
        v = m.view(None)
        seen.append((v["round"], v["kind"], v["fixed_trump"], v["dealer"]))
        play_to_round(m, v["round"] + 1) if v["round"] < length else play_to_end(m)
    assert [r for r, *_ in seen] == list(range(1, length + 1))
    assert all(k == "auction" and ft is None for r, k, ft, _ in seen[:auction_rounds])
    fast = seen[auction_rounds:]
    if length == 13:
        assert fast == []
    else:
        assert [(k, ft) for r, k, ft, _ in fast] == [
            ("fast", "NT"), ("fast", "S"), ("fast", "H"), ("fast", "D"), ("fast", "C")]
    assert [d for *_, d in seen] == [(r - 1) % 4 for r in range(1, length + 1)]   # E-3
    assert len(m.history) == length
    assert m.result is not None and m.view(None)["phase"] == "over"


def test_E15_fast_round_bids_are_numbers_only_and_with_works():
    plan = forced_plan([5, 3, 2, 3], "NT")
    m = _match_at_round(18, 14, plan.deal)
    v = m.view(None)
    assert v["kind"] == "fast" and v["fixed_trump"] == "NT" and v["dealer"] == 1
    assert v["phase"] == "dash"                      # decision: dash offer in fast rounds
    assert answer_dash(m, ()) == [2, 3, 0, 1]
    legal = m.legal_actions(2)
    bids = [a for a in legal if a["type"] == "bid"]
    assert sorted(a["n"] for a in bids) == list(range(4, 14))
    assert all("suit" not in a for a in bids)
    with pytest.raises(IllegalAction):
        m.apply(2, bid(4, "S"))
    run(m, [(2, bid(4))])
    assert all(a["n"] >= 5 for a in m.legal_actions(3) if a["type"] == "bid")
    with pytest.raises(IllegalAction):
        m.apply(3, bid(4))                           # same number never beats in a fast round
    run(m, [(3, with_()), (0, bid(5))])
    assert m.view(None)["auction"]["with_players"] == []
    run(m, [(1, P), (2, P), (3, with_())])
    v = m.view(None)
    assert v["phase"] == "call" and v["caller"] == 0 and v["with_players"] == [3]
    assert v["auction"]["bids"] == [                 # a fast round's bids name no suit
        {"seat": 2, "type": "bid", "n": 4}, {"seat": 3, "type": "with"},
        {"seat": 0, "type": "bid", "n": 5}, {"seat": 1, "type": "pass"},
        {"seat": 2, "type": "pass"}, {"seat": 3, "type": "with"}]
    # E-18: below 8 the suit is locked to the fixed trump
    calls = {(a["n"], a["suit"]) for a in m.legal_actions(0)}
    assert calls == ({(n, "NT") for n in range(5, 8)}
                     | {(n, s) for n in range(8, 14) for s in ("NT", "S", "H", "D", "C")})
    with pytest.raises(IllegalAction):
        m.apply(0, call(5, "S"))
    with pytest.raises(IllegalAction):
        m.apply(0, call(7, "H"))
    run(m, [(0, call(5, "NT"))])
    assert m.view(None)["trump"] == "NT"
    assert m.view(None)["declaration_order"] == [3, 1, 2]
    declare_all(m, [(3, 3), (1, 3)])
    assert m.view(2)["forbidden"] == 2
    declare_all(m, [(2, 3)])                         # total 14
    assert len(m.view(2)["auction"]["bids"]) == 6    # heard all round long
    rec = play_plan(m, plan)
    nxt = m.view(None)                               # the next round is heard afresh
    assert nxt["round"] == 15 and nxt["auction"]["bids"] == []
    # 0: 18+10 caller; 3: With on 3 (not the caller's 5): 16; 1: 16; 2: -1, sole loser -10
    assert rec["scores"] == [28, 16, -11, 16]
    assert rec["kind"] == "fast"


def test_E17_E18_fast_round_super_call_moves_the_trump():
    plan = forced_plan([2, 3, 0, 8], "H")
    m = _match_at_round(18, 15, plan.deal)
    v = m.view(None)
    assert v["kind"] == "fast" and v["fixed_trump"] == "S" and v["dealer"] == 2
    answer_dash(m, ())
    run(m, [(3, bid(5)), (0, P), (1, P), (2, P)])
    assert m.view(None)["caller"] == 3
    run(m, [(3, call(8, "H"))])
    v = m.view(None)
    assert v["trump"] == "H" and v["call"] == {"n": 8, "suit": "H"}
    declare_all(m, [(0, 2), (1, 2), (2, 0)])         # total 12
    rec = play_plan(m, plan)
    assert rec["trump"] == "H"
    # 3: super 8 made 41; 0: 15; 2: 13; 1: declared 2 took 3, sole loser: -11
    assert rec["scores"] == [15, -11, 13, 41]


def test_E18_the_call_keeps_the_trump_under_8_in_a_fast_round_only():
    # the rule as the screens ask it (their "locked: raise to 8" note) ...
    assert call_keeps_trump("fast", 5) and call_keeps_trump("fast", 7)
    assert not call_keeps_trump("fast", 8) and not call_keeps_trump("fast", 13)
    assert not call_keeps_trump("auction", 5) and not call_keeps_trump("fixed", 5)
    # ... is the one the engine's legal calls follow
    plan = forced_plan([2, 3, 0, 8], "H")
    m = _match_at_round(18, 15, plan.deal)
    answer_dash(m, ())
    run(m, [(3, bid(5)), (0, P), (1, P), (2, P)])
    calls = [(a["n"], a["suit"]) for a in m.legal_actions(3) if a["type"] == "call"]
    for n in range(5, 14):
        suits = {s for k, s in calls if k == n}
        assert suits == ({"S"} if call_keeps_trump("fast", n) else {"NT", "S", "H", "D", "C"})


def test_E15_fast_round_all_pass_keeps_fixed_trump():
    plan = forced_plan([4, 3, 3, 3], "S")
    m = _match_at_round(18, 15, plan.deal)
    answer_dash(m, ())
    run(m, [(3, P), (0, P), (1, P), (2, P)])
    v = m.view(None)
    assert v["phase"] == "declare" and v["trump"] == "S"
    assert m.to_act == 2                             # E-24: the dealer declares first
    declare_all(m, [(2, 3), (3, 3), (0, 4), (1, 1)])  # total 11: all pass, no risk
    assert m.to_act == 2
    rec = play_plan(m, plan)
    assert rec["scores"] == [17, -2, 16, 16]
    assert rec["all_pass"] is True


# --------------------------------------------------------------------------- illegal actions

def test_illegal_actions_are_refused_and_change_nothing():
    plan = forced_plan([2, 5, 3, 3], "S")
    m = new_match("estimation", 13, seed=4, deals=[plan.deal])

    def refused(seat, action):
        before = snapshot(m)
        with pytest.raises(IllegalAction):
            m.apply(seat, action)
        assert snapshot(m) == before, f"refused {action} by {seat} changed the state"

    # dash phase
    refused(2, dash(True))                           # not their turn
    refused(1, bid(4, "S"))                          # wrong phase
    refused(1, {"type": "fly"})
    refused(1, declare(2))
    answer_dash(m, ())
    # auction
    refused(1, bid(3, "S"))
    refused(1, bid(14, "S"))
    refused(1, bid(5, "X"))
    refused(1, with_())
    refused(0, pass_())
    run(m, [(1, bid(5, "H"))])
    refused(2, bid(5, "D"))
    refused(2, bid(5, "H"))
    refused(1, pass_())
    run(m, [(2, P), (3, P), (0, P)])
    # call
    refused(1, call(4, "H"))
    refused(2, call(5, "H"))
    refused(1, declare(5))
    run(m, [(1, call(5, "S"))])
    # declarations
    refused(2, declare(6))
    refused(2, declare(-1))
    refused(3, declare(1))
    declare_all(m, [(2, 3), (3, 3)])
    refused(0, declare(2))                           # forbidden: total would be 13
    declare_all(m, [(0, 1)])
    # play
    not_mine = next(c for c in m.view(2)["hand"])
    refused(1, play(not_mine))
    refused(2, play(not_mine))
    first = plan.cards[0][1]
    run(m, [(1, play(first))])
    s = m.to_act
    hand = m.view(s)["hand"]
    off = [c for c in hand if c[1] != first[1]]
    refused(s, play(off[0]))                         # E-26 must follow suit
    refused(s, play(first))                          # already on the table


# --------------------------------------------------------------------------- match end

def _all_pass_round(m, plan, decl_by_seat):
    answer_dash(m, ())
    d = m.view(None)["dealer"]
    run(m, [((d + 1 + i) % 4, P) for i in range(4)])
    declare_all(m, [((d + i) % 4, decl_by_seat[(d + i) % 4]) for i in range(4)])
    return play_plan(m, plan)


def test_E35_highest_total_wins():
    tricks = [2, 1, 10, 0]
    decl = {0: 2, 1: 1, 2: 0, 3: 0}
    plans = [forced_plan(tricks, "NT") for _ in range(13)]
    m = new_match("estimation", 13, seed=1, deals=[p.deal for p in plans])
    for p in plans:
        rec = _all_pass_round(m, p, decl)
        assert rec["scores"] == [15, 14, -10, 13]
    assert list(m.totals) == [195, 182, -130, 169]
    assert m.result == {"winners": [0], "draw": False}
    assert m.to_act is None and m.view(None)["phase"] == "over"


def test_E36_shared_top_total_is_a_draw_between_them_alone():
    tricks = [1, 1, 11, 0]
    decl = {0: 1, 1: 1, 2: 0, 3: 0}
    plans = [forced_plan(tricks, "NT") for _ in range(13)]
    m = new_match("estimation", 13, seed=1, deals=[p.deal for p in plans])
    for p in plans:
        rec = _all_pass_round(m, p, decl)
        assert rec["scores"] == [14, 14, -11, 13]
    assert list(m.totals) == [182, 182, -143, 169]
    assert m.result == {"winners": [0, 1], "draw": True}
    assert m.to_act is None


def _one_round_then(scores_case):
    m, _rec = _play_case(CASES[scores_case])
    return m


def test_E37_leaver_cannot_win_however_far_ahead():
    m = _one_round_then("E-23 no risk, over side (15) with a declaration of 0")
    assert list(m.totals) == [13, 30, 18, -12]
    answer_dash(m, ())                               # mid-round 2
    m.leave(1)
    assert m.result == {"winners": [2], "draw": False}
    assert m.to_act is None and m.view(None)["phase"] == "over"
    assert m.legal_actions(2) == []


def test_E37_leave_draw_among_the_other_three():
    tricks = [1, 1, 11, 0]
    plan = forced_plan(tricks, "NT")
    m = new_match("estimation", 13, seed=1, deals=[plan.deal])
    _all_pass_round(m, plan, {0: 1, 1: 1, 2: 0, 3: 0})
    assert list(m.totals) == [14, 14, -11, 13]
    m.leave(3)
    assert m.result == {"winners": [0, 1], "draw": True}
    assert m.to_act is None


def test_E37_leave_in_round_one_before_any_score():
    m = new_match("estimation", 13, seed=1)
    m.leave(2)
    assert m.result == {"winners": [0, 1, 3], "draw": True}
    assert m.to_act is None


# --------------------------------------------------------------------------- replay

def test_replay_and_json_round_trip_after_scripted_round():
    m, _ = _play_case(CASES["E-13/E-29 With, outbid, With again: With on the caller's number +10, other number none"])
    answer_dash(m, (2,))
    d = json.loads(json.dumps(m.to_dict()))
    m2 = replay(d)
    assert snapshot(m2) == snapshot(m)
    m3 = replay(d["game"], d["length"], d["seed"], d["deals"], d["log"])
    assert snapshot(m3) == snapshot(m)


# --------------------------------------------------------------------------- more edges

def test_E30_with_on_a_super_call_declaring_another_number_gets_nothing_extra():
    case = Case(
        [(1, bid(8, "S")), (2, with_()), (3, P), (0, P)],
        (1, 8, "S"), [(2, 3), (3, 1), (0, 0)],                # total 12: no risk
        tricks=[0, 8, 3, 2], scores=[13, 41, 16, -11])
        # 2: With but declared 3 (not 8): plain 16; 3: declared 1 took 2, sole loser
    _m, rec = _play_case(case)
    assert rec["scores"] == case.scores
    assert rec["with_players"] == [2] and rec["caller"] == 1
    assert rec["call"] == {"n": 8, "suit": "S"}


def test_history_record_fields_after_with_round():
    m, rec = _play_case(CASES["E-13/E-29 With, outbid, With again: With on the caller's number +10, other number none"])
    assert rec["round"] == 1 and rec["kind"] == "auction" and rec["dealer"] == 0
    assert rec["trump"] == "C" and rec["caller"] == 3 and rec["call"] == {"n": 5, "suit": "C"}
    assert sorted(rec["with_players"]) == [0, 1, 2] and rec["dash_players"] == []
    assert rec["declarations"] == [5, 3, 2, 5] and rec["tricks_taken"] == [5, 3, 0, 5]
    assert len(rec["tricks"]) == 13 and all(len(t["cards"]) == 4 for t in rec["tricks"])
    assert rec["multiplier"] == 1 and rec["over"] is True and rec["all_pass"] is False
    # E-34: totals carry over; round 2 starts with dealer 1
    v = m.view(None)
    assert v["round"] == 2 and v["dealer"] == 1 and v["totals"] == [28, 16, -22, 28]
    assert v["tricks"] == [] and v["trick"] == [] and v["declarations"] == [None] * 4


def test_auto_action_estimation_is_legal_and_conservative():
    m = new_match("estimation", 13, seed=8)
    assert m.auto_action(1) == dash(False)
    answer_dash(m, ())
    assert m.auto_action(1) == pass_()
    run(m, [(1, bid(5, "H")), (2, P), (3, P), (0, P)])
    assert m.auto_action(1) == call(5, "H")                  # confirms the call
    run(m, [(1, call(5, "H"))])
    while m.to_act is not None and rnd(m) == 1:
        s = m.to_act
        a = m.auto_action(s)
        assert a in m.legal_actions(s)
        m.apply(s, a)
    assert len(m.history) == 1
    assert m.view(2)["legal"] == m.legal_actions(2)


def test_E13_three_passes_then_the_last_bids_and_wins_at_once():
    m = new_match("estimation", 13, seed=3)
    answer_dash(m, ())
    run(m, [(1, P), (2, P), (3, P)])
    assert phase(m) == "auction" and m.to_act == 0     # not an all-pass yet
    assert any(a["type"] == "bid" for a in m.legal_actions(0))
    run(m, [(0, bid(4, "C"))])
    v = m.view(None)
    assert v["phase"] == "call" and v["caller"] == 0 and m.to_act == 0


def test_E21_E22_nothing_forbidden_when_13_is_out_of_reach():
    m = new_match("estimation", 13, seed=3)
    answer_dash(m, ())
    run(m, [*solo(4), (1, call(4, "S"))])
    declare_all(m, [(2, 0), (3, 0)])
    # 0 would need 9 to make 13, above the caller's 4: every number 0..4 is open
    assert sorted(a["n"] for a in m.legal_actions(0)) == [0, 1, 2, 3, 4]
