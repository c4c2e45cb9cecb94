"""Duplicate events' rules (engine/duplicate.py): a board is one round played once,
the computer players reply alike to entrants who play alike, and matchpoints, board
percentages and standings come out as worked by hand."""

from __future__ import annotations

import random

import pytest

from engine import new_match, replay
from engine.bots import choose
from engine.duplicate import (
    ALONE,
    BoardResult,
    Played,
    board_result,
    board_seed,
    common_bids,
    decision_seed,
    distribution,
    matchpoints,
    percentages,
    plan,
    result_of,
    standings,
)
from engine.match import check_board

# ---------------------------------------------------------------- the boards


def test_the_plan_of_each_game():
    est = [plan("estimation", 8, k) for k in range(1, 9)]
    # 8 × 5/18 ≈ 2 fast rounds, last, in the match's trump order; dealers go round
    assert [(b["kind"], b["trump"]) for b in est] == [("auction", None)] * 6 + [
        ("fast", "NT"), ("fast", "S")]
    assert [b["dealer"] for b in est] == [0, 1, 2, 3, 0, 1, 2, 3]
    eighteen = [plan("estimation", 18, k) for k in range(1, 19)]
    assert [b["trump"] for b in eighteen[13:]] == ["NT", "S", "H", "D", "C"]
    assert all(b["kind"] == "auction" for b in eighteen[:13])
    kot = [plan("estimation-kotshina", 8, k) for k in range(1, 9)]
    assert [(b["kind"], b["trump"]) for b in kot] == [
        ("fixed", t) for t in ("NT", "S", "H", "D", "C", "NT", "S", "H")]
    assert [plan("tarneeb41", 4, k) for k in range(1, 5)] == [
        {"kind": "hand", "trump": None, "dealer": d} for d in range(4)]
    with pytest.raises(ValueError):
        plan("estimation", 8, 9)


@pytest.mark.parametrize("board", [
    {"kind": "fixed", "trump": "H", "dealer": 0},       # the calculator's kind
    {"kind": "fast", "trump": None, "dealer": 0},       # a fast round names its trump
    {"kind": "auction", "trump": "S", "dealer": 0},     # an auction round names none
    {"kind": "auction", "trump": None, "dealer": 4},
    {"kind": "auction", "trump": None, "dealer": True},
    "auction",
])
def test_a_board_that_is_not_one_of_estimation_is_refused(board):
    with pytest.raises(ValueError):
        check_board("estimation", board)
    with pytest.raises(ValueError):
        new_match("estimation", seed=1, board=board)


def play_out(m, choose_for):
    while m.to_act is not None:
        s = m.to_act
        m.apply(s, choose_for(m, s))
    return m


def first_legal(m, seat):
    """The first legal action; a Tarneeb declaration of 3 (four 2s would void every
    hand, T-13, for ever)."""
    legal = m.legal_actions(seat)
    if m.game == "tarneeb41" and m.phase == "declare":
        return legal[1]
    return legal[0]


@pytest.mark.parametrize("game,board", [
    ("estimation", {"kind": "auction", "trump": None, "dealer": 2}),
    ("estimation", {"kind": "fast", "trump": "H", "dealer": 3}),
    ("estimation-kotshina", {"kind": "fixed", "trump": "D", "dealer": 1}),
    ("estimation-kotshina", {"kind": "auction", "trump": None, "dealer": 0}),
    ("tarneeb41", {"kind": "hand", "trump": None, "dealer": 1}),
])
def test_a_board_is_that_one_round_played_to_its_end(game, board):
    m = new_match(game, seed=11, board=board)
    v = m.view(0)
    assert v["dealer"] == board["dealer"]
    if game != "tarneeb41":
        assert v["rounds"] == 1 and v["kind"] == board["kind"]
        assert v["fixed_trump"] == board["trump"]
        assert v["multiplier"] == 1
    play_out(m, first_legal)
    assert m.result is not None and m.phase == "over"
    scored = [r for r in m.history if not r.get("void")]
    assert len(scored) == 1
    rec = scored[0]
    if game != "tarneeb41":
        assert rec["kind"] == board["kind"] and rec["dealer"] == board["dealer"]
        if board["trump"] is not None:
            assert rec["fixed_trump"] == board["trump"]
    for seat in range(4):
        assert board_result(m, seat).score == rec["scores"][seat]
    # the record rebuilds the same board
    again = replay(m.to_dict())
    assert again.to_dict() == m.to_dict() and again.result == m.result
    assert m.to_dict()["board"] == board


