"""Rules tests for Tarneeb 41 (`tarneeb41`, ../shared/rules/tarneeb41.md and its
Arabic seed).  Expected numbers are worked out by hand from the rules (T-..).

Hand k is dealt by seat (k-1) mod 4 when no hand was voided; the declarations go
from the dealer's right (dealer+1) round to the dealer (T-12), dealer+1 leads
(T-14).  Each stacked deal puts a card of the trump's partner suit last in the
dealer's list, so that it is the shown card (T-8, T-9).
"""
from __future__ import annotations

import json

import pytest
from stacked import (
    PARTNER_SUIT,
    declare,
    declare_all,
    forced_plan,
    phase,
    play,
    play_plan,
    run,
    snapshot,
)

from engine import IllegalAction, new_match, replay


def plan_for(tricks, trump, dealer):
    return forced_plan(tricks, trump, shown=(dealer, PARTNER_SUIT[trump]))


def hand(m, plan, decl_by_seat):
    d = m.view(None)["dealer"]
    order = [(d + 1 + i) % 4 for i in range(4)]
    assert m.to_act == order[0]
    declare_all(m, [(s, decl_by_seat[s]) for s in order])
    if sum(decl_by_seat.values()) < 11:
        return m.history[-1]
    assert phase(m) == "play" and m.to_act == order[0]       # T-14
    return play_plan(m, plan)


# --------------------------------------------------------------------------- table, cards

def test_T1_T11_T12_start_of_match():
    m = new_match("tarneeb41", seed=1)
    v = m.view(None)
    assert v["game"] == "tarneeb41" and v["rounds"] is None and v["kind"] == "hand"
    assert v["teams"] == [[0, 2], [1, 3]] and v["team_totals"] == [0, 0]
    assert v["phase"] == "declare" and v["dealer"] == 0 and v["round"] == 1
    assert m.to_act == 1
    legal = m.legal_actions(1)
    assert all(a["type"] == "declare" for a in legal)            # T-11: no auction, no pass
    assert sorted(a["n"] for a in legal) == list(range(2, 14))   # T-12: 2..13
    for bad in (declare(1), declare(0), declare(14), {"type": "pass"}, {"type": "bid", "n": 5, "suit": "S"}):
        before = snapshot(m)
        with pytest.raises(IllegalAction):
            m.apply(1, bad)
        assert snapshot(m) == before


@pytest.mark.parametrize("shown_suit,trump", [("H", "D"), ("D", "H"), ("C", "S"), ("S", "C")])
def test_T8_T9_T10_shown_card_is_dealers_last_and_sets_trump(shown_suit, trump):
    plan = plan_for([4, 3, 3, 3], trump, dealer=0)
    assert plan.shown_card[1] == shown_suit
    m = new_match("tarneeb41", seed=1, deals=[plan.deal])
    for s in (0, 1, 2, 3, None):
        v = m.view(s)
        assert v["shown_card"] == plan.deal[0][-1] == plan.shown_card
        assert v["trump"] == trump
    assert plan.shown_card in m.view(0)["hand"]                  # T-10 stays in the hand
    assert sorted(m.view(0)["hand"]) == sorted(plan.deal[0])
    rec = hand(m, plan, {1: 3, 2: 3, 3: 3, 0: 4})
    played = [c["card"] for t in rec["tricks"] for c in t["cards"] if c["seat"] == 0]
    assert plan.shown_card in played                             # T-10 played like any other
    assert rec["shown_card"] == plan.shown_card and rec["trump"] == trump


def test_T8_shown_card_is_the_dealers_not_the_decks_last():
    """Hand 2 is dealt by seat 1: the shown card is deals[1][1][-1], whatever seat 0's
    or seat 3's last card is."""
    p1 = plan_for([4, 3, 3, 3], "S", dealer=0)
    p2 = plan_for([3, 4, 3, 3], "H", dealer=1)               # shown card: a diamond
    # make the other seats' last cards misleading (hearts/clubs, never diamonds)
    for s in (0, 2, 3):
        h = p2.deal[s]
        c = next(c for c in h if c[1] == "C")
        h.remove(c)
        h.append(c)
    m = new_match("tarneeb41", seed=1, deals=[p1.deal, p2.deal])
    hand(m, p1, {1: 3, 2: 3, 3: 3, 0: 4})
    v = m.view(None)
    assert v["dealer"] == 1 and v["round"] == 2
    assert v["shown_card"] == p2.deal[1][-1] and v["shown_card"][1] == "D"
    assert v["trump"] == "H"
    assert m.to_act == 2


