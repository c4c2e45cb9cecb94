"""The per-game description (engine.catalogue.Terms): one place screens read what differs
by game, checked against the rules themselves."""



def test_every_game_has_one_description_that_agrees_with_the_rules():
    from engine import EstimationMatch, TarneebMatch, new_match
    from engine.catalogue import GAMES, LENGTHS, TERMS, TITLES, terms
    from engine.records import BADGE_OF
    assert set(TERMS) == set(GAMES)
    for game in GAMES:
        t = terms(game)
        assert t.game == game and t.title == TITLES[game]
        assert t.badge == BADGE_OF[game]
        m = new_match(game, seed=1)
        # With exists exactly where the rules have it (none in K-1, none in Tarneeb 41);
        # partners exactly in Tarneeb; a length in rounds exactly where it is a number.
        assert t.with_call == (isinstance(m, EstimationMatch) and not m.kotshina)
        assert t.teams == isinstance(m, TarneebMatch) == t.hands
        assert t.length_in_rounds == all(isinstance(n, int) for n in LENGTHS[game])
    assert terms("no-such-game") is TERMS["estimation"]
