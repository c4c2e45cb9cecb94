"""Refusals and the room's other words, in the player's language (issue 14).

``IllegalAction`` and ``RoomError`` keep the template and the parameters their
message was made from: ``str(e)`` is the English message as it always was (the
JSON interface sends it), and ``Speech.error`` says it in Arabic from the
catalogue. So do the room's other words (kicks, dropped requests, narration),
which are ``Said`` strings, and the refusals the SSH front end writes to a
terminal before the app."""

from __future__ import annotations

import pickle
import random
import re

import pytest

from engine import IllegalAction, new_match
from engine.room import Registry, RoomError, Said, Session, own_command
from engine.room.catalogue import parse_game, parse_length, parse_level, parse_seats, parse_timer
from engine.room.text import check_name
from server.refusals import said_to, speech_for
from server.sessions import SessionHandler
from tui.i18n import Speech, catalogue

AR = Speech("ar", "logical")
JUNK = [None, 1, "x", {}, {"type": None}, {"type": "fly" * 10}, {"type": "play"},
        {"type": "play", "card": "ZZ"}, {"type": "play", "card": ["AS"]},
        {"type": "play", "card": "{x}"}, {"type": "bid", "n": 3, "suit": "S"},
        {"type": "bid", "n": 14, "suit": "NT"}, {"type": "bid", "n": 5, "suit": "X"},
        {"type": "bid", "n": 4}, {"type": "bid", "n": 4, "suit": "S"},
        {"type": "bid", "n": 13, "suit": "NT"}, {"type": "declare", "n": -1},
        {"type": "declare", "n": 14}, {"type": "declare", "n": 0}, {"type": "declare", "n": 13},
        {"type": "call", "n": 2, "suit": "S"}, {"type": "call", "n": 13, "suit": "NT"},
        {"type": "call", "n": "x"}, {"type": "dash", "take": "yes"},
        {"type": "dash", "take": False}, {"type": "with"}, {"type": "pass"}]
ARABIC = re.compile("[\u0600-\u06ff]")


def said_in_arabic(e) -> str:
    """``e`` (an error or a ``Said``) has a template with its Arabic, which takes
    the parameters; its English is the template filled in. The Arabic, filled in."""
    assert isinstance(e.template, str) and e.template
    english = e.template.format(**e.params) if e.params else e.template
    assert str(e) == english
    arabic = catalogue("ar").messages.get((None, e.template))
    assert isinstance(arabic, str), f"no Arabic for {e.template!r}"
    for word in (v for v in e.params.values() if isinstance(v, str)):
        assert AR._(word) == word or ARABIC.search(AR._(word)), word
    said = AR.error(e)
    arabic.format(**{k: AR._(v) if isinstance(v, str) else v for k, v in e.params.items()})
    assert ARABIC.search(said), (e.template, said)
    return said


# ------------------------------------------------------------------- the engine
@pytest.mark.parametrize("game, length", [("estimation", 18), ("estimation-kotshina", "mini"),
                                          ("tarneeb41", None)])
def test_every_refusal_of_random_matches_has_its_arabic(game, length):
    rnd = random.Random(14)
    templates = set()
    for seed in range(3):
        m = new_match(game, length, seed=seed)
        while m.to_act is not None and len(m.log) < 400:
            seat = m.to_act
            applied = False
            for junk in rnd.sample(JUNK, 8):
                try:
                    m.apply(seat, junk)            # type: ignore[arg-type]
                except IllegalAction as e:
                    said_in_arabic(e)
                    templates.add(e.template)
                else:
                    applied = True                 # a legal one: the next seat's turn
                    break
            if applied:
                continue
            for other in (s for s in range(4) if s != seat):
                with pytest.raises(IllegalAction) as info:
                    m.apply(other, {"type": "pass"})
                said_in_arabic(info.value)
            legal = m.legal_actions(seat)
            if m.game == "tarneeb41" and m.phase == "declare":
                m.apply(seat, m.auto_action(seat))
            else:
                m.apply(seat, rnd.choice(legal))
        with pytest.raises(IllegalAction) as info:
            m.apply(7, {"type": "pass"})
        said_in_arabic(info.value)
    # The sample reaches the phases' refusals, not only the first one.
    assert len(templates) >= 8, templates