def test_T5_views_show_only_own_cards():
    plan = plan_for([4, 3, 3, 3], "S", dealer=0)
    m = new_match("tarneeb41", seed=1, deals=[plan.deal])
    assert m.view(None)["hand"] == []
    for s in range(4):
        v = m.view(s)
        assert sorted(v["hand"]) == sorted(plan.deal[s])
        text = json.dumps(v)
        for o in range(4):
            if o == s:
                continue
            for c in plan.deal[o]:
                if c == plan.shown_card:
                    continue
                assert f'"{c}"' not in text, (s, c)


# --------------------------------------------------------------------------- scoring

def test_T18_made_adds_declaration_failed_subtracts_it():
    plan = plan_for([1, 7, 3, 2], "S", dealer=0)
    m = new_match("tarneeb41", seed=1, deals=[plan.deal])
    rec = hand(m, plan, {1: 5, 2: 4, 3: 2, 0: 2})
    # 1: declared 5 took 7 -> +5 (extra tricks add nothing); 2: declared 4 took 3 -> -4
    # 3: 2 of 2 -> +2; 0: declared 2 took 1 -> -2
    assert rec["scores"] == [-2, 5, -4, 2]
    assert rec["made"] == [False, True, False, True]
    assert list(m.totals) == [-2, 5, -4, 2]
    v = m.view(None)
    assert v["team_totals"] == [-6, 7]
    assert v["round"] == 2 and v["dealer"] == 1                  # T-3
    assert m.result is None


def test_T12_T13_dealer_has_no_other_condition_on_the_total():
    m = new_match("tarneeb41", seed=1)
    declare_all(m, [(1, 5), (2, 4), (3, 2)])
    assert m.to_act == 0
    assert sorted(a["n"] for a in m.legal_actions(0)) == list(range(2, 14))   # 2 (=13) allowed
    assert m.view(0)["forbidden"] is None
    declare_all(m, [(0, 2)])
    assert phase(m) == "play" and m.to_act == 1


def test_T13_total_under_11_voids_the_hand_which_is_not_numbered():
    p1 = plan_for([4, 3, 3, 3], "S", dealer=0)
    p2 = plan_for([1, 7, 3, 2], "S", dealer=1)
    m = new_match("tarneeb41", seed=1, deals=[p1.deal, p2.deal])
    declare_all(m, [(1, 2), (2, 2), (3, 2), (0, 4)])             # total 10
    assert len(m.history) == 1
    rec = m.history[0]
    assert rec["void"] is True and rec["declarations"] == [4, 2, 2, 2]
    assert rec["dealer"] == 0 and rec["shown_card"] == p1.shown_card
    v = m.view(None)
    assert v["round"] == 1                                       # not numbered
    assert v["dealer"] == 1                                      # deal passes on
    assert list(m.totals) == [0, 0, 0, 0]
    assert v["phase"] == "declare" and m.to_act == 2
    assert v["shown_card"] == p2.deal[1][-1]                     # the next deal is used
    for s in range(4):
        assert sorted(m.view(s)["hand"]) == sorted(p2.deal[s])
    rec = hand(m, p2, {2: 4, 3: 2, 0: 2, 1: 5})                  # total 13
    assert rec["scores"] == [-2, 5, -4, 2] and rec.get("void") in (False, None)
    assert m.view(None)["round"] == 2 and m.view(None)["dealer"] == 2


def test_T13_total_exactly_11_is_played():
    plan = plan_for([4, 3, 2, 4], "D", dealer=0)
    m = new_match("tarneeb41", seed=1, deals=[plan.deal])
    rec = hand(m, plan, {1: 2, 2: 2, 3: 2, 0: 5})
    assert rec.get("void") in (False, None)
    # 0: 5, took 4: -5; 1: 2 of 3: +2; 2: 2 of 2: +2; 3: 2, took 4: +2
    assert rec["scores"] == [-5, 2, 2, 2]


# --------------------------------------------------------------------------- winning

TRUMPS = ["S", "H", "D", "C"]


def _play_hands(script, extra_checks=None):
    """script: list of (decl_by_seat, tricks); dealer of hand k is (k-1) % 4."""
    plans = [plan_for(tr, TRUMPS[k % 4], dealer=k % 4) for k, (_, tr) in enumerate(script)]
    m = new_match("tarneeb41", seed=1, deals=[p.deal for p in plans])
    totals_seen = []
    for k, ((decl, _), p) in enumerate(zip(script, plans, strict=False)):
        assert m.result is None, f"match ended before hand {k + 1}"
        assert m.view(None)["round"] == k + 1 and m.view(None)["dealer"] == k % 4
        hand(m, p, decl)
        totals_seen.append(list(m.totals))
    return m, totals_seen


