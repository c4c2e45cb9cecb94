"""Table-driven rules tests for Estimation with calculator scoring
(`estimation-kotshina`, ../shared/rules/estimation-kotshina.md and its Arabic seed).

Expected numbers are worked out by hand from the rule text (K-5 ... K-14), never
taken from the engine.  Rule ids in test names and case ids.

micro = 5 fixed rounds (NT S H D C); in a fixed round nobody is offered the dash and
there is no auction: declarations go in seat order after the dealer (K-2), the
caller is the highest declarer (first on a tie), and only a caller with 8 or more
gets a call phase (K-3).  Round 1: seat 0 deals, so seats declare 1, 2, 3, 0.
"""
from __future__ import annotations

import json
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
    play_plan,
    play_to_end,
    rnd,
    run,
    script_round,
    snapshot,
    with_,
)

from engine import IllegalAction, new_match, replay

P = pass_()
FIXED_TRUMPS = ["NT", "S", "H", "D", "C"]


# --------------------------------------------------------------------------- fixed rounds

@dataclass
class Fixed:
    decls: list                 # (seat, n) in declaration order (round 1: 1, 2, 3, 0)
    tricks: list
    scores: list
    caller: int
    super_call: tuple | None = None      # (seat, n, suit) for K-3
    breakdown: dict = field(default_factory=dict)