def test_the_same_seed_deals_the_same_cards_and_another_board_others():
    b = plan("estimation", 8, 1)
    one = new_match("estimation", seed=board_seed(7, 1), board=b)
    two = new_match("estimation", seed=board_seed(7, 1), board=b)
    other = new_match("estimation", seed=board_seed(7, 2), board=b)
    assert [one.view(s)["hand"] for s in range(4)] == [two.view(s)["hand"] for s in range(4)]
    assert one.view(0)["hand"] != other.view(0)["hand"]
    assert board_seed(7, 1) != board_seed(8, 1)


def test_a_void_tarneeb_board_is_dealt_again_from_its_seed():
    """T-13: under 11 declared, the next player deals a new shuffle; on a board the new
    shuffle comes from the board's seed, so everyone who voids it gets the same."""
    b = {"kind": "hand", "trump": None, "dealer": 0}
    hands = []
    for _ in range(2):
        m = new_match("tarneeb41", seed=board_seed(3, 1), board=b)
        for _ in range(4):
            m.apply(m.to_act, {"type": "declare", "n": 2})      # 8 < 11: void
        assert m.history[-1]["void"] and m.dealer == 1
        hands.append(m.view(0)["hand"])
        play_out(m, first_legal)
        assert len([r for r in m.history if not r["void"]]) == 1
    assert hands[0] == hands[1]


def test_tarneeb_board_result_is_personal_with_the_side_beside():
    m = play_out(new_match("tarneeb41", seed=5, board={"kind": "hand", "trump": None,
                                                        "dealer": 0}), first_legal)
    rec = next(r for r in m.history if not r["void"])
    for seat in range(4):
        r = board_result(m, seat)
        assert r.score == rec["scores"][seat]
        assert r.side == rec["scores"][seat] + rec["scores"][seat ^ 2]
        assert r.declared == rec["declarations"][seat]


# ---------------------------------------------------------------- the computer players

def bot_board(game, board, seed, samples, human_policy, perf_counter=None):
    m = new_match(game, seed=seed, board=board)

    def choose_for(m, seat):
        if seat == 0:
            return human_policy(m, seat)
        return choose(m.view(seat), "strong", 100, random.Random(decision_seed(seed, m.log)),
                      samples=samples)
    return play_out(m, choose_for)


@pytest.mark.parametrize("game,board", [
    ("estimation", {"kind": "auction", "trump": None, "dealer": 1}),
    ("estimation-kotshina", {"kind": "fixed", "trump": "S", "dealer": 2}),
    ("tarneeb41", {"kind": "hand", "trump": None, "dealer": 3}),
])
def test_computer_players_reply_alike_to_entrants_who_play_alike(game, board, monkeypatch):
    """The same board played alike: the same replies, whatever the clock says (the
    budget is in samples; a clock that jumps a second a call would stop a timed
    search after its first sample)."""
    seed = board_seed(42, 1)
    first = bot_board(game, board, seed, 24, first_legal)
    import types

    import engine.bots.montecarlo as mc
    ticks = iter(range(10**9))
    monkeypatch.setattr(mc, "time", types.SimpleNamespace(
        perf_counter=lambda: float(next(ticks))))
    second = bot_board(game, board, seed, 24, first_legal)
    assert first.log == second.log
    # an entrant who plays otherwise meets other replies
    third = bot_board(game, board, seed, 24, lambda m, s: m.legal_actions(s)[-1])
    assert third.log != first.log


