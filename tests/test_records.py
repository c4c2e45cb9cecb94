"""What a finished match pays (engine.records): E-38 … E-40, the calculator scoring's
and Tarneeb 41's Decisions, and ranked play as the 18-round match (issue 33)."""

from __future__ import annotations

import pytest
from stacked import random_match

from engine.records import BADGE_WINS, badge_due, counts_for_badge, match_record, ranked


def test_ranked_play_is_the_18_round_match() -> None:
    assert ranked("estimation", 18) and ranked("estimation", None)
    assert not ranked("estimation", 13) and not ranked("estimation", 24)
    assert ranked("tarneeb41", None)
    assert not any(ranked("estimation-kotshina", n) for n in ("micro", "mini", "full"))
    # The calculator scoring pays no level points but counts towards Estimation's badge.
    assert counts_for_badge("estimation-kotshina", "micro")
    assert not counts_for_badge("estimation", 13) and counts_for_badge("estimation", 18)


def decisive(game: str, length: object) -> object:
    return next(m for m in (random_match(game, length, seed) for seed in range(1, 60))
                if not m.result["draw"])


@pytest.mark.parametrize("game,length,win,loss", [("estimation", 18, 30, -4),
                                                   ("estimation", 13, 0, 0),
                                                   ("estimation", 24, 0, 0),
                                                   ("tarneeb41", None, 20, -4),
                                                   ("estimation-kotshina", "micro", 0, 0)])
def test_what_each_kind_of_match_pays(game: str, length: object, win: int, loss: int) -> None:
    m = decisive(game, length)
    rec = match_record(m, people_throughout=True)
    counted = counts_for_badge(game, length)
    for seat, r in rec.items():
        won = seat in m.result["winners"]
        assert r.outcome == ("win" if won else "loss")
        assert r.level_points == (win if won else loss)
        assert r.counted_win == (won and counted)
        assert r.stats.rounds == len([h for h in m.history if not h.get("void")])
    # A computer player at any time: statistics only (E-38's Decision).
    assert all(r.level_points == 0 and not r.counted_win
               for r in match_record(m, people_throughout=False).values())


def test_a_draw_in_ranked_estimation_pays_ten() -> None:
    m = next(m for m in (random_match("estimation", 18, seed) for seed in range(1, 400))
             if m.result["draw"])
    rec = match_record(m, people_throughout=True)
    for seat in m.result["winners"]:
        assert rec[seat].outcome == "draw" and rec[seat].level_points == 10


def test_statistics_count_declarations_calls_and_dash_calls() -> None:
    m = random_match("estimation", 18, seed=7)
    for seat, r in match_record(m, people_throughout=False).items():
        played = [h for h in m.history if seat not in h["dash_players"]]
        assert r.stats.declarations == len(played)
        assert r.stats.declarations_made == sum(h["made"][seat] for h in played)
        dash = [h for h in m.history if seat in h["dash_players"]]
        assert r.stats.dash_calls == len(dash)
        assert r.stats.dash_calls_made == sum(h["tricks_taken"][seat] == 0 for h in dash)
        calls = [h for h in played if h["caller"] == seat and not h["all_pass"]]
        assert r.stats.calls == len(calls)


def test_the_badge_comes_at_the_fifth_counted_win() -> None:
    assert BADGE_WINS == 5
    assert not badge_due(4) and badge_due(5)