def test_the_engines_messages_are_the_english_they_were():
    m = new_match("estimation", 18, seed=3)
    seat = m.to_act
    cases = {
        "it is not your turn": (seat + 1) % 4,
        "there is no seat 9": 9,
    }
    for message, who in cases.items():
        with pytest.raises(IllegalAction) as info:
            m.apply(who, {"type": "pass"})
        assert str(info.value) == message and isinstance(info.value, ValueError)
    want = {
        '{"type": "play", "card": "ZZ"}': "no card can be played now: answer the dash offer",
        '{"type": "bid", "n": 5, "suit": "S"}': "you cannot bid now: answer the dash offer",
        '{"type": "fly"}': "unknown action type 'fly'",
        '{"type": 3}': 'an action needs a "type"',
        '{"type": "dash", "take": 1}': "answer the dash offer with take true or false",
    }
    import json
    for action, message in want.items():
        with pytest.raises(IllegalAction) as info:
            m.apply(seat, json.loads(action))
        assert str(info.value) == message
        assert info.value.args == (message,)
    # The auction: a bid that does not beat the standing one, in both words.
    while m.phase == "dash":
        m.apply(m.to_act, {"type": "dash", "take": False})
    m.apply(m.to_act, {"type": "bid", "n": 5, "suit": "H"})
    with pytest.raises(IllegalAction) as info:
        m.apply(m.to_act, {"type": "bid", "n": 5, "suit": "D"})
    e = info.value
    assert str(e) == "5D does not beat the standing bid 5H"
    assert e.template == "{n}{suit} does not beat the standing bid {bid_n}{bid_suit}"
    assert AR.error(e) == "5D لا تعلو المزايدة القائمة 5H"
    # A phase's words are said in Arabic too.
    with pytest.raises(IllegalAction) as info:
        m.apply(m.to_act, {"type": "declare", "n": 3})
    assert str(info.value) == "you cannot declare now: the auction is on"
    assert AR.error(info.value) == "لا يمكنك الطلب الآن: المزاد جارٍ"
    # A client's value with braces is taken as it is, and said as it is.
    with pytest.raises(IllegalAction) as info:
        m.apply(m.to_act, {"type": "{x}"})
    assert str(info.value) == "unknown action type '{x}'"
    assert "'{x}'" in AR.error(info.value)


def test_a_refusal_survives_pickling_with_its_template():
    e = IllegalAction("declare a number from 0 to {cap}", cap=5)
    back = pickle.loads(pickle.dumps(e))
    assert str(back) == "declare a number from 0 to 5" and back.params == {"cap": 5}
    r = pickle.loads(pickle.dumps(RoomError("Table {table} is full.", table="3")))
    assert str(r) == "Table 3 is full." and r.template == "Table {table} is full."
    s = pickle.loads(pickle.dumps(Said("Round {round}: {scores}", round=2, scores="a +1")))
    assert s == "Round 2: a +1" and s.params == {"round": 2, "scores": "a +1"}
    # A command or a client's value inside Arabic stays whole on the terminal.
    shaped = Speech("ar", "shaped")
    said = shaped.show(shaped.error(RoomError("Usage: {command} NAME", command="/ignore")))
    assert said.startswith("/ignore NAME ")
    # A message made elsewhere (no params), braces and all, is kept as it is.
    assert str(RoomError("Unknown command '/{x}'")) == "Unknown command '/{x}'"
    assert AR.error(RoomError("Unknown command '/{x}'")) == "Unknown command '/{x}'"


# --------------------------------------------------------------------- the room
SLOW = 3600.0      # computer players never move by themselves here: the test moves them