def test_T20_T21_41_with_partner_at_0_does_not_qualify():
    A = ({1: 11, 2: 2, 3: 2, 0: 2}, [0, 11, 0, 2])     # 1 +11, 3 +2, 0 -2, 2 -2
    B = ({1: 13, 2: 2, 3: 2, 0: 2}, [0, 13, 0, 0])     # 1 +13, others -2
    m, seen = _play_hands([A, B, B, A])
    assert seen == [[-2, 11, -2, 2], [-4, 24, -4, 0], [-6, 37, -6, -2], [-8, 48, -8, 0]]
    # seat 1 has 48 but partner 3 has exactly 0: T-21, the match goes on
    assert m.result is None and m.to_act is not None
    assert m.view(None)["round"] == 5
    m2, _ = _play_hands([A, B, B, A, A])
    assert list(m2.totals) == [-10, 59, -10, 2]
    assert m2.result == {"winners": [1, 3], "draw": False}        # T-20/T-22
    assert m2.to_act is None and m2.view(None)["phase"] == "over"


def test_T20_exactly_41_with_partner_at_1_qualifies():
    A = ({1: 11, 2: 2, 3: 2, 0: 2}, [0, 11, 0, 2])     # 1 +11, 3 +2, 0 -2, 2 -2
    B = ({1: 13, 2: 2, 3: 2, 0: 2}, [0, 13, 0, 0])     # 1 +13, others -2
    C = ({0: 2, 1: 4, 2: 2, 3: 3}, [6, 4, 0, 3])       # 0 +2, 1 +4, 2 -2, 3 +3
    m, seen = _play_hands([B, B, A, C])
    assert seen == [[-2, 13, -2, -2], [-4, 26, -4, -4], [-6, 37, -6, -2], [-4, 41, -8, 1]]
    assert m.result == {"winners": [1, 3], "draw": False}
    assert m.view(None)["team_totals"] == [-12, 42]


def test_T20_41_with_partner_negative_does_not_qualify():
    B = ({1: 13, 2: 2, 3: 2, 0: 2}, [0, 13, 0, 0])
    m, seen = _play_hands([B, B, B, B])
    assert seen[-1] == [-8, 52, -8, -8]
    assert m.result is None and m.to_act is not None


def test_T23_both_qualify_on_equal_totals_plays_an_extra_hand():
    X = ({0: 9, 1: 2, 2: 2, 3: 2}, [9, 2, 2, 0])       # +9 +2 +2 -2
    Y = ({0: 2, 1: 9, 2: 2, 3: 2}, [2, 9, 0, 2])       # +2 +9 -2 +2
    Z = ({0: 6, 1: 6, 2: 2, 3: 2}, [6, 6, 0, 1])       # +6 +6 -2 -2
    F = ({0: 3, 1: 3, 2: 3, 3: 3}, [4, 3, 3, 3])       # +3 each
    G = ({0: 4, 1: 3, 2: 2, 3: 2}, [4, 3, 3, 3])       # +4 +3 +2 +2
    m, seen = _play_hands([X, Y, X, Y, X, Y, Z, F])
    assert seen[-2] == [39, 39, -2, -2]
    assert seen[-1] == [42, 42, 1, 1]
    # both teams qualify (42 with partner 1), 43 = 43: one extra hand
    assert m.view(None)["team_totals"] == [43, 43]
    assert m.result is None and m.to_act is not None
    assert m.view(None)["round"] == 9
    m, seen = _play_hands([X, Y, X, Y, X, Y, Z, F, G])
    assert seen[-1] == [46, 45, 3, 3]
    # both still qualify; 49 > 48: seats 0 and 2 win
    assert m.result == {"winners": [0, 2], "draw": False}
    assert m.to_act is None


# --------------------------------------------------------------------------- T-25 timer

def test_T25_auto_declarations():
    m = new_match("tarneeb41", seed=1)
    assert m.auto_action(1) == declare(2)
    run(m, [(1, declare(2))])
    assert m.auto_action(2) == declare(2)
    run(m, [(2, declare(2)), (3, declare(2))])
    assert m.auto_action(0) == declare(5)                # brings the total to 11
    cases = [((5, 4, 2), 2), ((2, 3, 2), 4), ((13, 2, 2), 2), ((4, 2, 2), 3), ((3, 3, 3), 2)]
    for (a, b, c), want in cases:
        m = new_match("tarneeb41", seed=1)
        run(m, [(1, declare(a)), (2, declare(b)), (3, declare(c))])
        assert m.auto_action(0) == declare(want), ((a, b, c), want)


