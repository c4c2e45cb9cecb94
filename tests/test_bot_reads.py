"""What a seat's plays rule out of its hand, read by its style (``montecarlo.Public.reads``,
``montecarlo.read_plays``): never a card it holds, and the strong player's samples keep
to it."""

from __future__ import annotations

import random

import pytest

from engine import new_match
from engine.bots import montecarlo as mc
from engine.bots import styles
from engine.bots.cards import CARD_INDEX, SM, mask
from engine.bots.stylemodel import MODELS

STYLE = {m.name: m for m in MODELS}


def _views(game, length, seed, names, rounds=2):
    """Every play-phase view of a match of the named policies, with the true hands."""
    m = new_match(game, length, seed=seed)
    pols = [styles.policy(n, budget_ms=3) for n in names]
    rngs = [random.Random(seed * 4 + s) for s in range(4)]
    while m.to_act is not None and len(m.history) < rounds:
        s = m.to_act
        v = m.view(s)
        if v["phase"] == "play":
            yield v, [mask(m.view(o)["hand"]) for o in range(4)]
        m.apply(s, pols[s](v, rngs[s]))


@pytest.mark.parametrize("game,length", [("estimation", 18), ("estimation-kotshina", "micro")])
def test_a_read_never_rules_out_a_card_the_seat_holds(game, length):
    # Our easy and normal players play by the same fast player as the styles: their
    # plays are read true too (the strong player does not read them: people are read
    # as `num`, and a person plays under a card they could have won with).
    names = ["greedy", "over", "under", "dash", "easy", "normal"]
    ruled = 0
    for seed in range(8):
        pick = random.Random(seed)
        seats = [pick.choice(names) for _ in range(4)]
        for v, hands in _views(game, length, seed, seats):
            pub = mc.Public(v)
            always, needing = pub.reads
            for o in range(4):
                if o == v["seat"]:
                    continue
                read = always[o] if seats[o] == "greedy" else needing[o]
                assert not read & hands[o], (seed, seats[o], o)
                ruled += bin(read & pub.unseen & ~pub.voids[o]).count("1")
    assert ruled > 50            # the reads say something beyond the shown voids


def _view_after(cards_by_seat, leader=0, decl=(3, 3, 3, 3), trump="S"):
    """A committee view for seat 0 after the first trick ``cards_by_seat`` (led by seat
    ``leader``), its own hand the rest of the spades but one."""
    m = new_match("estimation", 18, seed=5)
    v = m.view(0)
    trick = [{"seat": (leader + i) & 3, "card": c} for i, c in enumerate(cards_by_seat)]
    gone = {e["card"] for e in trick}
    own = [c for c in ("KS", "QS", "JS", "TS", "AD", "KD", "QD", "JD", "AC", "KC", "QC", "JC")
           if c not in gone]
    return {**v, "phase": "play", "hand": own, "trick": [], "tricks": [{"cards": trick}],
            "leader": 0, "trump": trump, "declarations": list(decl), "tricks_taken": [0, 0, 0, 0],
            "legal": [{"type": "play", "card": c} for c in own]}


def test_following_under_the_winning_card_leaves_nothing_above_it():
    # Seat 0 led the queen of hearts; seat 1 followed with the 9.
    v = _view_after(["QH", "9H", "2H", "3H"])
    always, needing = mc.Public(v).reads
    above_q = {"KH", "AH"}
    ruled = {c for c in ("KH", "AH", "JH") if always[1] >> CARD_INDEX[c] & 1}
    assert ruled == above_q
    assert needing[1] == always[1]             # its number (3) still needed tricks


def test_a_discard_leaves_no_trump_and_a_made_number_reads_nothing():
    # Hearts led; seat 1 discards a diamond: a player who plays to win has no spade.
    v = _view_after(["QH", "2D", "2H", "3H"], decl=(3, 0, 3, 3))
    always, needing = mc.Public(v).reads
    assert always[1] & SM[CARD_INDEX["2S"] // 13] == SM[CARD_INDEX["2S"] // 13]
    assert needing[1] == 0                     # its number (0) needed nothing: not read


def test_the_samples_keep_to_a_greedy_seats_reads_and_not_to_a_num_seats():
    v = _view_after(["QH", "9H", "2H", "3H"])
    pub = mc.Public(v)
    rng = random.Random(1)
    seats = [STYLE["num"], STYLE["greedy"], STYLE["num"], STYLE["num"]]
    hk_ha = (1 << CARD_INDEX["KH"]) | (1 << CARD_INDEX["AH"])
    for _ in range(200):
        hands = mc.sample_fit(pub, rng, styles=seats)
        assert not hands[1] & hk_ha
    seats[1] = STYLE["num"]
    assert any(mc.sample_fit(pub, rng, styles=seats)[1] & hk_ha for _ in range(200))


def test_reads_that_cannot_all_hold_fall_back_to_the_voids():
    v = _view_after(["QH", "9H", "2H", "3H"])
    pub = mc.Public(v)
    everything = (1 << 52) - 1
    voids = [pub.voids[0], everything, pub.voids[2], pub.voids[3]]   # seat 1 can hold nothing
    hands = mc.sample(pub, random.Random(2), voids)
    assert bin(hands[1]).count("1") == pub.counts[1]
