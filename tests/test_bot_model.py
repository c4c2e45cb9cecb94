"""The strong player's model of the other seats (issue 31): it reads only the view, it
learns a style from what a seat has shown, and what it learns changes the play."""

from __future__ import annotations

import random

import pytest

from engine import bots, new_match, replay
from engine.bots import model, styles
from engine.bots import montecarlo as mc

bots.STRICT = True
GREEDY = model.NAMES.index("greedy")
RANDOM = model.NAMES.index("random")

# Round 1 of an Estimation match (committee, 13 rounds). Seat 0 is ours; seats 1-3 play
# the greedy style. Trump hearts, seat 3 the caller with 4. Seat 3 has its four by
# trick 7, then cashes the K♠ (trick 8) and ruffs the T♣ it did not need (trick 10):
# it keeps winning past its number. Seat 0 declared 3, has 2, and leads trick 11 from
# Q♥ T♦ 7♦: the Q♥ is the highest trump left and both diamonds are the last two in
# play. Playing to its number it wants one trick and no more. In the sampler's deals
# (on the true one every card makes exactly 3: seat 3 holds only hearts and ruffs
# both diamonds whatever its style): against a seat that ducks once its number is
# made, leading the Q♥ now leaves it on lead with two diamonds nobody can follow (the
# others would throw cards under them): too many tricks; so it leads a diamond first. Against a seat that keeps winning, a diamond
# led is ruffed by seat 3 (it holds three trumps), so the Q♥ now takes the one trick
# and seat 3 takes the diamonds after it.
DEAL = [["3S", "5D", "6D", "7D", "7H", "8S", "AS", "JC", "JD", "KH", "QC", "QH", "TD"],
        ["2D", "3C", "4C", "4D", "4S", "5S", "6C", "8C", "8D", "9H", "AH", "TC", "TS"],
        ["2C", "2H", "2S", "5C", "5H", "6S", "7S", "9C", "9D", "AC", "JS", "QD", "TH"],
        ["3D", "3H", "4H", "6H", "7C", "8H", "9S", "AD", "JH", "KC", "KD", "KS", "QS"]]
LOG = [[1, {"type": "dash", "take": False}], [2, {"type": "dash", "take": False}],
       [3, {"type": "dash", "take": False}], [0, {"type": "dash", "take": False}],
       [1, {"type": "bid", "n": 4, "suit": "C"}], [2, {"type": "pass"}],
       [3, {"type": "bid", "n": 4, "suit": "H"}], [0, {"type": "pass"}], [1, {"type": "pass"}],
       [3, {"type": "call", "n": 4, "suit": "H"}], [0, {"type": "declare", "n": 3}],
       [1, {"type": "declare", "n": 2}], [2, {"type": "declare", "n": 2}]] + [
    [s, {"type": "play", "card": c}] for s, c in [
        (3, "AD"), (0, "5D"), (1, "2D"), (2, "9D"), (3, "KD"), (0, "6D"), (1, "4D"), (2, "QD"),
        (3, "9S"), (0, "AS"), (1, "4S"), (2, "2S"), (0, "JD"), (1, "8D"), (2, "2H"), (3, "3D"),
        (2, "AC"), (3, "7C"), (0, "JC"), (1, "3C"), (2, "6S"), (3, "QS"), (0, "3S"), (1, "5S"),
        (3, "KC"), (0, "QC"), (1, "4C"), (2, "2C"), (3, "KS"), (0, "8S"), (1, "TS"), (2, "7S"),
        (3, "3H"), (0, "KH"), (1, "AH"), (2, "5H"), (1, "TC"), (2, "5C"), (3, "4H"),
        (0, "7H")]]


def _position():
    m = replay("estimation", 13, deals=[DEAL], log=LOG)
    assert m.to_act == 0
    return m.view(0)


def _decide(v, read, samples=300):
    old = bots.READ_TABLE, bots.SAMPLES
    bots.READ_TABLE, bots.SAMPLES = read, samples
    try:
        # A fixed number of samples (the budget only a ceiling): no timing in the test.
        return bots.choose(v, "strong", budget_ms=60_000, rng=random.Random(7))
    finally:
        bots.READ_TABLE, bots.SAMPLES = old


def test_the_model_sees_that_a_seat_keeps_winning_past_its_number():
    v = _position()
    assert v["declarations"][3] == 4 and v["tricks_taken"][3] == 5
    w = model.weights(v)
    assert w[3][GREEDY] > 0.8
    # The others have not shown it: their weight on greedy stays far lower.
    assert w[1][GREEDY] < 0.5 and w[2][GREEDY] < 0.5