FIXED_CASES = {
    # ---- K-9 risk tiers (last declarer is seat 0)
    "K-9 total 12: no risk; K-7 With (declared the caller's 4) +10": Fixed(
        [(1, 4), (2, 4), (3, 3), (0, 1)], tricks=[1, 4, 4, 4], scores=[11, 24, 24, -11], caller=1,
        breakdown={0: {"risk": 0}, 2: {"with": 10}, 3: {"sole": -10}}),
        # 0: 10+1; 1: 10+4+10; 2: 10+4+10 With; 3: -1 -10 sole loser
    "K-9 total 14: no risk": Fixed(
        [(1, 5), (2, 4), (3, 3), (0, 2)], tricks=[1, 5, 4, 3], scores=[-11, 25, 14, 13], caller=1,
        breakdown={0: {"risk": 0}}),
    "K-9 total 11 (2 from 13): risk +10": Fixed(
        [(1, 4), (2, 3), (3, 3), (0, 1)], tricks=[1, 4, 3, 5], scores=[21, 24, 13, -12], caller=1,
        breakdown={0: {"risk": 10}}),
    "K-9 total 10 (3 from 13): risk -10 when missed": Fixed(
        [(1, 4), (2, 3), (3, 2), (0, 1)], tricks=[4, 4, 3, 2], scores=[-23, 24, 13, 12], caller=1,
        breakdown={0: {"risk": -10, "sole": -10}}),
    "K-9 total 16 (3 from 13, over): risk +10": Fixed(
        [(1, 5), (2, 4), (3, 4), (0, 3)], tricks=[3, 5, 4, 1], scores=[23, 25, 14, -13], caller=1),
    "K-9 total 15 with the last declaring 0: risk still applies (no over-side condition)": Fixed(
        [(1, 6), (2, 5), (3, 4), (0, 0)], tricks=[0, 6, 5, 2], scores=[20, 26, 15, -12], caller=1,
        breakdown={0: {"risk": 10}}),
    "K-9 total 9 (4 from 13): double risk +20": Fixed(
        [(1, 4), (2, 3), (3, 2), (0, 0)], tricks=[0, 4, 3, 6], scores=[30, 24, 13, -14], caller=1,
        breakdown={0: {"risk": 20}}),
    "K-9 total 8 (5 from 13): double risk +20": Fixed(
        [(1, 4), (2, 2), (3, 2), (0, 0)], tricks=[0, 4, 2, 7], scores=[30, 24, 12, -15], caller=1),
    "K-9 total 17 (4 from 13, over): double risk +20": Fixed(
        [(1, 6), (2, 5), (3, 4), (0, 2)], tricks=[2, 6, 5, 0], scores=[32, 26, 15, -14], caller=1),
    "K-9 total 18 (5 from 13): double risk -20 when missed": Fixed(
        [(1, 6), (2, 5), (3, 4), (0, 3)], tricks=[0, 6, 5, 2], scores=[-23, 26, 15, -2], caller=1,
        breakdown={0: {"risk": -20}}),
    "K-9 total 7 (6 from 13): triple risk +30": Fixed(
        [(1, 4), (2, 2), (3, 1), (0, 0)], tricks=[0, 4, 2, 7], scores=[40, 24, 12, -16], caller=1,
        breakdown={0: {"risk": 30}}),
    "K-9 total 19 (6 from 13): triple risk -30 when missed": Fixed(
        [(1, 7), (2, 6), (3, 4), (0, 2)], tricks=[0, 7, 6, 0], scores=[-32, 27, 16, -4], caller=1,
        breakdown={0: {"risk": -30}}),
    # ---- K-12 a declared 0
    "K-12 declared 0 missed: -t": Fixed(
        [(1, 5), (2, 4), (3, 0), (0, 2)], tricks=[2, 5, 4, 2], scores=[22, 25, 14, -12], caller=1),
    "K-12 declared 0 made: +10": Fixed(
        [(1, 5), (2, 4), (3, 0), (0, 2)], tricks=[4, 5, 4, 0], scores=[-22, 25, 14, 10], caller=1),
    # ---- K-2 / K-6 the fixed-round caller
    "K-2 caller = highest declarer, first to declare on a tie (2 before 3); 3 is With": Fixed(
        [(1, 3), (2, 4), (3, 4), (0, 1)], tricks=[2, 3, 4, 4], scores=[-11, 13, 24, 24], caller=2),
    "K-2 tie on 4 between 3 and 0: 3 declared first; 0 missed With -10": Fixed(
        [(1, 2), (2, 2), (3, 4), (0, 4)], tricks=[5, 2, 2, 4], scores=[-21, 12, 12, 24], caller=3),
        # 0: -1, With -10, sole loser -10
    "K-2 always a caller, even at 0 (all declare 0: all With; triple risk)": Fixed(
        [(1, 0), (2, 0), (3, 0), (0, 0)], tricks=[0, 13, 0, 0], scores=[50, -33, 20, 20], caller=1),
        # 1: -13 -10 caller -10 sole; 2, 3: 10+10 With; 0: 10+10 With +30 risk (total 0)
    # ---- K-3 super call in a fixed round: changes the play, not the scoring
    "K-3 super call by the 8-declarer moves NT to H; scored as a plain caller": Fixed(
        [(1, 8), (2, 2), (3, 1), (0, 0)], tricks=[2, 8, 2, 1], scores=[-22, 28, 12, 11], caller=1,
        super_call=(1, 8, "H")),
    "K-3 the 8-declarer may keep the fixed trump": Fixed(
        [(1, 8), (2, 2), (3, 1), (0, 0)], tricks=[2, 8, 2, 1], scores=[-22, 28, 12, 11], caller=1,
        super_call=(1, 8, "NT")),
    "K-3 two players 8+: only the caller (highest) chooses": Fixed(
        [(1, 8), (2, 9), (3, 0), (0, 0)], tricks=[0, 4, 9, 0], scores=[30, -14, 29, 10], caller=2,
        super_call=(2, 9, "S")),
        # 0: 10 + 20 (total 17: double risk); 1: -4 -10 sole; 2: 19+10; 3: 10
}


def _fixed_round(m, case: Fixed, plan):
    v = m.view(None)
    assert v["kind"] == "fixed" and v["phase"] == "declare"
    declare_all(m, case.decls)
    v = m.view(None)
    assert v["caller"] == case.caller
    if case.super_call:
        seat, n, suit = case.super_call
        assert v["phase"] == "call" and m.to_act == seat
        for s in range(4):
            if s != seat:
                assert m.legal_actions(s) == []
        calls = m.legal_actions(seat)
        assert {(a["n"], a["suit"]) for a in calls} == {(n, s) for s in ("NT", "S", "H", "D", "C")}
        run(m, [(seat, call(n, suit))])
    v = m.view(None)
    assert v["phase"] == "play" and m.to_act == case.caller          # K-4 caller leads
    return play_plan(m, plan)


