"""Small widgets that render themselves from state and refresh only when
their text changed (no Static.update relayouts)."""