# The two tests below are of the model's picture of the seats as the sampler alone
# draws it (the play not read: ``PLAY_STEPS`` 0). Reading the play places the last
# nine cards nearer where they are, and there the Q♥ and a diamond both make exactly
# the number (every card scores 16 on the true deal): the choice is then a tie, as it
# should be (``test_the_play_read_brings_the_cards_values_near_the_true_deals``).
def test_strong_leads_the_trump_when_the_winner_past_its_number_will_ruff(monkeypatch):
    monkeypatch.setattr(mc, "PLAY_STEPS", 0)
    v = _position()
    assert _decide(v, read=True) == {"type": "play", "card": "QH"}
    # Without the model (every seat assumed to duck once its number is made) it leads a
    # diamond: this test fails if the model is switched off.
    assert _decide(v, read=False)["card"] in ("TD", "7D")


@pytest.mark.parametrize("rng_seed", [1, 2, 3])
def test_expected_points_follow_the_weights(rng_seed, monkeypatch):
    """The component the review will call: expected points per card under the weights."""
    monkeypatch.setattr(mc, "PLAY_STEPS", 0)
    v = _position()
    w = model.weights(v)
    read = model.expected_points(v, 60_000, random.Random(rng_seed), w, samples=300)
    plain = [[1.0 if k == model.NUM else 0.0 for k in range(model.K)] for _ in range(4)]
    naive = model.expected_points(v, 60_000, random.Random(rng_seed), plain, samples=300)
    assert set(read) == set(naive) == {"QH", "TD", "7D"}
    assert read["TD"] == read["7D"] and naive["TD"] == naive["7D"]    # touching: one value
    assert max(read, key=read.get) == "QH"
    assert max(naive, key=naive.get) != "QH"


def test_the_play_read_brings_the_cards_values_near_the_true_deals():
    # On the true deal every card scores 16 (seat 0 makes its 3 whichever it leads);
    # the sampler alone puts the Q♥ near 19.
    v = _position()
    w = model.weights(v)
    for rng_seed in (1, 2, 3):
        read = model.expected_points(v, 60_000, random.Random(rng_seed), w, samples=300)
        assert all(abs(x - 16) < 1.2 for x in read.values()), read
    old = mc.PLAY_STEPS
    mc.PLAY_STEPS = 0
    try:
        plain = model.expected_points(v, 60_000, random.Random(1), w, samples=300)
    finally:
        mc.PLAY_STEPS = old
    assert plain["QH"] - 16 > 2, plain


def style_match_views(game, length, names, seed, rounds):
    """Every view of every seat's turn in a match of the named styles."""
    m = new_match(game, length, seed=seed)
    pols = [styles.policy(n, budget_ms=3) for n in names]
    rngs = [random.Random(seed * 4 + s) for s in range(4)]
    while m.to_act is not None and len(m.history) < rounds:
        s = m.to_act
        v = m.view(s)
        yield m, v
        m.apply(s, pols[s](v, rngs[s]))


@pytest.mark.parametrize("game,length", [("estimation", 13), ("estimation-kotshina", "micro"),
                                         ("tarneeb41", None)])
def test_the_model_reads_only_what_every_seat_sees(game, length):
    """The events the model reads are the same from every seat and from a spectator's
    view: nothing in them comes from a hand."""
    n = 0
    names = ["greedy", "easy", "random", "cautious"]
    for i, (m, _v) in enumerate(style_match_views(game, length, names, 5, 2)):
        if i % 3:
            continue
        spectator = model.view_events(m.view(None))
        for s in range(4):
            assert model.view_events(m.view(s)) == spectator
        n += bool(spectator)
    assert n > 15


def test_the_same_view_gives_the_same_answer_whatever_the_hidden_cards():
    """Two deals that differ only in cards two other seats never play before the
    decision: the same view, the same weights, the same expected points and choice."""
    v = _position()
    # Seats 1 and 2 swap two unplayed cards of the same suit (9H and TH): each still
    # holds a heart, so every card played so far stays legal.
    deal = [list(h) for h in DEAL]
    deal[1][deal[1].index("9H")] = "TH"
    deal[2][deal[2].index("TH")] = "9H"
    m2 = replay("estimation", 13, deals=[deal], log=LOG)
    v2 = m2.view(0)
    assert v2 == v
    assert model.weights(v2) == model.weights(v)
    a = model.expected_points(v, 60_000, random.Random(4), samples=100)
    b = model.expected_points(v2, 60_000, random.Random(4), samples=100)
    assert a == b
    assert _decide(v, True, 100) == _decide(v2, True, 100)