@pytest.mark.parametrize("case", list(FIXED_CASES.values()), ids=list(FIXED_CASES))
def test_kotshina_fixed_round_table(case):
    trump = case.super_call[2] if case.super_call else "NT"
    plan = forced_plan(case.tricks, trump)
    m = new_match("estimation-kotshina", "micro", seed=2, deals=[plan.deal])
    rec = _fixed_round(m, case, plan)
    assert rec["trump"] == trump
    assert rec["scores"] == case.scores
    assert list(m.totals) == case.scores
    assert rec["multiplier"] == 1 and rec["saayda"] is False
    assert rec["caller"] == case.caller
    check_breakdown_sums(rec)
    for seat, keys in case.breakdown.items():
        for k, v in keys.items():
            assert (rec["breakdown"][seat].get(k) or 0) == v, (seat, k, rec["breakdown"][seat])


def test_K2_fixed_round_declarations_from_after_dealer_0_to_13_and_forbidden():
    m = new_match("estimation-kotshina", "micro", seed=2)
    v = m.view(None)
    assert v["kind"] == "fixed" and v["fixed_trump"] == "NT" and v["phase"] == "declare"
    assert v["dash_players"] == []
    assert m.to_act == 1
    assert sorted(a["n"] for a in m.legal_actions(1)) == list(range(14))
    assert all(a["type"] == "declare" for a in m.legal_actions(1))
    with pytest.raises(IllegalAction):
        m.apply(1, dash(True))                          # K-2: no dash call
    with pytest.raises(IllegalAction):
        m.apply(1, bid(4, "S"))                         # K-2: no auction
    declare_all(m, [(1, 6), (2, 4), (3, 0)])
    assert m.view(0)["forbidden"] == 3
    assert sorted(a["n"] for a in m.legal_actions(0)) == [n for n in range(14) if n != 3]
    before = snapshot(m)
    with pytest.raises(IllegalAction):
        m.apply(0, declare(3))
    assert snapshot(m) == before


def test_K3_super_call_refusals():
    m = new_match("estimation-kotshina", "micro", seed=2)
    declare_all(m, [(1, 8), (2, 2), (3, 1), (0, 0)])
    assert phase(m) == "call" and m.to_act == 1
    for seat, act in [(1, call(9, "H")), (1, call(7, "H")), (2, call(8, "H")),
                      (1, declare(3)), (1, {"type": "play", "card": m.view(1)["hand"][0]})]:
        before = snapshot(m)
        with pytest.raises(IllegalAction):
            m.apply(seat, act)
        assert snapshot(m) == before
    run(m, [(1, call(8, "C"))])
    assert m.view(None)["trump"] == "C"


def test_K3_no_call_phase_below_8():
    m = new_match("estimation-kotshina", "micro", seed=2)
    declare_all(m, [(1, 7), (2, 2), (3, 1), (0, 0)])
    v = m.view(None)
    assert v["phase"] == "play" and v["trump"] == "NT" and m.to_act == 1


# --------------------------------------------------------------------------- K-14 Sa'ayda