def refusals_of_the_room() -> list[RoomError]:
    """A few of every kind of refusal the room gives, each caught."""
    reg = Registry(bot_pause=SLOW, trick_pause=0.0, tables_per_identity=1)
    ali, ben, cat = (Session(n, f"key:{n}:{n}") for n in ("ali", "ben", "cat"))
    caught: list[RoomError] = []

    def refused(call, *args, **kwargs):
        with pytest.raises(RoomError) as info:
            call(*args, **kwargs)
        caught.append(info.value)

    refused(parse_game, "chess")
    refused(parse_length, "estimation", 7)
    refused(parse_length, "tarneeb41", 7)
    refused(parse_timer, 5)
    refused(parse_level, "godlike")
    refused(parse_seats, [9])
    refused(reg.get, "nope")
    t = reg.create("estimation", 13, creator=ali)
    refused(reg.create, "estimation", 13, creator=ali)
    t.sit(ali, 0)
    refused(t.sit, ali, 1)
    refused(t.sit, ben, 0)
    refused(t.sit, ben, 7)
    refused(t.act, ali, {"type": "pass"})
    refused(t.act, cat, {"type": "pass"})
    refused(t.say, cat, "hi")
    refused(t.say, ali, "   ")
    refused(t.take_seat, ben, 1)
    refused(t.watch, ali)
    refused(t.fill_with_bots, ben, [1, 2, 3])        # only the host fills (docs/roles.md)
    t.fill_with_bots(ali, [1, 2, 3])
    refused(t.fill_with_bots, ali, [1])
    refused(t.sit, ben)
    m = t.match
    assert m is not None
    while m.to_act != 0:
        t.runner.check_and_apply(m.to_act, m.legal_actions(m.to_act)[0], "bot")
    refused(t.act, ali, "pass")
    refused(t.act, ali, {"type": "fly"})
    refused(t.runner.apply, 0, {"type": "declare", "n": 3}, "player")   # the engine's, via the room
    p = reg.create("tarneeb41", private=True, creator=ben)
    refused(reg.check_code, cat, p, None)
    refused(p.fill_with_bots, cat)                  # nobody sits there: nobody fills
    refused(reg.check_code, cat, p, "WRONG-123")
    for _ in range(5):
        try:
            reg.find_code(cat, "ZZZZ-ZZZZ")
        except RoomError as e:
            caught.append(e)
    refused(reg.find_code, cat, "ZZZZ-ZZZZ")
    refused(own_command, ali, "/ignore")
    refused(own_command, ali, "/ignore ali")
    refused(own_command, ali, "/ignore !!")
    reg.mutes.mute("ali", 600)
    refused(reg.mutes.check, ali)
    return caught


async def test_every_refusal_of_the_room_has_its_arabic():
    caught = refusals_of_the_room()
    assert len({e.template for e in caught}) >= 25
    for e in caught:
        said_in_arabic(e)
    by_template = {e.template: e for e in caught}
    e = by_template["Seat {seat} at table {table} is taken."]
    assert str(e) == "Seat 0 at table 1 is taken."
    assert AR.error(e) == "المقعد 0 على الطاولة 1 مشغول."
    # The engine's refusal passes through the room with its template.
    e = by_template["you cannot declare now: {phase}"]
    assert str(e) == f"you cannot declare now: {e.params['phase']}"


async def test_the_rooms_other_words_are_said_with_their_templates():
    # Narration: the first rounds with computer players, every line a Said with Arabic.
    reg = Registry(bot_pause=SLOW, trick_pause=0.0)
    ali = Session("ali", "key:ali:ali")
    t = reg.create("estimation", 13)
    t.sit(ali, 0)
    t.fill_with_bots(ali, [1, 2, 3])
    m = t.match
    assert m is not None
    for _ in range(60):
        t.runner.check_and_apply(m.to_act, m.legal_actions(m.to_act)[0], "bot")
    t.runner.check_and_apply(m.to_act, m.auto_action(m.to_act), "timer")
    events = list(t.events) + list(t.runner.news)
    assert events
    for ev in events:
        assert isinstance(ev.text, Said), ev.text
        said_in_arabic(ev.text)
    assert any(ev.text.endswith(" (timer)") for ev in events)
    # Replies to a player's own commands, a name refused at the door, a request.
    for reply in (own_command(ali, "/ignore ben"), own_command(ali, "/ignored"),
                  own_command(ali, "/unignore ben"), own_command(ali, "/ignored"),
                  check_name("admin")[1], check_name("a" * 30)[1], check_name("")[1]):
        assert isinstance(reply, Said)
        said_in_arabic(reply)
    assert isinstance(t.request_text(1), Said)
    assert said_in_arabic(t.request_text(1)).startswith("تأخذ المقعد 1")


# ------------------------------------------------------------------ the SSH side
class FakeProcess:
    def __init__(self, env):
        self.env = env
        self.out = b""
        self.code = None
        self.stdout = self

    def write(self, data: bytes) -> None:
        self.out += data

    def exit(self, code: int) -> None:
        self.code = code