def test_T25_auto_play_weakest_legal_card():
    deal = [
        # dealer 0: its last card 3C is shown -> trump S
        ["6S", "5S", "AD", "QD", "JD", "TD", "8D", "7D", "6D", "4D", "2D", "2C", "3C"],
        ["2S", "3S", "4S", "3D", "3H", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC"],
        ["5D", "9D", "KD", "AC", "KC", "TH", "9H", "8H", "7H", "6H", "5H", "2H", "7S"],
        ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "4C", "4H", "AH", "KH", "QH", "JH"],
    ]
    assert sorted(c for h in deal for c in h) == sorted(r + s for r in "AKQJT98765432" for s in "SHDC")
    m = new_match("tarneeb41", seed=1, deals=[deal])
    assert m.view(None)["shown_card"] == "3C" and m.view(None)["trump"] == "S"
    run(m, [(1, declare(2)), (2, declare(2)), (3, declare(2))])
    a = m.auto_action(0)
    assert a == declare(5)
    m.apply(0, a)
    # trick 1: seat 1 leads.  Lowest non-trump: 3D and 3H tie on rank, diamonds first
    # (2S is lower but a trump)
    steps = [(1, "3D"), (2, "5D"), (3, "4C"), (0, "2D")]
    for seat, want in steps:
        assert m.to_act == seat
        a = m.auto_action(seat)
        assert a == play(want), (seat, a, want)
        m.apply(seat, a)
    assert m.view(None)["tricks"][0]["winner"] == 2
    # trick 2: 2 leads its weakest (2H); 3 follows with 4H; 0 is void in hearts:
    # lowest non-trump 2C; 1 follows 3H
    for seat, want in [(2, "2H"), (3, "4H"), (0, "2C"), (1, "3H")]:
        assert m.to_act == seat
        a = m.auto_action(seat)
        assert a == play(want), (seat, a, want)
        m.apply(seat, a)
    assert m.view(None)["tricks"][1]["winner"] == 3
    # trick 3: 3 leads a trump; every legal card of the others is a trump -> lowest trump
    run(m, [(3, play("AS"))])
    for seat, want in [(0, "5S"), (1, "2S"), (2, "7S")]:
        a = m.auto_action(seat)
        assert a == play(want), (seat, a, want)
        m.apply(seat, a)


def test_T15_T16_follow_suit_and_trump_wins():
    deal = [
        ["6S", "5S", "AD", "QD", "JD", "TD", "8D", "7D", "6D", "4D", "2D", "2C", "3C"],
        ["2S", "3S", "4S", "3D", "3H", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC"],
        ["5D", "9D", "KD", "AC", "KC", "TH", "9H", "8H", "7H", "6H", "5H", "2H", "7S"],
        ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "4C", "4H", "AH", "KH", "QH", "JH"],
    ]
    m = new_match("tarneeb41", seed=1, deals=[deal])
    run(m, [(1, declare(2)), (2, declare(2)), (3, declare(2)), (0, declare(5))])
    run(m, [(1, play("3H"))])
    assert {a["card"] for a in m.legal_actions(2)} == {"TH", "9H", "8H", "7H", "6H", "5H", "2H"}
    before = snapshot(m)
    with pytest.raises(IllegalAction):
        m.apply(2, play("AC"))
    assert snapshot(m) == before
    run(m, [(2, play("TH")), (3, play("AH"))])
    assert len(m.legal_actions(0)) == 13                          # void: anything
    run(m, [(0, play("5S"))])                                     # lowest trump beats AH
    assert m.view(None)["tricks"][0]["winner"] == 0 and m.to_act == 0


def test_T24_illegal_play_refused():
    plan = plan_for([4, 3, 3, 3], "S", dealer=0)
    m = new_match("tarneeb41", seed=1, deals=[plan.deal])
    for seat, act in [(2, declare(3)), (1, play(plan.deal[1][0]))]:
        before = snapshot(m)
        with pytest.raises(IllegalAction):
            m.apply(seat, act)
        assert snapshot(m) == before


def test_leave_has_no_effect_in_tarneeb():
    plan = plan_for([4, 3, 3, 3], "S", dealer=0)
    m = new_match("tarneeb41", seed=1, deals=[plan.deal])
    run(m, [(1, declare(3))])
    m.leave(2)
    assert m.result is None and m.to_act == 2
    run(m, [(2, declare(3)), (3, declare(3)), (0, declare(4))])
    rec = play_plan(m, plan)
    assert rec["scores"] == [4, 3, 3, 3]


def test_replay_round_trip_tarneeb():
    p1 = plan_for([4, 3, 3, 3], "S", dealer=0)
    m = new_match("tarneeb41", seed=1, deals=[p1.deal])
    declare_all(m, [(1, 2), (2, 2), (3, 2), (0, 2)])              # void
    declare_all(m, [(2, 3)])
    d = json.loads(json.dumps(m.to_dict()))
    assert snapshot(replay(d)) == snapshot(m)
    assert snapshot(replay(d["game"], d["length"], d["seed"], d["deals"], d["log"])) == snapshot(m)