def test_K14_saayda_three_times_running_then_x4_then_back_to_x1():
    # declarations per round (order after the dealer) and tricks
    rounds = [
        # (decls in order, tricks, trump)
        ([(1, 4), (2, 3), (3, 3), (0, 2)], [0, 5, 4, 4], "NT"),   # all miss: Sa'ayda
        ([(2, 3), (3, 3), (0, 2), (1, 4)], [0, 5, 4, 4], "S"),    # all miss again (x2 round)
        ([(3, 3), (0, 2), (1, 4), (2, 3)], [0, 5, 4, 4], "H"),    # third running (x4 round)
        ([(0, 2), (1, 4), (2, 3), (3, 3)], [2, 4, 3, 4], "D"),    # x4 (max): made
        ([(1, 4), (2, 3), (3, 3), (0, 2)], [3, 4, 3, 3], "C"),    # back to x1
    ]
    plans = [forced_plan(t, tr) for _, t, tr in rounds]
    m = new_match("estimation-kotshina", "micro", seed=2, deals=[p.deal for p in plans])
    seen_mult = []
    for (decls, _, trump), plan in zip(rounds, plans, strict=False):
        v = m.view(None)
        seen_mult.append(v["multiplier"])
        assert v["fixed_trump"] == trump
        declare_all(m, decls)
        assert m.view(None)["caller"] == 1
        play_plan(m, plan)
    h = m.history
    assert seen_mult == [1, 2, 4, 4, 1]
    assert [r["multiplier"] for r in h] == [1, 2, 4, 4, 1]
    assert [r["saayda"] for r in h] == [True, True, True, False, False]
    assert [r["scores"] for r in h[:3]] == [[0, 0, 0, 0]] * 3
    # round 4: 0: 10+2; 1: 10+4+10 caller; 2: 10+3; 3: -1 -10 sole loser; all x4
    assert h[3]["scores"] == [48, 96, 52, -44]
    # round 5: 0: -1 -10 sole loser; 1: 24; 2: 13; 3: 13
    assert h[4]["scores"] == [-11, 24, 13, 13]
    assert list(m.totals) == [37, 120, 65, -31]
    assert m.result == {"winners": [1], "draw": False}
    assert m.to_act is None
    for r in h:
        check_breakdown_sums(r)


def test_K14_K15_four_saaydas_cap_at_x4_and_tied_top_share_first_place():
    plans, script = [], []
    for r in range(4):                                 # everyone 3, tricks 4 4 4 1: all miss
        d = r % 4
        plans.append(forced_plan([4, 4, 4, 1], FIXED_TRUMPS[r]))
        script.append([((d + 1 + i) % 4, 3) for i in range(4)])
    plans.append(forced_plan([3, 3, 3, 4], "C"))
    script.append([(1, 3), (2, 3), (3, 3), (0, 3)])
    m = new_match("estimation-kotshina", "micro", seed=2, deals=[p.deal for p in plans])
    for decls, plan in zip(script, plans, strict=False):
        declare_all(m, decls)
        play_plan(m, plan)
    assert [r["multiplier"] for r in m.history] == [1, 2, 4, 4, 4]
    # round 5 x4: 1 (caller 3) 13+10; 2, 3... With on 3: 13+10; 3 took 4: -1 -10 With -10 sole
    assert m.history[4]["scores"] == [92, 92, 92, -84]
    assert list(m.totals) == [92, 92, 92, -84]
    assert m.result == {"winners": [0, 1, 2], "draw": True}      # K-15: share first place


# --------------------------------------------------------------------------- auction rounds (mini)

@dataclass
class Auct:
    auction: list
    call: tuple | None
    decls: list
    tricks: list
    scores: list
    dashes: tuple = ()