def test_a_refusal_on_a_terminal_is_in_the_language_of_its_locale():
    handler = SessionHandler.__new__(SessionHandler)
    reason = Said("The name '{name}' is in use.", name="ali")
    ar = FakeProcess({"LANG": "ar_EG.UTF-8"})
    handler._refuse(ar, reason, json_mode=False)
    text = ar.out.decode()
    shaped = Speech("ar", "shaped")
    assert text == "lamma: " + shaped.show("الاسم 'ali' مستعمل.") + "\r\n" and ar.code == 1
    en = FakeProcess({"LANG": "en_GB.UTF-8"})
    handler._refuse(en, reason, json_mode=False)
    assert en.out == b"lamma: The name 'ali' is in use.\r\n"
    # The JSON interface stays English whatever the locale.
    js = FakeProcess({"LANG": "ar_SY.UTF-8"})
    handler._refuse(js, reason, json_mode=True)
    assert js.out == b'{"type": "error", "message": "The name \'ali\' is in use."}\n'
    # A kick's reason, said by the app's own speech (its language and text mode).
    kick = Said("You connected from another terminal; this one is closed.")
    assert said_to(Speech("ar", "logical"), kick) == "دخلت من شاشة أخرى، فأُغلقت هذه."
    assert said_to(speech_for({}), kick) == str(kick)
    # Text from elsewhere (no template) is written as it is.
    assert said_to(speech_for({"LANG": "ar"}), "plain words") == "plain words"


def turn_of(t, seat: int, phase: str, until=lambda m: True):
    """Move ``t``'s match on (the first legal action of whoever acts; a Tarneeb
    declaration of 3, so that a hand is not void) until ``seat`` acts in ``phase``
    and ``until(match)`` holds."""
    m = t.match
    assert m is not None
    for _ in range(400):
        if m.to_act == seat and m.phase == phase and until(m):
            return m
        legal = m.legal_actions(m.to_act)
        pick = next((a for a in legal if a == {"type": "declare", "n": 3}), legal[0])
        t.runner.check_and_apply(m.to_act, pick, "bot")
    raise AssertionError(f"seat {seat} never acted in {phase}")


async def test_an_illegal_action_says_the_rules_reason():
    """A program's illegal action (the JSON ``act``) is refused with the rules' reason,
    as a screen gives it, not only with the action it sent (finding: "Illegal action
    {...}." and nothing more); said in Arabic on an Arabic screen."""
    reg = Registry(bot_pause=SLOW, trick_pause=0.0)
    ali, ben = Session("ali", "key:ali:ali"), Session("ben", "key:ben:ben")
    t = reg.create("estimation", 13, creator=ali)
    t.sit(ali, 0)
    t.fill_with_bots(ali, [1, 2, 3])
    m = turn_of(t, 0, "auction")
    before = len(m.log)
    with pytest.raises(RoomError) as info:
        t.act(ali, {"type": "bid", "n": 3, "suit": "S"})
    assert str(info.value) == ('Illegal action {"type": "bid", "n": 3, "suit": "S"}: '
                               "a bid is a number of tricks from 4 to 13.")
    said = said_in_arabic(info.value)
    assert said.endswith(AR._("a bid is a number of tricks from 4 to 13") + "."), said
    assert len(m.log) == before and m.to_act == 0          # nothing changed
    # A card written as a person types it is refused for its form, with the legal one.
    t2 = reg.create("tarneeb41", creator=ben)
    t2.sit(ben, 0)
    t2.fill_with_bots(ben, [1, 2, 3])
    m2 = turn_of(t2, 0, "declare")
    with pytest.raises(RoomError) as info:
        t2.act(ben, {"type": "declare", "n": 1})
    assert str(info.value) == ('Illegal action {"type": "declare", "n": 1}: '
                               "declare a number from 2 to 13 (there is no pass).")
    with pytest.raises(RoomError) as info:
        t2.act(ben, {"type": "bid", "n": 5, "suit": "S"})
    assert str(info.value).endswith(": Tarneeb has no auction: every player declares 2 to 13.")

    def off_suit(m) -> bool:
        led = m.view(0)["trick"][:1]
        return bool(led) and any(c[-1] != led[0]["card"][-1] for c in m.view(0)["hand"]) \
            and any(c[-1] == led[0]["card"][-1] for c in m.view(0)["hand"])

    m2 = turn_of(t2, 0, "play", off_suit)
    view = m2.view(0)
    led = view["trick"][0]["card"][-1]
    card = next(c for c in view["hand"] if c[-1] != led)
    with pytest.raises(RoomError) as info:
        t2.act(ben, {"type": "play", "card": card})
    assert str(info.value).endswith(f": you must follow suit ({led}).")
    said_in_arabic(info.value)
    good = next(c for c in view["hand"] if c[-1] == led)
    typed = ("10" + good[-1] if good[0] == "T" else good[0] + good[-1]).lower()
    with pytest.raises(RoomError) as info:
        t2.act(ben, {"type": "play", "card": typed})
    assert str(info.value).endswith(
        f': write it as your legal actions write it: {{"type": "play", "card": "{good}"}}.')
    said_in_arabic(info.value)
    assert m2.view(0)["hand"] == view["hand"]               # nothing played
