"""Golden screens of a round's review (issue 29): a phone's windows (40×20, 50×32) and
the standard one, in English and in Arabic (shaped); written and compared as
tests/test_golden.py does (``--update-golden``). The review is fixed
(tests/reviewshow.py): these change only with the screen."""

from __future__ import annotations

import pytest
from reviewshow import open_review
from test_golden import LANGUAGES, SLOW, compare, screen_text

from engine.room import Registry
from tui.app import LammaApp
from tui.cards import Look

REVIEW_SIZES = [(40, 20), (50, 32), (80, 24)]


@pytest.mark.parametrize("size", REVIEW_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("language,mode", LANGUAGES, ids=[lang for lang, _ in LANGUAGES])
async def test_the_review_of_a_round(request: pytest.FixtureRequest, language: str,
                                     mode: str | None, size: tuple[int, int]) -> None:
    app = LammaApp(Registry(bot_pause=SLOW, trick_pause=0.0), "ali", "key:x:ali",
                   look=Look(language=language, text_mode=mode))
    async with app.run_test(size=size) as pilot:
        await open_review(app, pilot, ["ali", "Bot-2", "Bot-3", "Bot-4"])
        compare(request, f"review-{language}-{size[0]}x{size[1]}", screen_text(app))