def test_a_timed_search_is_what_the_sample_budget_replaces():
    """The check above can fail: timed, the same view under another clock may get
    another card (here the clock allows one sample against the budget's 64)."""
    seed = board_seed(42, 1)
    m = new_match("estimation", seed=seed, board={"kind": "auction", "trump": None,
                                                  "dealer": 0})
    differs = 0
    while m.to_act is not None:
        s = m.to_act
        v = m.view(s)
        a = choose(v, "strong", 100, random.Random(decision_seed(seed, m.log)), samples=64)
        if v["phase"] == "play" and len(v["legal"]) > 2:
            b = choose(v, "strong", 0.001, random.Random(decision_seed(seed, m.log)))
            differs += a != b
            if differs:
                break               # one is enough (the rest of the round costs seconds)
        m.apply(s, a)
    assert differs >= 1


def test_decision_seeds_follow_the_board_and_its_log():
    log = [(1, {"type": "dash", "take": False}), (2, {"type": "pass"})]
    assert decision_seed(5, log) == decision_seed(5, [(1, {"take": False, "type": "dash"}),
                                                     (2, {"type": "pass"})])
    assert decision_seed(5, log) != decision_seed(6, log)
    assert decision_seed(5, log) != decision_seed(5, log[:1])


# ---------------------------------------------------------------- matchpoints

def test_matchpoints_by_hand():
    # 2 for each score below, 1 for each other equal, out of 2 × (n − 1)
    assert matchpoints([10, 5, 5, -3]) == [100.0, 50.0, 50.0, 0.0]
    assert matchpoints([7, 7]) == [50.0, 50.0]
    assert matchpoints([3, 9, 1]) == [50.0, 100.0, 0.0]
    assert [round(x, 2) for x in matchpoints([4, 4, 4, 2])] == [66.67, 66.67, 66.67, 0.0]
    assert matchpoints([12]) == [ALONE]


def test_a_board_is_compared_within_a_seat():
    results = [Played("a", 1, 0, 10), Played("b", 1, 0, 20), Played("c", 1, 2, -5),
               Played("d", 1, 2, 30), Played("e", 1, 2, 30), Played("a", 2, 0, 1)]
    pct = percentages(results)
    assert pct[("a", 1)] == 0.0 and pct[("b", 1)] == 100.0      # seat 0: a < b
    assert pct[("c", 1)] == 0.0                                   # seat 2: c < d = e
    assert pct[("d", 1)] == 75.0 and pct[("e", 1)] == 75.0       # (2 + 1) / 4
    assert pct[("a", 2)] == ALONE                                 # alone on board 2


def test_standings_by_hand():
    """Three boards. Board 1: a 10, b 4, c 4 → a 100, b 25, c 25. Board 2: a 0, b 8,
    c 8 → a 0, b 75, c 75. Board 3: a 6, b 6 → a 50, b 50; c did not play it (0).
    a: 150/3 = 50; b: 150/3 = 50; c: 100/3 = 33.33. a and b share rank 1, b first (three
    boards each: then by name), c third."""
    results = [Played("a", 1, 0, 10), Played("b", 1, 0, 4), Played("c", 1, 0, 4),
               Played("a", 2, 0, 0), Played("b", 2, 0, 8), Played("c", 2, 0, 8),
               Played("a", 3, 0, 6), Played("b", 3, 0, 6)]
    rows = standings(3, results)
    assert [(r.rank, r.entrant, r.percent, r.boards) for r in rows] == [
        (1, "a", 50.0, 3), (1, "b", 50.0, 3), (3, "c", 33.33, 2)]


def test_the_field_at_a_glance():
    assert distribution([3, 10, 3, -2]) == [(10, 1), (3, 2), (-2, 1)]
    said = [BoardResult(10, None, 4, True, "caller", "4S", 4),
            BoardResult(-4, None, 4, False, "caller", "4S", 5),
            BoardResult(3, None, 3, True, "", None, 3),
            BoardResult(0, None, 0, True, "dash", None, 0)]
    assert common_bids(said) == [(("caller", 4, "4S"), 2, 1), (("", 3, None), 1, 1),
                                 (("dash", 0, None), 1, 1)]


def test_a_result_read_from_a_views_history():
    m = play_out(new_match("estimation", seed=9, board={"kind": "auction", "trump": None,
                                                         "dealer": 0}),
                 lambda m, s: m.legal_actions(s)[-1])
    brief = m.view(0)["history"]
    assert "tricks" not in brief[0]
    for seat in range(4):
        assert result_of(brief, seat) == board_result(m, seat)
