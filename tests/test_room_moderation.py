"""The room's side of moderation, without a server: the ignore list, mutes, an operator
closing a table, and a room without operators refusing their commands."""

from __future__ import annotations

import pytest

from engine.room import Registry, RoomError, Session, ignores


class Ear(Session):
    def __init__(self, name: str):
        super().__init__(name, f"key:fp-{name}:{name}")
        self.notices: list[str] = []
        self.closed_tables: list[str] = []

    def notice(self, text: str) -> None:
        self.notices.append(text)

    def table_changed(self, change) -> None:
        if change.what == "closed":
            self.closed_tables.append(change.table.id)


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


def test_the_ignore_list_takes_names_only_and_has_a_cap():
    from engine.room.moderation import IGNORE_MAX
    reg = Registry()
    ann = Ear("ann")
    with pytest.raises(RoomError, match="not a player's name"):
        reg.moderator.command(ann, "/ignore " + "x" * 40)
    for i in range(IGNORE_MAX):
        reg.moderator.command(ann, f"/ignore p{i}")
    with pytest.raises(RoomError, match=f"{IGNORE_MAX} names already"):
        reg.moderator.command(ann, "/ignore one-more")
    assert len(ann.ignoring) == IGNORE_MAX


def test_a_mute_holds_the_key_and_a_guests_connection_not_only_the_name():
    reg = Registry()
    t = reg.create("estimation")
    bob = Session("bob", "key:SHA256:abc:bob")
    t.sit(bob, 0)
    reg.mutes.mute("bob", 600, bob)
    other_name = Session("robert", "key:SHA256:abc:robert")      # the same key
    t.watch(other_name)
    with pytest.raises(RoomError, match="muted"):
        t.say(other_name, "it's me again")
    guest = Session("zed", "guest:tok123:zed", guest=True)
    guest.address = "192.0.2.7"
    t.watch(guest)
    reg.mutes.mute("zed", 600, guest)
    again = Session("zed2", "guest:tok999:zed2", guest=True)     # new name, same address
    again.address = "192.0.2.7"
    t.watch(again)
    with pytest.raises(RoomError, match="muted"):
        t.say(again, "hello")
    assert reg.mutes.unmute("bob")
    t.say(other_name, "free again")


def test_addresses_are_counted_as_a_client_holds_them():
    from server.limits import address_key
    assert address_key("192.0.2.7") == "192.0.2.7"
    assert address_key("::ffff:192.0.2.7") == "192.0.2.7"              # dual-stack listener
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:ffff::9")
    assert address_key("2001:db8:1:2::1") == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:3::1") != address_key("2001:db8:1:2::1")
    assert address_key("?") == "?"