AUCTION_CASES = {
    "worked example: +27 -2 -33 +21 (K-5/K-6/K-9/K-11)": Auct(
        [(1, bid(7, "S")), (2, P), (0, P)], (1, 7, "S"), [(2, 2), (0, 1)],
        tricks=[1, 7, 4, 1], scores=[21, 27, -2, -33], dashes=(3,)),
    "K-11 dash call made, under round: +33": Auct(
        [(1, bid(5, "S")), (2, P), (0, P)], (1, 5, "S"), [(2, 3), (0, 2)],      # total 10
        tricks=[5, 5, 3, 0], scores=[-23, 25, 13, 33], dashes=(3,)),
    "K-11 dash call made, over round: +25": Auct(
        [(1, bid(6, "S")), (2, P), (0, P)], (1, 6, "S"), [(2, 4), (0, 4)],      # total 14
        tricks=[3, 6, 4, 0], scores=[-11, 26, 14, 25], dashes=(3,)),
    "K-11 dash call failed, over round: -25": Auct(
        [(1, bid(6, "S")), (2, P), (0, P)], (1, 6, "S"), [(2, 4), (0, 4)],
        tricks=[2, 6, 4, 1], scores=[-2, 26, 14, -25], dashes=(3,)),
    "K-7 With in an auction round: declaring the caller's 5 and missing: -10 more": Auct(
        [(1, bid(5, "S")), (2, P), (0, P)], (1, 5, "S"), [(2, 4), (0, 5)],      # total 14
        tricks=[4, 5, 4, 0], scores=[-21, 25, 14, 25], dashes=(3,)),
        # 0: -1, With -10, sole loser -10; the dash call made (over) +25
    "K-11 dash call gets the sole winner +10": Auct(
        [(1, bid(5, "S")), (2, P), (0, P)], (1, 5, "S"), [(2, 3), (0, 2)],
        tricks=[3, 6, 4, 0], scores=[-11, -11, -1, 43], dashes=(3,)),
    "K-11 dash call gets the sole loser -10": Auct(
        [(1, bid(5, "S")), (2, P), (0, P)], (1, 5, "S"), [(2, 3), (0, 2)],
        tricks=[2, 5, 3, 3], scores=[22, 25, 13, -43], dashes=(3,)),
    "K-1 auction caller raised 4H -> 6NT: declaration 6, ceiling 6": Auct(
        [(1, bid(4, "H")), (2, P), (3, P), (0, P)], (1, 6, "NT"), [(2, 6), (3, 0), (0, 2)],
        tricks=[1, 6, 6, 0], scores=[-11, 26, 26, 10]),
        # total 14; 2 declared the caller's 6: With +10; 0: -1 -10 sole loser
    "K-14 Sa'ayda with a failed dash call: all four missed, nobody scores": Auct(
        [(1, bid(5, "S")), (2, P), (0, P)], (1, 5, "S"), [(2, 3), (0, 2)],
        tricks=[4, 4, 4, 1], scores=[0, 0, 0, 0], dashes=(3,)),
    "K-1 all pass: no caller, no With; risk and sole still paid": Auct(
        [(1, P), (2, P), (3, P), (0, P)], None, [(0, 4), (1, 4), (2, 2), (3, 0)],
        tricks=[4, 4, 5, 0], scores=[14, 14, -13, 20]),
    "K-1 all pass with a dash call: dash call scored": Auct(
        [(1, P), (3, P), (0, P)], None, [(0, 4), (1, 4), (3, 2)],
        tricks=[4, 4, 0, 5], scores=[14, 14, 33, -23], dashes=(2,)),
}


def _auction_round(m, case: Auct, plan):
    v = m.view(None)
    assert v["kind"] == "auction" and v["phase"] == "dash"
    script_round(m, case.dashes, case.auction, case.call, case.decls)
    return play_plan(m, plan)


@pytest.mark.parametrize("case", list(AUCTION_CASES.values()), ids=list(AUCTION_CASES))
def test_kotshina_auction_round_table(case):
    trump = case.call[2] if case.call else "NT"
    plan = forced_plan(case.tricks, trump)
    m = new_match("estimation-kotshina", "mini", seed=2, deals=[plan.deal])
    rec = _auction_round(m, case, plan)
    assert rec["scores"] == case.scores
    assert list(m.totals) == case.scores
    check_breakdown_sums(rec)


def test_K14_worked_example_doubled_after_a_saayda():
    sa = forced_plan([0, 5, 4, 4], "S")
    ex = forced_plan([1, 1, 7, 4], "S")
    m = new_match("estimation-kotshina", "mini", seed=2, deals=[sa.deal, ex.deal])
    # round 1 (dealer 0): everyone misses
    _auction_round(m, Auct([(1, bid(4, "S")), (2, P), (3, P), (0, P)], (1, 4, "S"),
                           [(2, 3), (3, 3), (0, 2)], [0, 5, 4, 4], [0, 0, 0, 0]), sa)
    assert m.history[0]["saayda"] is True and m.history[0]["scores"] == [0, 0, 0, 0]
    assert m.view(None)["multiplier"] == 2
    # round 2 (dealer 1): 0 takes the dash call, 2 calls 7S, 3 declares 2, 1 declares 1
    rec = _auction_round(m, Auct([(2, bid(7, "S")), (3, P), (1, P)], (2, 7, "S"),
                                 [(3, 2), (1, 1)], [1, 1, 7, 4], None, dashes=(0,)), ex)
    assert rec["multiplier"] == 2
    assert rec["scores"] == [-66, 42, 54, -4]          # +54 -4 -66 +42
    assert list(m.totals) == [-66, 42, 54, -4]
    # the breakdown is before the multiplier: the worked example's own row
    check_breakdown_sums(rec)
    assert m.view(None)["multiplier"] == 1


