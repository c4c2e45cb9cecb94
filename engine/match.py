"""The matches: explicit phases, ``legal_actions`` per phase, one ``view`` per seat.

``EstimationMatch`` plays both Estimation scorings (the committee's E-rules and the
calculator's K-rules share table, auction and play); ``TarneebMatch`` plays T-rules.
Both keep the same shape: ``to_act``, ``legal_actions``, ``apply``, ``view``,
``history``, ``totals``, ``result``, ``log``, ``leave``, ``auto_action``.

Hot path note: computer players simulate many rounds, so ``legal_actions`` and
``apply`` for card play avoid building anything they can look up. The action dicts
they hand out are shared and must be treated as read-only.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

from . import scoring
from .cards import (
    BID_SUIT_ORDER,
    CARD_INDEX,
    CODES,
    NT,
    SUIT_CODES,
    SUIT_MASKS,
    TIMER_SUIT_ORDER,
    cards_of,
    is_suit_code,
    mask_of,
    parse_card,
    sorted_codes,
    suit_code,
    suit_index,
    trick_winner,
)
from .catalogue import SEATS, default_length, is_seat
from .errors import N_, BadDeal, IllegalAction
from .types import (
    Action,
    AuctionTurn,
    Board,
    CallAction,
    CardPlayed,
    Contract,
    DashAction,
    Deal,
    DeclareAction,
    Kind,
    Length,
    LoggedAction,
    MatchRecord,
    OverUnder,
    PassAction,
    Phase,
    PlayAction,
    Result,
    RoundRecord,
    SuitCode,
    TrickView,
    View,
    WithAction,
)


def _compact(tricks: list[tuple[int, tuple[int, ...], int]]) -> list[TrickView]:
    """A round's tricks kept compact in its record until ``Match.history`` is read
    (simulations never read it): that property makes them ``TrickView``s."""
    return cast("list[TrickView]", tuple(tricks))


Handler = Callable[["EstimationMatch", int, Mapping[str, object]], None]

# Interned actions: the log and legal_actions share these objects.
PLAY: tuple[PlayAction, ...] = tuple([{"type": "play", "card": CODES[c]} for c in range(52)])
PASS: PassAction = {"type": "pass"}
WITH: WithAction = {"type": "with"}
DASH_TAKE: DashAction = {"type": "dash", "take": True}
DASH_DECLINE: DashAction = {"type": "dash", "take": False}
DECLARE: tuple[DeclareAction, ...] = tuple([{"type": "declare", "n": n} for n in range(14)])

# The card of a play action is looked up with whatever the action holds: a KeyError or
# a TypeError (not hashable) means "not a card code as written", and apply tries harder.
_CARD_LOOKUP: dict[Any, int] = CARD_INDEX

# Auction legal lists by (fast, kotshina, standing bid, fixed trump): few, and asked often.
_AUCTION_CACHE: dict[tuple[bool, bool, tuple[int, SuitCode] | None, int | None],
                     tuple[Action, ...]] = {}

# Call legal lists by (round kind, won bid, the caller's declaration): the same few again.
_CALL_CACHE: dict[tuple[Kind, tuple[int, SuitCode] | None, int | None], tuple[Action, ...]] = {}

# PLAY actions of every 13-bit subset of one suit, filled on first use.
_SUIT_PLAYS: list[list[tuple[Action, ...] | None]] = [[None] * 8192 for _ in range(4)]


def _suit_plays(s: int, sub: int) -> tuple[Action, ...]:
    t = _SUIT_PLAYS[s][sub]
    if t is None:
        base = 13 * s
        t = tuple(PLAY[base + r] for r in range(12, -1, -1) if sub >> r & 1)
        _SUIT_PLAYS[s][sub] = t
    return t


def plays_of(mask: int) -> list[Action]:
    """The PLAY actions of every card in ``mask``, suit by suit, high card first."""
    out: list[Action] = []
    for s in (0, 1, 2, 3):
        sub = (mask >> (13 * s)) & 0x1FFF
        if sub:
            out += _SUIT_PLAYS[s][sub] or _suit_plays(s, sub)
    return out


# What the table is doing, said when an action comes in the wrong phase (words of
# the message catalogue: a refusal's parameter, said in the player's language).
_PHASE_WORDS: dict[str, str] = {
    "dash": N_("answer the dash offer"), "auction": N_("the auction is on"),
    "call": N_("the caller is choosing the call"), "declare": N_("declarations are on"),
    "play": N_("cards are being played"), "over": N_("the match is over"),
}


def _unknown_type(kind: object) -> IllegalAction:
    if isinstance(kind, str):
        return IllegalAction("unknown action type {kind}", kind=repr(kind[:20]))
    return IllegalAction("an action needs a \"type\"")


def _int(value: object) -> int | None:
    # bool is an int in Python, but True is not a number of tricks.
    return value if type(value) is int else None


def _trick_public(trick: tuple[int, tuple[int, ...], int]) -> TrickView:
    """A finished trick as views show it: who led, each card with its seat, who won."""
    leader, cards, winner = trick
    return {"leader": leader,
            "cards": [{"seat": (leader + i) & 3, "card": CODES[c]} for i, c in enumerate(cards)],
            "winner": winner}


class Match:
    """What both games share: dealing, trick play, the log and the record."""

    game: str = ""
    LEAVING_ENDS_MATCH: bool            # a player who leaves on purpose ends the match
    # Subclasses set these in __init__.
    length: Length = None
    rounds: int | None                # None: Tarneeb plays hands until a team wins
    dealer: int
    decl_order: list[int]             # who declares, in order
    decl_pos: int                     # the next of them to declare

    def __init__(self, seed: int | None, deals: Sequence[Deal] | None):
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        if type(seed) is not int:
            raise ValueError("seed must be an int")
        self.seed = seed
        self._rng = random.Random(seed)
        self.deals = [self._check_deal(d) for d in (deals or [])]
        self._deal_no = 0
        self.log: list[tuple[int, LoggedAction]] = []
        self._history: list[RoundRecord] = []
        self._history_public = 0      # records whose "tricks" are already public dicts
        self._brief: list[RoundRecord] = []       # the history as views show it
        self.totals = [0, 0, 0, 0]
        self.result: Result | None = None
        self.left: int | None = None
        self.to_act: int | None = None
        self.phase: Phase = "over"
        self.hands = [0, 0, 0, 0]
        self.trump: int | None = None
        self.trick: list[int] = []          # cards of the current trick, in play order
        self.leader: int | None = None      # who led the current trick
        self.tricks: list[tuple[int, tuple[int, ...], int]] = []  # (leader, cards, winner)
        # The round's finished tricks as views show them, built once each (``_tricks_public``)
        self._tricks_shown: tuple[list[tuple[int, tuple[int, ...], int]], list[TrickView]] = (
            self.tricks, [])
        self.taken = [0, 0, 0, 0]
        self.declarations: list[int | None] = [None] * 4
        # One round played once to its end (a duplicate event's board): its kind,
        # trump and dealer; None for a match of its full length.
        self.board: Board | None = None

    # ---- dealing -------------------------------------------------------------

    @staticmethod
    def _check_deal(deal: object) -> list[list[int]]:
        if not isinstance(deal, (list, tuple)) or len(deal) != 4:
            raise BadDeal("a deal is four lists of 13 cards, indexed by seat")
        hands = []
        for hand in deal:
            if not isinstance(hand, (list, tuple)) or len(hand) != 13:
                raise BadDeal("each seat gets exactly 13 cards")
            cards = [parse_card(c) for c in hand]
            if None in cards:
                raise BadDeal(f"not a card code in {hand!r}")
            hands.append(cast("list[int]", cards))
        if len({c for h in hands for c in h}) != 52:
            raise BadDeal("a deal must hold all 52 cards once each")
        return hands

    def _next_deal(self, dealer: int) -> list[list[int]]:
        """Each seat's cards in the order received (T-7: from the dealer's right, dealer last)."""
        n = self._deal_no
        self._deal_no += 1
        if n < len(self.deals):
            return self.deals[n]
        # A uniform shuffle by random sort keys: twice as fast as random.shuffle here.
        rnd = self._rng.random
        deck = sorted(range(52), key=lambda _: rnd())
        hands: list[list[int]] = [[], [], [], []]
        for i, c in enumerate(deck):
            hands[(dealer + 1 + i) % 4].append(c)
        return hands

    # ---- trick play (E-25 … E-27, T-14 … T-17) ---------------------------------

    def legal_play_mask(self, seat: int) -> int:
        """The cards ``seat`` may play now, as a bit mask (engine.cards): the auto-player's
        and the computer players' fast path."""
        return self._legal_play_mask(seat)

    @property
    def rounds_done(self) -> int:
        """Finished rounds (or hands), without building ``history``'s public records."""
        return len(self._history)

    def fork(self) -> Match:
        """A copy whose state the rest of a round may change (its history's records are
        shared, not copied; its random source a fixed one: nothing a round's bidding or
        play draws from)."""
        c = object.__new__(type(self))
        c.__dict__.update({k: v.copy() if isinstance(v, (list, dict, set)) else v
                           for k, v in self.__dict__.items()})
        c._rng = random.Random(0)
        return c

    def _legal_play_mask(self, seat: int) -> int:
        hand = self.hands[seat]
        if self.trick:
            follow = hand & SUIT_MASKS[self.trick[0] // 13]
            if follow:
                return follow
        return hand

    def _close_trick(self) -> None:
        trick = self.trick
        leader = self.leader
        trump = self.trump
        assert leader is not None and trump is not None      # set before the first card
        winner = (leader + trick_winner(trick, trump)) & 3
        self.tricks.append((leader, tuple(trick), winner))
        self.taken[winner] += 1
        self.trick = []
        if len(self.tricks) == 13:
            self.leader = None
            self._end_round()
        else:
            self.leader = winner
            self.to_act = winner

    def _tricks_public(
            self, tricks: Iterable[tuple[int, tuple[int, ...], int]] | None = None) -> list[TrickView]:
        """Finished tricks as views show them (``tricks`` None: this round's).  A finished
        trick never changes, so this round's are built once and every view after gets
        the same dicts, as it does the history's records (``_history_brief``): five
        views a move rebuilt up to 12 tricks of 4 cards each."""
        if tricks is not None:
            return [_trick_public(t) for t in tricks]
        of, shown = self._tricks_shown
        if of is not self.tricks:           # a new round: a new list of tricks
            of, shown = self._tricks_shown = (self.tricks, [])
        shown.extend(_trick_public(t) for t in of[len(shown):])
        return list(shown)

    def _history_brief(self) -> list[RoundRecord]:
        """History for views: every finished round without its 52 cards (``m.history``
        has them), so that a view pushed after every move stays small."""
        brief = self._brief
        h = self._history
        for rec in h[len(brief):]:
            brief.append(cast("RoundRecord", {k: v for k, v in rec.items() if k != "tricks"}))
        return list(brief)

    @property
    def history(self) -> list[RoundRecord]:
        """One record per finished round or hand (voided Tarneeb hands included)."""
        h = self._history
        # A round's tricks are kept compact until someone looks: simulations never do.
        for i in range(self._history_public, len(h)):
            tricks: object = h[i].get("tricks")
            if type(tricks) is tuple:
                h[i]["tricks"] = self._tricks_public(tricks)
        self._history_public = len(h)
        return h

    def _trick_public(self) -> list[CardPlayed]:
        leader = self.leader
        if not self.trick or leader is None:
            return []
        return [{"seat": (leader + i) & 3, "card": CODES[c]} for i, c in enumerate(self.trick)]

    # ---- the public surface ----------------------------------------------------

    def legal_actions(self, seat: int) -> list[Action]:
        """The actions ``seat`` may take now ([] when it is not its turn). The dicts are
        shared with the engine: treat them as read-only (``canonical`` hands out copies)."""
        if seat != self.to_act:
            return []
        if self.phase == "play":
            hand = self.hands[seat]
            if self.trick:
                led = self.trick[0] // 13
                sub = (hand >> (13 * led)) & 0x1FFF
                if sub:                                          # E-26, T-15: follow suit
                    return list(_SUIT_PLAYS[led][sub] or _suit_plays(led, sub))
            return plays_of(hand)
        return self._legal_other(seat)

    def apply(self, seat: int, action: Mapping[str, object]) -> None:
        """Take ``action`` for ``seat``: a legal action as ``legal_actions`` lists it (a card
        may also be written like 10h). Anything else raises IllegalAction, changing nothing."""
        if self.to_act is None:
            raise IllegalAction("the match is over")
        if seat != self.to_act:
            if seat not in SEATS:
                raise IllegalAction("there is no seat {seat}", seat=repr(seat))
            raise IllegalAction("it is not your turn")
        if type(action) is not dict:
            raise IllegalAction("an action is an object with a \"type\"")
        kind = action.get("type")
        if kind != "play":
            self._apply_other(seat, action, kind)
            return
        if self.phase != "play":
            raise IllegalAction("no card can be played now: {phase}", phase=self._phase_words())
        # E-26, E-27 / T-15, T-16, inline: this is the hot path of every simulation.
        card = action.get("card")
        try:
            c = _CARD_LOOKUP[card]
        except (KeyError, TypeError):
            parsed = parse_card(card)
            if parsed is None:
                raise IllegalAction("{card} is not a card (write it like QS, TD or 10H)",
                                    card=repr(str(card)[:20])) from None
            c = parsed
        bit = 1 << c
        hands = self.hands
        hand = hands[seat]
        if not hand & bit:
            raise IllegalAction("{card} is not in your hand", card=CODES[c])
        trick = self.trick
        if trick:
            led = trick[0] // 13
            if c // 13 != led and hand & SUIT_MASKS[led]:
                raise IllegalAction("you must follow suit ({suit})", suit=SUIT_CODES[led])
        self.log.append((seat, PLAY[c]))
        hands[seat] = hand ^ bit
        trick.append(c)
        if len(trick) < 4:
            self.to_act = (seat + 1) & 3
        else:
            self._close_trick()

    def canonical(self, seat: int, action: object) -> Action | None:
        """The legal action of ``seat`` equal to ``action`` in keys, values *and* types
        (``1.0`` is not ``1``, ``True`` is not a seat), a fresh dict; None if there is none.

        ``apply`` is lenient where a person types (``10h`` is a card); a program or a
        session that must refuse anything not exactly legal asks this first."""
        if type(action) is not dict:
            return None
        for cand in self.legal_actions(seat):
            if cand.keys() == action.keys() and all(
                    type(action[k]) is type(v) and action[k] == v for k, v in cand.items()):
                return cand.copy()
        return None

    def refusal(self, seat: int, action: Mapping[str, object]) -> IllegalAction:
        """Why ``action`` is not one of ``seat``'s legal actions (``canonical`` found
        none): the rules' own reason, the one ``apply`` gives, found on a ``fork`` so
        that nothing here changes.  An action ``apply`` would take only as a person
        may type it (``10h`` for ``TH``, a key too many) is refused for its form,
        with the legal action it stands for."""
        trial = self.fork()
        try:
            trial.apply(seat, action)
        except IllegalAction as exc:
            return exc
        taken = json.dumps(trial.log[-1][1], ensure_ascii=True) if trial.log else "?"
        return IllegalAction("write it as your legal actions write it: {legal}", legal=taken)

    def _declared(self) -> list[int]:
        """The declarations as a fresh list, once every seat has one (a dash player's is 0)."""
        decl = list(self.declarations)
        assert None not in decl
        return cast("list[int]", decl)

    def _phase_words(self) -> str:
        """What the table is doing (marked: a refusal's parameter said in the
        player's language)."""
        return _PHASE_WORDS[self.phase]

    def to_dict(self) -> MatchRecord:
        """JSON-ready record: enough for ``replay`` to rebuild the identical match."""
        rec: MatchRecord = {
            "game": self.game, "length": self.length, "seed": self.seed,
            "deals": [[[CODES[c] for c in hand] for hand in d] for d in self.deals],
            "log": [[seat, dict(action)] for seat, action in self.log]}
        if self.board is not None:
            rec["board"] = self.board.copy()
        return rec

    def view(self, seat: int | None) -> View:
        """All that ``seat`` may know (``seat`` None: a spectator); see ``types.View``."""
        raise NotImplementedError

    def _view(self, seat: int | None) -> View:
        """The keys both games share; a key a game does not use keeps its neutral value,
        and each game's ``view`` fills in its own (see the engine issue's list)."""
        if seat is not None:
            self._check_seat(seat)
        return {
            "game": self.game, "length": self.length, "seat": seat,
            "rounds": self.rounds, "phase": self.phase,
            "to_act": self.to_act, "dealer": self.dealer, "trump": suit_code(self.trump),
            "hand": self._hand_view(seat),
            "trick": self._trick_public(), "leader": self.leader,
            "tricks": self._tricks_public(),
            "declarations": list(self.declarations), "tricks_taken": list(self.taken),
            "totals": list(self.totals),
            "legal": [a.copy() for a in self.legal_actions(seat)] if seat is not None else [],
            "declaration_order": self.decl_order[self.decl_pos:] if self.phase == "declare" else [],
            "history": self._history_brief(), "result": self.result, "left": self.left,
            "kind": None, "fixed_trump": None, "auction": None, "dash_players": [],
            "with_players": [], "all_pass": False, "caller": None, "call": None,
            "last_declarer": None, "forbidden": None, "multiplier": 1, "over_under": None,
            "shown_card": None, "teams": None, "team_totals": None,
            "round": 0,
        }

    def _check_seat(self, seat: object) -> None:
        if not is_seat(seat):
            raise IllegalAction("there is no seat {seat}", seat=repr(seat))

    def _hand_view(self, seat: int | None) -> list[str]:
        return [] if seat is None else sorted_codes(self.hands[seat])

    # ---- what each game defines ------------------------------------------------

    def _legal_other(self, seat: int) -> list[Action]:
        """The legal actions of the phases other than card play."""
        raise NotImplementedError

    def _apply_other(self, seat: int, action: Mapping[str, object], kind: object) -> None:
        """Apply an action other than a card (``kind``: its "type", unchecked)."""
        raise NotImplementedError

    def _end_round(self) -> None:
        raise NotImplementedError

    def leave(self, seat: int) -> None:
        raise NotImplementedError

    def auto_action(self, seat: int) -> Action:
        """The turn timer's action for ``seat``."""
        raise NotImplementedError

    # ---- timer helpers ---------------------------------------------------------

    def _weakest_card(self, seat: int) -> int:
        """T-25: lowest non-trump; all trumps → lowest trump; equal ranks: C D H S."""
        legal = cards_of(self._legal_play_mask(seat))
        non_trump = [c for c in legal if c // 13 != self.trump]
        pool = non_trump or legal
        return min(pool, key=lambda c: (c % 13, TIMER_SUIT_ORDER[c // 13]))


# =============================================================================
# Estimation: both scorings
# =============================================================================

def check_board(game: str, board: object) -> Board:
    """``board`` as a ``Board`` of ``game`` (ValueError if it is not one): Estimation's
    kinds are "auction" and "fast", the calculator's "auction" and "fixed" (a fast or
    fixed round has a trump of FAST_ORDER, an auction round none), Tarneeb's "hand"."""
    if not isinstance(board, dict):
        raise ValueError("a board is an object with kind, trump and dealer")
    kind, trump, dealer = board.get("kind"), board.get("trump"), board.get("dealer")
    if not is_seat(dealer):
        raise ValueError("a board's dealer is a seat 0-3")
    kinds = {"estimation": ("auction", "fast"), "estimation-kotshina": ("auction", "fixed"),
             "tarneeb41": ("hand",)}.get(game, ())
    if kind not in kinds:
        raise ValueError(f"a board of {game} is a round of kind {' or '.join(kinds)}")
    if kind in ("fast", "fixed"):
        if trump not in FAST_ORDER:
            raise ValueError("a fast or fixed round's board names its trump: NT, S, H, D or C")
    elif trump is not None:
        raise ValueError("only a fast or fixed round's board names a trump")
    out: Board = {"kind": kind, "trump": trump, "dealer": dealer}
    return out


# The structure of each length: (auction rounds, fast rounds follow) and auction rounds
# before the five fixed ones. Which lengths exist, and the default: ``catalogue``.
ESTIMATION_LENGTHS = {18: (13, True), 13: (13, False), 24: (19, True)}
KOTSHINA_LENGTHS: dict[Length, int] = {"micro": 0, "mini": 5, "full": 13}
FAST_ORDER: tuple[SuitCode, ...] = ("NT", "S", "H", "D", "C")   # E-6, K fixed rounds
BID_NUMBERS = range(4, 14)                        # E-10: a bid is 4 to 13 tricks
SUPER_CALL = 8                                    # E-17, E-18: a call of 8 or more


def call_keeps_trump(kind: str | None, n: int | None) -> bool:
    """E-18: in a fast round a call under 8 keeps the trump the auction was won in; only
    a super call (8 or more) may move it. The screens say so beside the call's suits."""
    return kind == "fast" and (n is None or n < SUPER_CALL)


class EstimationMatch(Match):
    """Estimation (``estimation``) and its calculator scoring (``estimation-kotshina``)."""

    # E-37: a player who leaves on purpose ends the match for everyone.
    LEAVING_ENDS_MATCH = True

    rounds: int

    def __init__(self, game: str, length: Length, seed: int | None,
                 deals: Sequence[Deal] | None, board: Board | None = None):
        super().__init__(seed, deals)
        self.game = game
        self.kotshina = game == "estimation-kotshina"
        if length is None:
            length = default_length(game)
        kinds: list[tuple[Kind, SuitCode | None]]
        auction: tuple[Kind, SuitCode | None] = ("auction", None)
        if self.kotshina:
            if length not in KOTSHINA_LENGTHS:
                raise ValueError("estimation-kotshina length is 'micro', 'mini' or 'full'")
            kinds = [auction] * KOTSHINA_LENGTHS[length] + \
                    [("fixed", s) for s in FAST_ORDER]
        else:
            if type(length) is not int or length not in ESTIMATION_LENGTHS:
                raise ValueError("estimation length is 18, 13 or 24")
            auction_rounds, fast = ESTIMATION_LENGTHS[length]
            kinds = [auction] * auction_rounds + \
                    ([("fast", s) for s in FAST_ORDER] if fast else [])
        self.length = length
        self.first_dealer = 0
        if board is not None:
            # One round of the board's kind, dealt by its dealer, at ×1 (a new match's
            # multiplier): a duplicate event's board (engine.duplicate).
            self.board = check_board(game, board)
            kinds = [(self.board["kind"], self.board["trump"])]
            self.first_dealer = self.board["dealer"]
        self.kinds = kinds
        self.rounds = len(kinds)
        self.round_index = -1
        self.multiplier = 1            # K-13, K-14
        self._saayda_run = 0
        self._start_round()

    # ---- round set-up ------------------------------------------------------------

    def _start_round(self) -> None:
        self.round_index += 1
        r = self.round_index
        self.dealer = (self.first_dealer + r) % 4             # E-3
        self.kind, fixed = self.kinds[r]
        self.fixed_trump = None if fixed is None else suit_index(fixed)
        deal = self._next_deal(self.dealer)
        self.hands = [mask_of(h) for h in deal]
        self.trump = self.fixed_trump
        self.trick, self.tricks, self.leader = [], [], None
        self.taken = [0, 0, 0, 0]
        self.declarations = [None] * 4
        self.dash_players: list[int] = []
        self.bid: tuple[int, SuitCode] | None = None        # (n, suit code)
        self.owner: int | None = None
        self.with_players: list[int] = []
        self.passed: list[int] = []
        self.turns: list[AuctionTurn] = []                  # the auction as it was heard
        self.caller: int | None = None
        self.call: tuple[int, SuitCode] | None = None
        self.all_pass = False
        self.decl_order = []
        self.decl_pos = 0
        self.last_declarer: int | None = None
        d = self.dealer
        if self.kind == "fixed":
            # K-2: no dash call, no auction; declarations from the dealer's next.
            self._begin_declarations([(d + i) % 4 for i in range(1, 5)])
        else:
            self.phase = "dash"
            self._dash_queue = [(d + i) % 4 for i in range(1, 5)]   # E-7 Decision
            self._dash_pos = 0
            self.to_act = self._dash_queue[0]

    # ---- legal actions for the phases other than play ----------------------------

    def _legal_other(self, seat: int) -> list[Action]:
        phase = self.phase
        if phase == "dash":
            return [DASH_TAKE, DASH_DECLINE]
        if phase == "auction":
            key = (self.kind == "fast", self.kotshina, self.bid, self.fixed_trump)
            cached = _AUCTION_CACHE.get(key)
            if cached is None:
                out = self._legal_bids()
                if self.bid is not None and not self.kotshina:
                    out.append(WITH)                             # E-13
                out.append(PASS)
                cached = _AUCTION_CACHE[key] = tuple(out)
            return list(cached)
        if phase == "call":
            caller = self.caller
            assert caller is not None
            ckey = (self.kind, self.bid, self.declarations[caller])
            calls = _CALL_CACHE.get(ckey)
            if calls is None:
                calls = _CALL_CACHE[ckey] = tuple(
                    [{"type": "call", "n": n, "suit": s} for n, s in self._legal_calls()])
            return list(calls)
        if phase == "declare":
            return [DECLARE[n] for n in self._legal_declarations()]
        return []

    # Which bids and calls are allowed is written once, as the reason a bid or call is
    # refused (None: allowed). ``_bid`` and ``_call`` raise that reason; the legal lists
    # are every bid or call for which there is none.

    def _bid_refusal(self, n: int | None, suit: object) -> IllegalAction | None:
        """Why a bid of ``n`` tricks in ``suit`` is refused now (E-10, E-11, E-15)."""
        if n is None or n not in BID_NUMBERS:
            return IllegalAction("a bid is a number of tricks from 4 to 13")     # E-10
        bid = self.bid
        if self.kind == "fast":
            fixed = suit_code(self.fixed_trump)
            if suit != fixed:
                return IllegalAction("in a fast round every bid is in the fixed trump "
                                     "({suit})", suit=fixed)
            if bid is not None and n <= bid[0]:
                return IllegalAction("a bid must be more than {n} in a fast round",  # E-15
                                     n=bid[0])
            return None
        if not is_suit_code(suit):
            return IllegalAction("a bid needs a suit: S, H, D, C or NT")
        if bid is not None and \
                n * 5 + BID_SUIT_ORDER[suit] <= bid[0] * 5 + BID_SUIT_ORDER[bid[1]]:
            return IllegalAction("{n}{suit} does not beat the standing bid {bid_n}{bid_suit}",
                                 n=n, suit=suit, bid_n=bid[0], bid_suit=bid[1])  # E-11
        return None

    def _legal_bids(self) -> list[Action]:
        if self.kind == "fast":
            # E-15: numbers only, in the fixed trump; beats only with more tricks.
            fixed = suit_code(self.fixed_trump)
            return [{"type": "bid", "n": n} for n in BID_NUMBERS
                    if self._bid_refusal(n, fixed) is None]
        return [{"type": "bid", "n": n, "suit": s} for n in BID_NUMBERS for s in SUIT_CODES
                if self._bid_refusal(n, s) is None]

    def _call_refusal(self, n: int, suit: SuitCode) -> IllegalAction | None:
        """Why the call ``n`` ``suit`` is refused (K-3, E-16, E-18)."""
        if self.kind == "fixed":
            # K-3: the caller keeps their number and may move the trump.
            assert self.caller is not None
            keep = self.declarations[self.caller]
            if n != keep:
                return IllegalAction("keep your declaration {n} and choose the trump", n=keep)
            return None
        assert self.bid is not None
        won_n, won_suit = self.bid
        if n < won_n:
            return IllegalAction("you cannot call below the {n} you won with", n=won_n)  # E-16
        if n > 13:
            return IllegalAction("there are only 13 tricks")
        if call_keeps_trump(self.kind, n) and suit != won_suit:
            return IllegalAction("in a fast round the trump moves only with a call of 8 or "
                                 "more")                                         # E-18
        return None

    def _legal_calls(self) -> list[tuple[int, SuitCode]]:
        return [(n, s) for n in range(14) for s in SUIT_CODES if self._call_refusal(n, s) is None]

    def _declaration_cap(self) -> int:
        return self.call[0] if self.call is not None and self.kind != "fixed" else 13

    def _forbidden(self) -> int | None:
        """E-22, K-10: the number that would make the table total 13, for the last declarer."""
        if self.phase != "declare" or self.decl_pos != len(self.decl_order) - 1:
            return None
        rest = 13 - sum(d for d in self.declarations if d is not None)
        return rest if 0 <= rest <= self._declaration_cap() else None

    def _legal_declarations(self) -> list[int]:
        forbidden = self._forbidden()
        return [n for n in range(self._declaration_cap() + 1) if n != forbidden]   # E-21

    # ---- applying ---------------------------------------------------------------

    def _apply_other(self, seat: int, action: Mapping[str, object], kind: object) -> None:
        handler = _ESTIMATION_HANDLERS.get(kind) if type(kind) is str else None
        if handler is None:
            raise _unknown_type(kind)
        handler(self, seat, action)

    def _need(self, phase: Phase, refusal: str) -> None:
        """``refusal`` (marked ``N_``, with ``{phase}``) unless the phase is ``phase``."""
        if self.phase != phase:
            raise IllegalAction(refusal, phase=self._phase_words())

    def _dash(self, seat: int, action: Mapping[str, object]) -> None:
        self._need("dash", N_("you cannot answer the dash offer now: {phase}"))
        take = action.get("take")
        if type(take) is not bool:
            raise IllegalAction("answer the dash offer with take true or false")
        self.log.append((seat, DASH_TAKE if take else DASH_DECLINE))
        if take:
            self.dash_players.append(seat)
            self.declarations[seat] = 0                          # E-9
        self._dash_pos += 1
        if len(self.dash_players) == 2 or self._dash_pos == 4:   # E-8
            self._begin_auction()
        else:
            self.to_act = self._dash_queue[self._dash_pos]

    def _begin_auction(self) -> None:
        self.phase = "auction"
        self.to_act = self._next_bidder(self.dealer)             # E-13 Decision: after the dealer

    def _in_auction(self, s: int) -> bool:
        return s not in self.passed and s not in self.dash_players

    def _next_bidder(self, after: int) -> int | None:
        for i in range(1, 5):
            s = (after + i) % 4
            if self._in_auction(s) and s != self.owner and s not in self.with_players:
                return s
        return None

    def _bid(self, seat: int, action: Mapping[str, object]) -> None:
        self._need("auction", N_("you cannot bid now: {phase}"))
        n = _int(action.get("n"))
        fast = self.kind == "fast"
        # A fast round's bid names no suit (E-15); naming the fixed trump is allowed.
        suit = action.get("suit", suit_code(self.fixed_trump)) if fast else action.get("suit")
        refusal = self._bid_refusal(n, suit)
        if refusal is not None:
            raise refusal
        assert n is not None and is_suit_code(suit)
        canonical: Action = {"type": "bid", "n": n} if fast else {"type": "bid", "n": n, "suit": suit}
        self.log.append((seat, canonical))
        turn: AuctionTurn = {"seat": seat, "type": "bid", "n": n}
        if not fast:
            turn["suit"] = suit
        self.turns.append(turn)
        self.bid = (n, suit)
        self.owner = seat
        self.with_players = []                                   # freed: E-13 Decision
        self._after_auction_turn(seat)

    def _with(self, seat: int, action: Mapping[str, object]) -> None:
        self._need("auction", N_("you cannot say With now: {phase}"))
        if self.kotshina:
            raise IllegalAction("there is no With in the calculator scoring: declare the caller's number instead")  # K-1
        if self.bid is None:
            raise IllegalAction("there is no standing bid to join")
        self.log.append((seat, WITH))
        self.turns.append({"seat": seat, "type": "with"})
        self.with_players.append(seat)
        self._after_auction_turn(seat)

    def _pass(self, seat: int, action: Mapping[str, object]) -> None:
        self._need("auction", N_("you cannot pass now: {phase}"))
        self.log.append((seat, PASS))
        self.turns.append({"seat": seat, "type": "pass"})
        self.passed.append(seat)                                 # E-12: final
        self._after_auction_turn(seat)

    def _after_auction_turn(self, seat: int) -> None:
        nxt = self._next_bidder(seat)
        if nxt is not None:
            self.to_act = nxt
            return
        if self.bid is None:
            self._begin_all_pass()                               # E-14
        else:
            # E-13 Decision (end): everyone left owns or has joined the bid.
            caller = self.caller = self.owner
            assert caller is not None
            self.with_players.sort(key=lambda s: (s - caller) % 4)
            self.phase = "call"
            self.to_act = self.caller

    def _begin_all_pass(self) -> None:
        """E-14, E-24 (K-1): NT (a fast round keeps its trump), dealer declares first."""
        self.all_pass = True
        self.trump = self.fixed_trump if self.kind == "fast" else NT
        order = [(self.dealer + i) % 4 for i in range(4)]
        self._begin_declarations([s for s in order if s not in self.dash_players])

    def _call(self, seat: int, action: Mapping[str, object]) -> None:
        self._need("call", N_("you cannot call now: {phase}"))
        n = _int(action.get("n"))
        suit = action.get("suit")
        if n is None or not is_suit_code(suit):
            raise IllegalAction("a call is a number and a suit (S, H, D, C or NT)")
        refusal = self._call_refusal(n, suit)
        if refusal is not None:
            raise refusal
        self.log.append((seat, {"type": "call", "n": n, "suit": suit}))
        self.trump = suit_index(suit)
        c = self.caller
        assert c is not None
        if self.kind == "fixed":
            self.call = (n, suit)
            self._begin_play(c)                                  # K-3, K-4
            return
        self.call = (n, suit)
        self.declarations[seat] = n                              # E-19
        after = [(c + i) % 4 for i in range(1, 4)]
        if self.kotshina:
            order = [s for s in after if s not in self.dash_players]
        else:
            order = [s for s in after if s in self.with_players] + \
                    [s for s in after if s not in self.with_players and s not in self.dash_players]  # E-20
        self._begin_declarations(order)

    def _begin_declarations(self, order: list[int]) -> None:
        self.phase = "declare"
        self.decl_order = order
        self.decl_pos = 0
        self.last_declarer = order[-1]                           # E-22
        self.to_act = order[0]

    def _declare(self, seat: int, action: Mapping[str, object]) -> None:
        self._need("declare", N_("you cannot declare now: {phase}"))
        n = _int(action.get("n"))
        cap = self._declaration_cap()
        if n is None or not 0 <= n <= cap:
            raise IllegalAction("declare a number from 0 to {cap}", cap=cap)           # E-21
        if n == self._forbidden():
            raise IllegalAction("you are the last to declare: {n} would make the total 13",  # E-22
                                n=n)
        self.log.append((seat, DECLARE[n]))
        self.declarations[seat] = n
        self.decl_pos += 1
        if self.decl_pos < len(self.decl_order):
            self.to_act = self.decl_order[self.decl_pos]
            return
        if self.kind == "fixed":
            # K-2: the highest declarer calls; on a tie the first of them to declare.
            decl = self._declared()
            top = max(decl)
            caller = self.caller = next(s for s in self.decl_order if decl[s] == top)
            if top >= 8:
                self.phase = "call"                              # K-3
                self.to_act = caller
                return
            self._begin_play(caller)
        elif self.all_pass:
            self._begin_play(self.decl_order[0])                 # E-25 Decision, K-4
        else:
            assert self.caller is not None
            self._begin_play(self.caller)                        # E-25

    def _begin_play(self, leader: int) -> None:
        self.phase = "play"
        self.leader = leader
        self.to_act = leader

    # ---- end of a round -----------------------------------------------------------

    def _end_round(self) -> None:
        decl = self._declared()
        taken = list(self.taken)
        total = sum(decl)
        multiplier = self.multiplier
        saayda = False
        if self.kotshina:
            rows, raw, made = scoring.estimation_kotshina(
                decl, taken, caller=None if self.all_pass else self.caller,
                dash_players=self.dash_players, last_declarer=self.last_declarer)
            if not any(made):
                # K-14 Sa'ayda: nobody scores; the next round counts double, at most ×4.
                saayda = True
                scores = [0, 0, 0, 0]
                self._saayda_run += 1
                self.multiplier = min(2 ** self._saayda_run, 4)
            else:
                scores = [x * multiplier for x in raw]           # K-13
                self._saayda_run = 0
                self.multiplier = 1
        else:
            rows, raw = scoring.estimation_committee(
                decl, taken, caller=self.caller, call_n=self.call[0] if self.call else None,
                with_players=self.with_players, dash_players=self.dash_players,
                last_declarer=self.last_declarer, all_pass=self.all_pass)
            scores = raw
        for s in SEATS:
            self.totals[s] += scores[s]                          # E-34
        self._history.append({
            "round": self.round_index + 1, "kind": self.kind, "dealer": self.dealer,
            "trump": suit_code(self.trump), "fixed_trump": suit_code(self.fixed_trump),
            "caller": self.caller,
            "call": None if self.call is None else {"n": self.call[0], "suit": self.call[1]},
            "with_players": [] if self.kotshina else list(self.with_players),
            "dash_players": list(self.dash_players), "declarations": decl,
            "last_declarer": self.last_declarer, "tricks_taken": taken,
            "made": [taken[s] == decl[s] for s in SEATS],
            "tricks": _compact(self.tricks), "scores": scores, "multiplier": multiplier,
            "breakdown": rows, "saayda": saayda, "over": total > 13, "all_pass": self.all_pass,
            "totals": list(self.totals),
        })
        if self.round_index + 1 < self.rounds:
            self._start_round()
        else:
            self._finish()

    def _finish(self, exclude: int | None = None) -> None:
        """E-35, E-36 (K-15); E-37: a leaver cannot win."""
        self.phase = "over"
        self.to_act = None
        contenders = [s for s in SEATS if s != exclude]
        top = max(self.totals[s] for s in contenders)
        winners = [s for s in contenders if self.totals[s] == top]
        self.result = {"winners": winners, "draw": len(winners) > 1}

    def leave(self, seat: int) -> None:
        """E-37: leaving ends the match at once; the standings decide, the leaver loses."""
        self._check_seat(seat)
        if self.result is not None:
            raise IllegalAction("the match is over")
        self.log.append((seat, {"type": "leave"}))
        self.left = seat
        self._finish(exclude=seat)

    # ---- the turn timer ------------------------------------------------------------

    def auto_action(self, seat: int) -> Action:
        if seat != self.to_act:
            raise IllegalAction("it is not that seat's turn")
        phase = self.phase
        if phase == "dash":
            return DASH_DECLINE
        if phase == "auction":
            return PASS
        if phase == "call":
            call: CallAction
            if self.kind == "fixed":
                n, fixed = self.declarations[seat], suit_code(self.fixed_trump)
                assert n is not None and fixed is not None
                call = {"type": "call", "n": n, "suit": fixed}
            else:
                assert self.bid is not None
                n, s = self.bid
                call = {"type": "call", "n": n, "suit": s}
            return call
        if phase == "declare":
            from .auto import estimate_tricks
            want = estimate_tricks(self.hands[seat], self.trump)
            legal = self._legal_declarations()
            return DECLARE[min(legal, key=lambda n: (abs(n - want), n))]
        from .auto import choose_card
        return PLAY[choose_card(self, seat)]

    # ---- view ---------------------------------------------------------------------

    def view(self, seat: int | None) -> View:
        bid: Contract | None = None
        if self.bid is not None:
            bid = {"n": self.bid[0], "suit": self.bid[1]}
        v = self._view(seat)
        v["round"] = min(self.round_index + 1, self.rounds)
        v["kind"] = self.kind
        v["fixed_trump"] = suit_code(self.fixed_trump)
        v["auction"] = {"bid": bid, "owner": self.owner, "with_players": list(self.with_players),
                        "passed": list(self.passed), "dash_players": list(self.dash_players),
                        "bids": [t.copy() for t in self.turns]}
        v["dash_players"] = list(self.dash_players)
        v["with_players"] = [] if self.kotshina else list(self.with_players)
        v["all_pass"] = self.all_pass
        v["caller"] = self.caller
        v["call"] = None if self.call is None else {"n": self.call[0], "suit": self.call[1]}
        v["last_declarer"] = self.last_declarer
        v["forbidden"] = self._forbidden()
        v["multiplier"] = self.multiplier
        v["over_under"] = self._over_under()
        return v

    def _over_under(self) -> OverUnder | None:
        """E-22, E-23 (K-9): while the round is played, over or under and by how much,
        and the last declarer if they are in risk (never in an all-pass round of the
        committee's rules: E-33)."""
        decl = self.declarations
        if self.phase != "play" or any(d is None for d in decl):
            return None
        total = sum(d for d in decl if d is not None)
        last = self.last_declarer
        if last is None:
            risk = False
        elif self.kotshina:
            risk = scoring.kotshina_risk(total) > 0
        else:
            n = decl[last]
            risk = not self.all_pass and n is not None and scoring.committee_risk(total, n)
        return {"total": total, "over": total > 13, "by": abs(total - 13),
                "at_risk": last if risk else None}


_ESTIMATION_HANDLERS: dict[str, Handler] = {
                        "dash": EstimationMatch._dash, "bid": EstimationMatch._bid,
                        "with": EstimationMatch._with, "pass": EstimationMatch._pass,
                        "call": EstimationMatch._call, "declare": EstimationMatch._declare}


# =============================================================================
# Tarneeb 41
# =============================================================================


class TarneebMatch(Match):
    game = "tarneeb41"
    # Leaving does not end a Tarneeb match: the room seats a computer player.
    LEAVING_ENDS_MATCH = False

    def __init__(self, length: Length, seed: int | None, deals: Sequence[Deal] | None,
                 board: Board | None = None):
        if length is not None:
            raise ValueError("tarneeb41 has no length")
        super().__init__(seed, deals)
        self.length = None
        self.rounds = None
        self.hand_no = 0              # scored hands (T-13: a void hand is not numbered)
        self.dealer = -1
        first = 0
        if board is not None:
            # One scored hand from the board's dealer (a void one is dealt again by the
            # next player, T-13): a duplicate event's board (engine.duplicate).
            self.board = check_board(self.game, board)
            first = self.board["dealer"]
        self._start_hand(first)

    def _start_hand(self, dealer: int) -> None:
        self.dealer = dealer
        deal = self._next_deal(dealer)
        self.hands = [mask_of(h) for h in deal]
        self.shown_card = deal[dealer][12]                       # T-8: the dealer's 13th card
        shown_suit = self.shown_card // 13
        self.trump = {0: 3, 3: 0, 1: 2, 2: 1}[shown_suit]         # T-9: S↔C, H↔D
        self.trick, self.tricks, self.leader = [], [], None
        self.taken = [0, 0, 0, 0]
        self.declarations = [None] * 4
        self.phase = "declare"
        self.decl_order = [(dealer + i) % 4 for i in range(1, 5)]  # T-12: dealer last
        self.decl_pos = 0
        self.to_act = self.decl_order[0]

    def _legal_other(self, seat: int) -> list[Action]:
        return [DECLARE[n] for n in range(2, 14)]                # T-12

    def _apply_other(self, seat: int, action: Mapping[str, object], kind: object) -> None:
        if kind != "declare":
            if kind in ("dash", "bid", "with", "pass", "call"):
                raise IllegalAction("Tarneeb has no auction: every player declares 2 to 13")  # T-11
            raise _unknown_type(kind)
        if self.phase != "declare":
            raise IllegalAction("you cannot declare now: {phase}", phase=self._phase_words())
        n = _int(action.get("n"))
        if n is None or not 2 <= n <= 13:
            raise IllegalAction("declare a number from 2 to 13 (there is no pass)")  # T-12
        self.log.append((seat, DECLARE[n]))
        self.declarations[seat] = n
        self.decl_pos += 1
        if self.decl_pos < 4:
            self.to_act = self.decl_order[self.decl_pos]
            return
        if sum(self._declared()) < 11:
            # T-13: void, not numbered; the next player deals a new shuffle.
            self._history.append({"round": self.hand_no + 1, "void": True, "dealer": self.dealer,
                                 "shown_card": CODES[self.shown_card],
                                 "trump": suit_code(self.trump),
                                 "declarations": self._declared()})
            self._start_hand((self.dealer + 1) % 4)
            return
        self.phase = "play"
        self.leader = self.decl_order[0]                         # T-14
        self.to_act = self.leader

    def _end_round(self) -> None:
        decl = self._declared()
        taken = list(self.taken)
        rows, scores, made = scoring.tarneeb(decl, taken)
        for s in SEATS:
            self.totals[s] += scores[s]                          # T-19
        self.hand_no += 1
        self._history.append({
            "round": self.hand_no, "void": False, "kind": "hand", "dealer": self.dealer,
            "shown_card": CODES[self.shown_card], "trump": suit_code(self.trump),
            "caller": None, "call": None, "with_players": [], "dash_players": [],
            "declarations": decl, "tricks_taken": taken, "made": made,
            "tricks": _compact(self.tricks), "scores": scores, "multiplier": 1,
            "breakdown": rows, "totals": list(self.totals),
            "team_totals": self.team_totals(),
        })
        if self.board is not None:
            # A board is one hand: the side with more of it has the better of it.
            self.phase = "over"
            self.to_act = None
            hand = [scores[0] + scores[2], scores[1] + scores[3]]
            if hand[0] == hand[1]:
                self.result = {"winners": [0, 1, 2, 3], "draw": True}
            else:
                team = 0 if hand[0] > hand[1] else 1
                self.result = {"winners": [team, team + 2], "draw": False}
            return
        winner = self._winning_team()
        if winner is None:
            self._start_hand((self.dealer + 1) % 4)              # T-3, T-22
        else:
            self.phase = "over"
            self.to_act = None
            self.result = {"winners": [winner, winner + 2], "draw": False}

    def team_totals(self) -> list[int]:
        t = self.totals
        return [t[0] + t[2], t[1] + t[3]]                        # T-4

    def _winning_team(self) -> int | None:
        t = self.totals
        q = [team for team in (0, 1) if scoring.tarneeb_qualifies(t[team], t[team + 2])]  # T-20, T-21
        if len(q) == 1:
            return q[0]                                          # T-22
        if len(q) == 2:
            tt = self.team_totals()
            if tt[0] != tt[1]:
                return 0 if tt[0] > tt[1] else 1                 # T-23
        return None                                              # T-23: tie → another hand

    def leave(self, seat: int) -> None:
        """In Tarneeb leaving does not end the match: the room seats a computer player."""
        self._check_seat(seat)

    def auto_action(self, seat: int) -> Action:
        """T-25, exactly."""
        if seat != self.to_act:
            raise IllegalAction("it is not that seat's turn")
        if self.phase == "declare":
            if self.decl_pos == 3:
                rest = 11 - sum(d for d in self.declarations if d is not None)
                return DECLARE[min(13, max(2, rest))]
            return DECLARE[2]
        return PLAY[self._weakest_card(seat)]

    def view(self, seat: int | None) -> View:
        v = self._view(seat)
        v["round"] = self.hand_no + (0 if self.phase == "over" else 1)
        v["kind"] = "hand"
        v["last_declarer"] = self.decl_order[3]
        v["shown_card"] = CODES[self.shown_card]
        v["teams"] = [[0, 2], [1, 3]]
        v["team_totals"] = self.team_totals()
        return v