def test_a_random_player_is_told_from_the_first_rounds():
    """Seats of the random style are read as random within two rounds, and a seat of
    our own players is not."""
    last = None
    for m, v in style_match_views("estimation", 13, ["easy", "random", "normal", "random"], 11, 3):
        if m.to_act == 0 and v["phase"] == "play" and len(m.history) == 2:
            last = model.weights(v)
    assert last is not None
    assert last[1][RANDOM] > 0.9 and last[3][RANDOM] > 0.9
    assert last[2][RANDOM] < 0.05


def test_weights_are_a_distribution_per_seat_and_the_own_seat_is_ours():
    for _m, v in style_match_views("tarneeb41", None, ["easy", "greedy", "over", "dash"], 3, 2):
        seat = v["seat"]
        w = model.weights(v)
        assert len(w) == 4 and all(len(ws) == model.K for ws in w)
        for ws in w:
            assert abs(sum(ws) - 1.0) < 1e-9 and min(ws) >= 0.0
        assert w[seat][model.NUM] == 1.0


def test_trick_shift_reads_the_styles():
    """strong counts fewer tricks for itself against seats that keep winning, more
    against seats that duck or under-declare (the fitted table's signs)."""
    v = _position()
    one = [[1.0 if k == model.NUM else 0.0 for k in range(model.K)] for _ in range(4)]

    def at(name):
        w = [list(ws) for ws in one]
        for s in (1, 2, 3):
            w[s] = [1.0 if k == model.NAMES.index(name) else 0.0 for k in range(model.K)]
        return model.trick_shift(v, w)

    assert at("num") == 0.0
    assert at("greedy") < -0.1 and at("over") < -0.1
    assert at("under") > 0.1 and at("cautious") > 0.1
    # A random table leaves strong tricks it cannot shed: the shift set over the fitted
    # table (``SHIFT_SET``), not the fitted one.
    assert abs(at("random") - 3 * model.SHIFT_SET["random"]) < 1e-9
    assert at("random") > at("under")


def test_model_for_one_seat_is_the_weights_the_player_uses():
    """The review's entry point: one seat's weights by name, from any seat's view."""
    v = _position()
    w = model.weights(v)
    m3 = model.model_for(v, 3)
    assert m3.seat == 3 and m3.likeliest == "greedy"
    assert list(m3.weights.values()) == w[3]
    assert abs(sum(m3.weights.values()) - 1.0) < 1e-9
    assert m3.events > 10
    # Its share of strong's trick shift: the three others' shares add up to it.
    total = sum(model.model_for(v, s).shift for s in (1, 2, 3))
    assert abs(total - model.trick_shift(v)) < 1e-9
    own = model.model_for(v, 0)
    assert own.weights["num"] == 1.0 and own.events == 0 and own.shift == 0.0
    with pytest.raises(ValueError):
        model.model_for(v, 4)


def test_strong_declines_a_risky_dash_at_a_table_that_ducks():
    """A dash hand with some danger in it (``dash_danger`` 1.0–1.3: under the limit, over
    the one the table leaves): taken at a table of seats read as our own players,
    declined once the other seats are read as under-declarers (they duck, and the dash
    player is left the tricks) — and only because of the model (off, it is taken)."""
    from engine.bots import bidding
    from engine.bots.evaluate import best_suit, dash_danger
    seen = 0
    for seed in range(150):
        for m, v in style_match_views("estimation", 13, ["easy", "under", "under", "under"],
                                      seed, 6):
            if m.to_act != 0 or v["phase"] != "dash" or len(m.history) < 2:
                continue
            hand = bidding.mask(v["hand"])
            if not (1.0 < dash_danger(hand) < 1.3 and best_suit(hand)[1] < 3.0):
                continue
            seen += 1
            assert model.dash_risk(v) > 0.4                 # read as duckers by now
            assert _decide(v, False)["take"] is True
            assert _decide(v, True)["take"] is False
            ours = [[1.0 if k == model.NUM else 0.0 for k in range(model.K)]] * 4
            assert bidding.dash(v, hand, "strong", model.dash_risk(v, ours))["take"]
        if seen >= 2:
            break
    assert seen >= 2