def test_K1_no_with_in_kotshina():
    m = new_match("estimation-kotshina", "mini", seed=2)
    answer_dash(m, ())
    run(m, [(1, bid(4, "H"))])
    legal = m.legal_actions(2)
    assert all(a["type"] != "with" for a in legal)
    before = snapshot(m)
    with pytest.raises(IllegalAction):
        m.apply(2, with_())
    assert snapshot(m) == before
    run(m, [(2, bid(4, "S")), (3, P), (0, P), (1, P)])
    v = m.view(None)
    assert v["caller"] == 2 and v["with_players"] == []


def test_K1_declaration_order_after_caller_and_ceiling():
    m = new_match("estimation-kotshina", "mini", seed=2)
    answer_dash(m, ())
    run(m, [(1, P), (2, bid(4, "H")), (3, P), (0, P), (2, call(4, "H"))])
    v = m.view(None)
    assert v["declaration_order"] == [3, 0, 1]
    assert sorted(a["n"] for a in m.legal_actions(3)) == [0, 1, 2, 3, 4]
    declare_all(m, [(3, 4), (0, 1)])
    assert m.view(1)["forbidden"] == 4
    assert sorted(a["n"] for a in m.legal_actions(1)) == [0, 1, 2, 3]


def test_K1_dash_offer_at_most_two_in_auction_rounds():
    m = new_match("estimation-kotshina", "mini", seed=2)
    assert phase(m) == "dash"
    run(m, [(1, dash(True)), (2, dash(True))])
    assert phase(m) == "auction" and m.to_act == 3


# --------------------------------------------------------------------------- structure

@pytest.mark.parametrize("length,n_auction,n_rounds", [("micro", 0, 5), ("mini", 5, 10), ("full", 13, 18)])
def test_match_lengths_micro_mini_full(length, n_auction, n_rounds):
    m = new_match("estimation-kotshina", length, seed=9)
    assert m.view(None)["rounds"] == n_rounds
    seen = []
    while m.to_act is not None:
        v = m.view(None)
        seen.append((v["round"], v["kind"], v["fixed_trump"], v["phase"]))
        if v["round"] < n_rounds:
            advance_to_round(m, v["round"] + 1)
            assert rnd(m) == v["round"] + 1
        else:
            play_to_end(m)
    assert [s[0] for s in seen] == list(range(1, n_rounds + 1))
    assert all(k == "auction" and ph == "dash" and ft is None for _, k, ft, ph in seen[:n_auction])
    assert [(k, ft, ph) for _, k, ft, ph in seen[n_auction:]] == [
        ("fixed", t, "declare") for t in FIXED_TRUMPS]
    assert len(m.history) == n_rounds
    assert m.result is not None


def test_default_length_is_micro():
    m = new_match("estimation-kotshina")
    assert m.view(None)["rounds"] == 5 and m.view(None)["kind"] == "fixed"


def test_replay_round_trip_kotshina():
    case = FIXED_CASES["K-3 super call by the 8-declarer moves NT to H; scored as a plain caller"]
    plan = forced_plan(case.tricks, "H")
    m = new_match("estimation-kotshina", "micro", seed=2, deals=[plan.deal])
    _fixed_round(m, case, plan)
    declare_all(m, [(2, 1)])
    d = json.loads(json.dumps(m.to_dict()))
    assert snapshot(replay(d)) == snapshot(m)
    assert snapshot(replay(d["game"], d["length"], d["seed"], d["deals"], d["log"])) == snapshot(m)
