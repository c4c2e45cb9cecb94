"""Scoring tables as pure functions: one per scoring system, rule ids inline.

Each table takes the facts of a finished round and returns ``(breakdown, raw)`` where
``breakdown`` is a list of four dicts with the keys of ``BONUS_KEYS`` and ``raw``
the four round totals before any multiplier. One declarer's row is its own function
(``committee_declarer``, ``kotshina_declarer``), so that the computer players value a
declaration with the same formula the table scores it by.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Literal

BONUS_KEYS = ("base", "caller", "with", "sole", "risk", "dash", "super")

Row = dict[str, int]                 # one seat's breakdown, keyed by BONUS_KEYS
Role = Literal["caller", "with"] | None


def _zero() -> Row:
    return dict.fromkeys(BONUS_KEYS, 0)


def _sole(made: list[bool]) -> tuple[int | None, int | None]:
    """(sole winner, sole loser) counting every seat, dash players included (E-32, K-8)."""
    winners = [s for s in range(4) if made[s]]
    losers = [s for s in range(4) if not made[s]]
    return (winners[0] if len(winners) == 1 else None,
            losers[0] if len(losers) == 1 else None)


def committee_risk(total: int, n: int) -> bool:
    """E-23: the last declarer (declaring ``n``, making the table ``total``) is at risk
    when the table is two or more from 13; on the over side only with a declaration ≥ 2."""
    return total <= 11 or (total >= 15 and n >= 2)


def committee_declarer(n: int, t: int, *, role: Role = None, super_call: bool = False,
                       risk: bool = False) -> Row:
    """One declarer's row (not a dash player), before sole winner/loser (E-28 … E-30, E-23).

    ``role``: "caller", or "with" for a With player who declared the call's number."""
    made = t == n
    sign = 1 if made else -1
    r = _zero()
    r["base"] = 13 + t if made else -abs(t - n)
    if role is not None:
        r[role] = 10 * sign                                      # E-29 (E-13: With)
        if super_call:
            r["super"] = 10 * sign                               # E-30: the ten becomes twenty
    if risk:
        r["risk"] = 10 * sign                                    # E-23, E-29
    return r


def estimation_committee(declarations: Sequence[int], taken: Sequence[int], *,
                         caller: int | None, call_n: int | None,
                         with_players: Collection[int], dash_players: Collection[int],
                         last_declarer: int | None, all_pass: bool) -> tuple[list[Row], list[int]]:
    """E-28 … E-33: the Egyptian committee's table."""
    total = sum(declarations)
    under = total < 13
    made = [taken[s] == declarations[s] for s in range(4)]
    rows: list[Row]
    if all_pass:
        # E-33: 13 + t made, −|t − n| missed, nothing else; a dash player is a plain 0.
        rows = [committee_declarer(declarations[s], taken[s]) for s in range(4)]
        return rows, [r["base"] for r in rows]
    rows = []
    sole_winner, sole_loser = _sole(made)
    in_risk = last_declarer is not None and committee_risk(total, declarations[last_declarer])
    super_call = call_n is not None and call_n >= 8            # E-17, E-30
    for s in range(4):
        t, n = taken[s], declarations[s]
        if s in dash_players:
            # E-31: made 13 (+10 more when under), failed −t (−10 more when under). E-32: no other bonus.
            r = _zero()
            r["base"] = 13 if t == 0 else -t
            if under:
                r["dash"] = 10 if t == 0 else -10
            rows.append(r)
            continue
        role: Role = None
        if s == caller:
            role = "caller"
        elif s in with_players and n == call_n:
            role = "with"                                        # E-30: With shares the twenty
        r = committee_declarer(n, t, role=role, super_call=super_call,
                               risk=s == last_declarer and in_risk)
        rows.append(r)
        if s == sole_winner:
            r["sole"] = 10
        elif s == sole_loser:
            r["sole"] = -10
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


def kotshina_declarer(n: int, t: int, *, role: Role = None, risk: int = 0) -> Row:
    """One declarer's row (not a dash player), before sole winner/loser and the
    multiplier (K-5 … K-7, K-9, K-12). ``risk``: the last declarer's ``kotshina_risk``."""
    made = t == n
    sign = 1 if made else -1
    r = _zero()
    r["base"] = 10 + t if made else -abs(t - n)                 # K-5, K-12
    if role is not None:
        r[role] = 10 * sign                                      # K-6, K-7
    if risk:
        r["risk"] = risk * sign                                  # K-9
    return r


def estimation_kotshina(declarations: Sequence[int], taken: Sequence[int], *,
                        caller: int | None, dash_players: Collection[int],
                        last_declarer: int | None) -> tuple[list[Row], list[int], list[bool]]:
    """K-5 … K-12, before the multiplier. ``caller`` is None in an all-pass round."""
    total = sum(declarations)
    under = total < 13
    made = [taken[s] == declarations[s] for s in range(4)]
    rows: list[Row] = []
    sole_winner, sole_loser = _sole(made)
    risk = kotshina_risk(total) if last_declarer is not None else 0
    call_n = declarations[caller] if caller is not None else None
    for s in range(4):
        t, n = taken[s], declarations[s]
        if s in dash_players:
            # K-11: instead of the base; sole winner/loser yes, caller/With/risk never.
            r = _zero()
            r["dash"] = (1 if made[s] else -1) * (33 if under else 25)
        else:
            role: Role = None
            if s == caller:
                role = "caller"                                  # K-6
            elif caller is not None and n == call_n:
                role = "with"                                    # K-7
            r = kotshina_declarer(n, t, role=role, risk=risk if s == last_declarer else 0)
        rows.append(r)
        if s == sole_winner:
            r["sole"] = 10                                       # K-8
        elif s == sole_loser:
            r["sole"] = -10
    return rows, [sum(r.values()) for r in rows], made


def tarneeb(declarations: Sequence[int],
            taken: Sequence[int]) -> tuple[list[Row], list[int], list[bool]]:
    """T-18: made (t ≥ n) +n, failed −n; extra tricks add nothing."""
    made = [taken[s] >= declarations[s] for s in range(4)]
    rows = [_zero() for _ in range(4)]
    for s in range(4):
        rows[s]["base"] = declarations[s] if made[s] else -declarations[s]
    return rows, [r["base"] for r in rows], made


def tarneeb_qualifies(player: int, partner: int) -> bool:
    """T-20, T-21: a pair's totals qualify when one is at 41 or more and the other above zero."""
    return (player >= 41 and partner > 0) or (partner >= 41 and player > 0)
