"""The player's language (issue 14): catalogues, right-to-left lines, Arabic keys.

The catalogue test extracts every message the code marks (``_``, ``N_``,
``ngettext``, ``pgettext``, and the texts of ``IllegalAction`` and ``RoomError``,
which reach people) with Babel, as ``pybabel extract`` would, and fails when one
lacks its Arabic, when a translation drops or invents a ``{placeholder}``, or when
the catalogue keeps a message no code says any more.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir, extract_from_file
from babel.messages.pofile import read_po
from rich.text import Text

from tui.i18n import (
    ARABIC_KEYS,
    LOCALE_DIR,
    Speech,
    catalogue,
    language_from_env,
    latin_key,
)

ROOT = Path(__file__).resolve().parent.parent
KEYWORDS = {
    "_": None, "N_": None, "gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2),
    "IllegalAction": None, "RoomError": None,
}
SOURCES = ("tui", "engine")
# Transport modules that say something to a person (refusals before the app, kicks).
SOURCE_FILES = ("server/ssh.py", "server/connections.py", "server/sessions.py",
                "server/service.py", "server/refusals.py", "server/moderation.py",
                "server/cli.py", "server/cluster.py", "server/web/listener.py",
                "server/web/links.py", "server/web/app.py")


def marked_messages() -> dict[tuple[str | None, str], tuple[str, int]]:
    """(context, msgid) -> (file, line) of every marked message in the code. A marked
    f-string with substitutions cannot be translated: it fails here."""
    found: dict[tuple[str | None, str], tuple[str, int]] = {}
    said = io.StringIO()
    with contextlib.redirect_stderr(said):      # Babel writes its warnings there
        for top in SOURCES:
            for path, line, msg, _comments, context in extract_from_dir(
                    ROOT / top, method_map=[("**.py", "python")], keywords=KEYWORDS,
                    comment_tags=(), strip_comment_tags=True):
                msgid = msg[0] if isinstance(msg, tuple) else msg
                if msgid:
                    found.setdefault((context, msgid), (f"{top}/{path}", line))
        for name in SOURCE_FILES:
            for line, msg, _comments, context in extract_from_file(
                    "python", ROOT / name, keywords=KEYWORDS, comment_tags=(),
                    strip_comment_tags=True):
                msgid = msg[0] if isinstance(msg, tuple) else msg
                if msgid:
                    found.setdefault((context, msgid), (name, line))
    untranslatable = [line.split(": warning")[0] for line in said.getvalue().splitlines()
                      if "f-string" in line]
    assert not untranslatable, "marked f-strings:\n" + "\n".join(untranslatable)
    return found


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w*)[^{}]*\}", text))


def arabic_catalog():
    with (LOCALE_DIR / "ar.po").open("rb") as f:
        return read_po(f, locale="ar")


def test_every_marked_message_has_its_arabic():
    catalog = arabic_catalog()
    missing = []
    for (context, msgid), where in sorted(marked_messages().items(), key=lambda kv: kv[1]):
        m = catalog.get(msgid, context=context)
        strings = m.string if m is not None and isinstance(m.string, tuple) else (
            (m.string,) if m is not None else ("",))
        if m is None or m.fuzzy or not all(strings):
            missing.append(f"{where[0]}:{where[1]}: {msgid!r}")
    assert not missing, "messages without Arabic:\n" + "\n".join(missing)


def test_translations_keep_their_placeholders():
    wrong = []
    for m in arabic_catalog():
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        want = set().union(*(placeholders(i) for i in ids))
        for s in strings:
            if s and not placeholders(s) <= want:
                wrong.append(f"{ids[0]!r} -> {s!r}")
            # A singular may drop {n} (Arabic says "one point"), but nothing else.
            if s and placeholders(s) | {"n"} < want:
                wrong.append(f"{ids[0]!r} -> {s!r} drops {want - placeholders(s)}")
    assert not wrong, "\n".join(wrong)


# Messages that carry a number the code does not fix (a duration, a configured limit,
# a length) and that _ translates, not ngettext: an Arabic noun after a number changes
# with the number (3-10 plural, 11-99 singular accusative, 100 and up genitive), so
# their Arabic says the number last, after a colon or in brackets, never before a noun.
ANY_NUMBER = (
    "An operator has muted you for {minutes} more minute(s).",
    "An operator has muted you for {n} min.",
    "An operator has muted you for {n} h.",
    "An operator has muted you for {n} d.",
    "Your key already has {n} names; connect under one of them.",
    "Your key has {n} connections open here already; close one first.",
    "At most {n} sessions at once on one connection.",
    "At most {n} combining marks on one letter of a name.",
    "At most {n} combining accents in a name.",
    "You ignore {n} names already; /unignore one first.",
    "Paste cut to {n} characters.",
    "… and {n} others",
    "… and {n} other scores",
    "You have {n} reviews being worked out: try again in {seconds} s.",
    "The computer players are busy: try again in {seconds} s.",
    "Your link code: {code}. Enter it on the room's web page ({url}) within {n} minutes; "
    "it works once.",
    "Browsers unlinked: {n}.",
    "Too many guests from your address (at most {n} at once).",
)


def test_a_number_the_code_does_not_fix_is_not_followed_by_a_noun():
    by_id = {m.id: m.string for m in arabic_catalog() if isinstance(m.id, str)}
    wrong = []
    for msgid in ANY_NUMBER:
        ar = by_id[msgid]
        for name in placeholders(msgid):
            if re.search(r"\{" + name + r"\}\s*[\u0621-\u064a]", ar):
                wrong.append(f"{msgid!r} -> {ar!r}")
    assert not wrong, "\n".join(wrong)


def test_the_catalogue_keeps_no_message_the_code_no_longer_says():
    said = marked_messages()
    stale = [m.id for m in arabic_catalog()
             if m.id and ((m.context, m.id[0] if isinstance(m.id, tuple) else m.id)
                          not in said)]
    assert not stale, f"in ar.po but not in the code: {stale}"


def test_a_message_is_translated_by_the_players_language():
    ar, en = Speech("ar"), Speech("en")
    assert ar._("Arabic on this terminal") == "العربية على هذه الشاشة"
    assert en._("Arabic on this terminal") == "Arabic on this terminal"
    assert ar._("a message nobody translated") == "a message nobody translated"
    assert catalogue("ar").plural(2) == 2 and catalogue("ar").plural(11) == 4


@pytest.mark.parametrize("env, want", [
    ({"LANG": "ar_EG.UTF-8"}, "ar"),
    ({"LANG": "ar_SY.UTF-8"}, "ar"),
    ({"LANG": "en_US.UTF-8"}, "en"),
    ({"LANG": "en_US.UTF-8", "LC_ALL": "ar_EG.UTF-8"}, "ar"),       # LC_ALL first
    ({"LANG": "ar_EG.UTF-8", "LC_MESSAGES": "en_GB.UTF-8"}, "en"),  # then LC_MESSAGES
    ({"LANG": "C.UTF-8"}, None),
    ({"LANG": "fr_FR.UTF-8"}, None),
    ({"LANG": b"ar_EG.UTF-8"}, "ar"),
    ({"LANG": "\x1b[31mar"}, None),
    ({}, None),
])
def test_the_clients_locale_chooses_the_language(env, want):
    assert language_from_env(env) == want


def test_an_arabic_line_is_right_aligned_and_mirrored_with_cards_left_to_right():
    t = Text("الورق: ")
    t.append("10♠", style="bold")
    t.append(" ")
    t.append("Q♥", style="red")
    line = Speech("ar", "shaped").line(t, 30)
    assert len(line.plain) == 30 and line.plain.startswith(" ")
    # The label (said first) is at the right, joined; the cards keep their order
    # inside and their styles.
    assert line.plain.rstrip().endswith(":ﻕﺭﻮﻟﺍ")
    assert "10♠" in line.plain and "Q♥" in line.plain
    assert line.plain.index("Q♥") < line.plain.index("10♠")
    assert line.plain[line.spans[-1].start:line.spans[-1].end] == "10♠"
    # Logical mode: the terminal orders and joins; the text is sent as it is read.
    logical = Speech("ar", "logical").line(t, 30)
    assert logical.plain.strip() == "الورق: 10♠ Q♥" and len(logical.plain) == 30
    # English lines are left as they are.
    assert Speech("en").line(Text("Options"), 30).plain == "Options"


def test_arabic_in_an_english_interface_is_shaped_in_its_own_direction():
    en = Speech("en", "shaped")
    assert en.show("Alice: مرحبا") == "Alice: ﺎﺒﺣﺮﻣ"
    assert Speech("en", "logical").show("Alice: مرحبا") == "Alice: مرحبا"
    assert en.show("plain") == "plain"


def test_arabic_layout_keys_act_as_their_latin_twins():
    # The issue's own examples, each on the same physical key.
    for arabic, latin in {"ح": "p", "ى": "n", "ي": "d", "س": "s", "ص": "w", "ق": "r",
                          "ؤ": "c", "ا": "h", "لا": "b"}.items():
        assert latin_key(arabic) == (latin, latin)
    assert latin_key("٣") == ("3", "3") and latin_key("۷") == ("7", "7")
    assert latin_key("؟") == ("question_mark", "?")
    assert latin_key("x") is None
    # Every Latin letter is reachable from the layout.
    assert set("abcdefghijklmnopqrstuvwxyz") <= set(ARABIC_KEYS.values())


def test_a_left_to_right_run_keeps_its_spaces_on_the_reading_side():
    """Runs are reversed for a right-to-left line; a Latin run's edge spaces change
    sides with it, so a bid and the name after it do not run together."""
    t = Text("المزايدة القائمة ")
    t.append("5♣", style="bold")
    t.append(" Bot-4")
    line = Speech("ar", "shaped").line(t, 0).plain
    assert "Bot-4 5♣" in line and "Bot-45♣" not in line


async def test_the_server_reads_the_catalogues_at_its_start(tmp_path):
    """So the first Arabic session does not stop the loop to read one (~0.1 s)."""
    from conftest import start_room, stop_room

    from tui import i18n
    i18n.catalogue.cache_clear()
    srv = await start_room(tmp_path)
    try:
        assert i18n.catalogue.cache_info().currsize == len(i18n.LANGUAGES)
    finally:
        await stop_room(srv)
