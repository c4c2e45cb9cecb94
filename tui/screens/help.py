"""Help: every key on every screen, and a short summary of the game at hand."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..widgets.lines import KeyBar

KEYS = """\
Lobby
  ↑ ↓  choose a table      Enter  sit down       w  watch
  p    quick play          n      new table      ?  help       q  quit
  i    your profile        b      leaderboard    r  replays
  /    a command: /ignore, /report, an operator's /kick … (/help lists them)
  j    join a private table by its code (Enter joins, Esc back)
  t    take a computer player's seat (0-3 the seat, Esc back): at once
       before the start or between rounds, else when the round ends;
       the match then no longer counts for level points

Profile, leaderboard, replays
  b  leaderboard   r  replays   ↑ ↓  choose   Enter  watch   Esc  back
  Replay   ← → (or p n)  trick by trick    PgUp PgDn  round by round
           Home End  first and last trick   (every hand is open)

Table
  Dash offer   y  take the dash call (no trick at all)   n  play normally
  Auction      ← → number  n s h d c suit  Enter bid  p pass  w With
  Call         ← →  raise the number, suit keys change it, Enter confirms
  Declaring    ← → or digits (1 then 0–3 for 10–13), Enter declares
  Play         ← →  move between playable cards, Enter or Space plays;
               or type it: rank a k q j t 2-9 (10 for ten), suit s h d c
  Anywhere     r  score sheet   /  chat   o  options (ASCII suits,
               monochrome, English terms only, reduce motion)
               b  computer players fill empty seats (before the start)
               ?  help   Ctrl+L  redraw   Esc  back   q  leave, asks first
               (x while choosing a card, where q means queen)

Commands (typed in chat, or after / in the lobby)
  /ignore NAME   hide their chat     /unignore NAME    /ignored   who you ignore
  /report NAME REASON   tell the room's operators     /help   what you may do
  Operators (keys in keys/operators on the server) also have:
  /who  /tables  /announce TEXT  /mute NAME [30m|2h|7d]  /unmute NAME
  /kick NAME [REASON]  /ban NAME|key:FP|addr:IP [TIME] [REASON]  /unban  /bans
  /close TABLE  /reports  /log    (every one is logged with who did it)
"""


def terms_text(english_only: bool) -> str:
    from ..arabic import TERMS, shaped
    if english_only:
        return ""
    names = [("dash", "Dash"), ("with", "With"), ("risk", "Risk"), ("saayda", "Sa'ayda"),
             ("tarneeb", "Tarneeb")]
    return "Terms  " + "   ".join(f"{e} {shaped(TERMS[k])}" for k, e in names) + "\n"

RULES = {
    "estimation": """\
Estimation (Egyptian committee rules): 4 players, each alone, 13 tricks a round.
Each round: dash offer (promise no trick; at most two), auction (4–13 tricks and
a suit; NT > ♠ > ♥ > ♦ > ♣; With joins the standing bid), the caller confirms or
raises, everyone declares (the last one may not make the total 13), then play:
follow suit, trump wins. Aim for exactly your number. Made: 13 + tricks and
bonuses; missed: minus the difference and bonuses.""",
    "estimation-kotshina": """\
Estimation, calculator scoring: auction rounds as in Estimation (without With),
then five fixed rounds (NT ♠ ♥ ♦ ♣) where everyone declares 0–13 and the highest
declarer is the caller (8 or more may change the trump). Made: 10 + tricks;
missed: minus the difference. Caller and With ±10, sole winner/loser ±10, risk for
the last declarer; if all four miss (Sa'ayda) the next round counts double.""",
    "tarneeb41": """\
Tarneeb 41 (Syrian): partners sit opposite. The dealer's last card is shown; trump
is the other suit of its colour. Everyone declares 2–13 tricks (a total under 11
voids the hand). Take at least your number: made adds it, failed subtracts it.
A team wins when one player reaches 41 while the partner is above zero.""",
}


class HelpScreen(ModalScreen):
    BINDINGS = [
        Binding("escape", "close", show=False, id="help.back"),
        Binding("question_mark", "close", show=False, id="help.close"),
        Binding("q", "close", show=False, id="help.quit"),
        Binding("enter", "close", show=False, id="help.enter"),
    ]

    def __init__(self, game: str | None) -> None:
        super().__init__()
        self.game = game

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static(id="help-text")      # wraps to any width of 80 and up
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        t = Text()
        t.append(" Help\n\n", style="bold")
        t.append(KEYS)
        look = getattr(self.app, "look", None)
        t.append("\n" + terms_text(bool(getattr(look, "english_only", False))))
        if self.game in RULES:
            t.append("\n")
            t.append(RULES[self.game].replace("\n", " "))   # one paragraph: Static wraps it
        else:
            t.append("\nGames: Estimation, Estimation (calculator scoring), Tarneeb 41.\n"
                     "Open a table and press ? there for its rules summary.")
        self.query_one("#help-text", Static).update(t)
        self.query_one("#keys", KeyBar).show([("esc", "back"), ("↑↓", "scroll")])
        self.query_one("#help").focus()      # so ↑ ↓ PgUp PgDn scroll the text

    def action_close(self) -> None:
        self.app.pop_screen()
