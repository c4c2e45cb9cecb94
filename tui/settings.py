"""Per-player display settings (ASCII suits, monochrome, English terms only,
reduce motion), kept in the player's row of the store when there is one."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .host import Host


def load(app: Host) -> None:
    if app.look_loaded:
        return
    app.look_loaded = True
    member = app.member
    store = app.registry.records
    if store is None or member.guest:
        return
    try:
        app.look.update((store.settings(member.name) or {}).get("look") or {})
    except Exception:
        pass


def save(app: Host) -> None:
    member = app.member
    store = app.registry.records
    if store is None or member.guest:
        return
    try:
        d = dict(store.settings(member.name) or {})
        d["look"] = app.look.to_dict()
        store.save_settings(member.name, d)
    except Exception:
        pass
