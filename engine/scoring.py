"""Scoring tables as pure functions: one per scoring system, rule ids inline.

Each takes the facts of a finished round and returns ``(breakdown, raw)`` where
``breakdown`` is a list of four dicts with the keys of ``BONUS_KEYS`` and ``raw``
the four round totals before any multiplier.
"""

from __future__ import annotations

BONUS_KEYS = ("base", "caller", "with", "sole", "risk", "dash", "super")


def _zero() -> dict:
    return dict.fromkeys(BONUS_KEYS, 0)


def _sole(made: list[bool]) -> tuple[int | None, int | None]:
    """(sole winner, sole loser) counting every seat, dash players included (E-32, K-8)."""
    winners = [s for s in range(4) if made[s]]
    losers = [s for s in range(4) if not made[s]]
    return (winners[0] if len(winners) == 1 else None,
            losers[0] if len(losers) == 1 else None)


def estimation_committee(declarations, taken, *, caller, call_n, with_players,
                         dash_players, last_declarer, all_pass):
    """E-28 … E-33: the Egyptian committee's table."""
    total = sum(declarations)
    under = total < 13
    made = [taken[s] == declarations[s] for s in range(4)]
    rows = [_zero() for _ in range(4)]
    if all_pass:
        # E-33: 13 + t made, −|t − n| missed, nothing else; a dash player is a plain 0.
        for s in range(4):
            rows[s]["base"] = 13 + taken[s] if made[s] else -abs(taken[s] - declarations[s])
        return rows, [r["base"] for r in rows]
    sole_winner, sole_loser = _sole(made)
    # E-23: risk when the table is two or more from 13; on the over side only with a declaration ≥ 2.
    in_risk = last_declarer is not None and (
        total <= 11 or (total >= 15 and declarations[last_declarer] >= 2))
    super_call = call_n is not None and call_n >= 8            # E-17, E-30
    for s in range(4):
        r = rows[s]
        t, n = taken[s], declarations[s]
        if s in dash_players:
            # E-31: made 13 (+10 more when under), failed −t (−10 more when under). E-32: no other bonus.
            r["base"] = 13 if t == 0 else -t
            if under:
                r["dash"] = 10 if t == 0 else -10
            continue
        sign = 1 if made[s] else -1
        r["base"] = 13 + t if made[s] else -abs(t - n)
        if s == caller:
            r["caller"] = 10 * sign                              # E-29
            if super_call:
                r["super"] = 10 * sign                           # E-30: the ten becomes twenty
        elif s in with_players and n == call_n:
            r["with"] = 10 * sign                                # E-29, E-13
            if super_call:
                r["super"] = 10 * sign                           # E-30: With shares the twenty
        if s == sole_winner:
            r["sole"] = 10
        elif s == sole_loser:
            r["sole"] = -10
        if s == last_declarer and in_risk:
            r["risk"] = 10 * sign                                # E-23, E-29
    return rows, [sum(r.values()) for r in rows]


def kotshina_risk(total: int) -> int:
    """K-9: the size of the last declarer's risk by the distance of the total from 13."""
    d = abs(total - 13)
    if d <= 1:
        return 0
    if d <= 3:
        return 10
    if d <= 5:
        return 20
    return 30


def estimation_kotshina(declarations, taken, *, caller, dash_players, last_declarer):
    """K-5 … K-12, before the multiplier. ``caller`` is None in an all-pass round."""
    total = sum(declarations)
    under = total < 13
    made = [taken[s] == declarations[s] for s in range(4)]
    rows = [_zero() for _ in range(4)]
    sole_winner, sole_loser = _sole(made)
    risk = kotshina_risk(total) if last_declarer is not None else 0
    call_n = declarations[caller] if caller is not None else None
    for s in range(4):
        r = rows[s]
        t, n = taken[s], declarations[s]
        sign = 1 if made[s] else -1
        if s in dash_players:
            # K-11: instead of the base; sole winner/loser yes, caller/With/risk never.
            r["dash"] = sign * (33 if under else 25)
        else:
            r["base"] = 10 + t if made[s] else -abs(t - n)      # K-5, K-12
            if s == caller:
                r["caller"] = 10 * sign                          # K-6
            elif caller is not None and n == call_n:
                r["with"] = 10 * sign                            # K-7
            if s == last_declarer and risk:
                r["risk"] = risk * sign                          # K-9
        if s == sole_winner:
            r["sole"] = 10                                       # K-8
        elif s == sole_loser:
            r["sole"] = -10
    return rows, [sum(r.values()) for r in rows], made


def tarneeb(declarations, taken):
    """T-18: made (t ≥ n) +n, failed −n; extra tricks add nothing."""
    made = [taken[s] >= declarations[s] for s in range(4)]
    rows = [_zero() for _ in range(4)]
    for s in range(4):
        rows[s]["base"] = declarations[s] if made[s] else -declarations[s]
    return rows, [r["base"] for r in rows], made
