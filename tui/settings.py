"""Per-player display settings (ASCII suits, monochrome, English terms only,
reduce motion), kept in the player's row of the store when there is one."""

from __future__ import annotations


def _store(app):
    st = getattr(app.registry, "store", None)
    inner = getattr(st, "store", None)
    if inner is not None and hasattr(inner, "settings"):
        return inner
    if st is not None and hasattr(st, "save_settings"):
        return st
    return None


def load(app) -> None:
    if getattr(app, "_look_loaded", False):
        return
    app._look_loaded = True
    member = app.member
    store = _store(app)
    if store is None or member.guest:
        return
    try:
        app.look.update((store.settings(member.name) or {}).get("look") or {})
    except Exception:
        pass


def save(app) -> None:
    member = app.member
    store = _store(app)
    if store is None or member.guest:
        return
    try:
        d = dict(store.settings(member.name) or {})
        d["look"] = app.look.to_dict()
        store.save_settings(member.name, d)
    except Exception:
        pass
