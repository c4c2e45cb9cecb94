"""One typed error per kind of failure."""


class IllegalAction(ValueError):
    """An action the rules refuse now. The message is for a player; nothing changed."""


class BadDeal(ValueError):
    """A stacked deal that is not four hands of 13 distinct cards."""
