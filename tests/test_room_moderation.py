"""The room's side of moderation, without a server: the ignore list, mutes, an operator
closing a table, and a room without operators refusing their commands."""

from __future__ import annotations

import pytest

from server.room import Registry, RoomError, Session, ignores


class Ear(Session):
    def __init__(self, name: str):
        super().__init__(name, f"key:fp-{name}:{name}")
        self.notices: list[str] = []
        self.closed_tables: list[str] = []

    def notice(self, text: str) -> None:
        self.notices.append(text)

    def table_changed(self, table, what: str) -> None:
        if what == "closed":
            self.closed_tables.append(table.id)


def test_ignore_list_is_per_member_and_by_name():
    reg = Registry()
    ann = Ear("ann")
    assert "no longer see" in reg.moderator.command(ann, "/ignore Bob")
    assert ignores(ann, "bob") and ignores(ann, "BOB°")     # a guest of that name too
    assert not ignores(Ear("carl"), "bob")
    with pytest.raises(RoomError, match="yourself"):
        reg.moderator.command(ann, "/ignore ann")
    assert "bob" in reg.moderator.command(ann, "/ignored")
    reg.moderator.command(ann, "/unignore bob")
    assert not ignores(ann, "bob")
    with pytest.raises(RoomError, match="Unknown command"):
        reg.moderator.command(ann, "/kick bob")              # no operators in this room


def test_a_muted_player_cannot_chat_until_unmuted():
    reg = Registry()
    t = reg.create("estimation")
    bob = Ear("bob")
    t.sit(bob, 0)
    reg.mutes.mute("Bob", 600)
    with pytest.raises(RoomError, match="muted you for 10 more"):
        t.say(bob, "hello")
    assert not t.chat
    reg.mutes.unmute("bob")
    t.say(bob, "hello")
    assert list(t.chat) == [("bob", "hello")]
    reg.mutes.mute("bob", -1)                                # already over: no effect
    t.say(bob, "again")


def test_an_operator_closing_a_table_tells_everyone_at_it():
    reg = Registry()
    t = reg.create("estimation")
    ann, eve = Ear("ann"), Ear("eve")
    t.sit(ann, 0)
    t.watch(eve)
    reg.close_table(t, "An operator closed this table.")
    assert t.id not in reg.tables and t.closed
    assert ann.notices == eve.notices == ["An operator closed this table."]
    assert ann.closed_tables == eve.closed_tables == [t.id]
    assert ann.table is None and eve.table is None
