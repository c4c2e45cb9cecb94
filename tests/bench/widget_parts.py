"""The table's parts as Textual widgets against the one ``Board`` (issue 42, item 2).

A script that prints figures, not a test.  Four Textual apps (the four screens at a
table, one seat each, 80×24 or a compact size: ``--size``) run in this process on a driver that is a terminal of its
own: what Textual or a board sends is counted (bytes, sends) and fed to a pyte screen.
A seeded 18-round Estimation match is played (the tests' quick policy); after every
move each app draws its seat's picture and the script waits until every frame is sent.
The picture is drawn in one of four ways (``--mode``):

- ``board``: today's production: ``table_layout.draw_screen`` and one ``Board``
  (its line diff, its changed cells written to the terminal at once, past Textual's
  compositor);
- ``parts``: each part of the table a Textual ``Widget`` of its own (info bar, notes,
  scores, middle, the events under it, phase controls, hand, chat, footer), placed by
  the layout
  (``position: absolute``, its offset and height set when they change), drawing the
  part's lines from a strip cache (``render_line``); a changed line refreshes its own
  row, and Textual's compositor paints the changed regions on its update timer, as
  any Textual screen is painted;
- ``parts-cells``: the same, a changed line refreshing only the span of cells that
  changed in it (the widget's own diff of its old and new strip), not the row;
- ``parts-direct``: the same widgets, each a ``Board`` of its own (its line diff and
  its direct write to the terminal), Textual painting only a part that moved.

The parts' lines are the render units' own (``table_draw.still_lines``,
``note_lines``, ``phase_lines``, ``hand_rows``, ``footer_line``; at a compact size
``info_rows``, ``compact_scores``, ``middle_rows`` …), laid out as
``table_draw.scene_frame`` and ``place`` (or ``table_compact.draw_compact``) lay them out;
the wide layout, whose rows join the picture and the panel, is not drawn.  ``--check`` runs the board and
the parts side by side (each seat twice) and compares the two terminals (pyte: every
cell's character, colours, bold, reverse) after every move: the same frames both ways.

It prints, a move (four screens): this process's CPU (ms), and with ``--instructions``
under callgrind the instructions from move ``--from`` on; the bytes sent a screen a
move (mean, median, p95), the sends (flushes that wrote something) and the parts moved
or resized (Textual lays them out again) a screen a move, and the CPU to start a screen
and send its first frame::

    nice -n 5 .venv/bin/python tests/bench/widget_parts.py --mode board
    nice -n 5 .venv/bin/python tests/bench/widget_parts.py --mode parts
    nice -n 5 .venv/bin/python tests/bench/widget_parts.py --check
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/wp.%p \\
        .venv/bin/python tests/bench/widget_parts.py --mode parts --instructions
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[1]))         # tests/: stacked
sys.path.insert(0, str(HERE.parent))             # tests/bench: shim_bench's callgrind
sys.path.append(str(HERE.parents[2]))            # the tree (after PYTHONPATH)

import pyte  # noqa: E402
from rich.cells import get_character_cell_size  # noqa: E402
from rich.segment import Segment  # noqa: E402
from rich.text import Text  # noqa: E402
from stacked import quick_policy  # noqa: E402
from textual import events  # noqa: E402
from textual.app import App, ComposeResult  # noqa: E402
from textual.driver import Driver  # noqa: E402
from textual.geometry import Region, Size  # noqa: E402
from textual.screen import Screen  # noqa: E402
from textual.strip import Strip  # noqa: E402
from textual.widget import Widget  # noqa: E402

from engine import new_match  # noqa: E402
from tui.app import console_for  # noqa: E402
from tui.cards import Look  # noqa: E402
from tui.screens.sizes import COMPACT, STANDARD, layout  # noqa: E402
from tui.screens.table_auction import phase_lines, phase_rows  # noqa: E402
from tui.screens.table_chat import chat_rows  # noqa: E402
from tui.screens.table_draw import still_lines  # noqa: E402
from tui.screens.table_footer import footer_line, footer_rows, turn_footer_rows  # noqa: E402
from tui.screens.table_hand import compact_hand_rows, hand_rows  # noqa: E402
from tui.screens.table_info import info_rows, message_rows, note_lines  # noqa: E402
from tui.screens.table_layout import draw_screen  # noqa: E402
from tui.screens.table_scene import DrawCache, Scene  # noqa: E402
from tui.screens.table_scores import (  # noqa: E402
    EVENTS_FROM,
    compact_scores,
    name_width,
    recent_events,
)
from tui.screens.table_state import SeatFacts, TableFacts, TableState, View  # noqa: E402
from tui.screens.table_text import H, W  # noqa: E402
from tui.screens.table_trick import middle_rows  # noqa: E402
from tui.widgets.board import BLANK, Board  # noqa: E402

WIDTH, HEIGHT = 80, 24                  # (--size)
PARTS = ("info", "notes", "scores", "middle", "said", "phase", "hand", "chat", "footer")


# ------------------------------------------------------------- the terminal
class Terminal(Driver):
    """A terminal of the script's own: Textual's frames and the boards' direct writes
    (it is the app's ``Surface``) are counted and fed to a pyte screen."""

    def __init__(self, app: App[Any], **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self.bench_app = app
        self.buffer: list[str] = []
        self.bytes_out = 0
        self.frames = 0
        self.screen = pyte.Screen(WIDTH, HEIGHT)
        self.stream = pyte.Stream(self.screen)
        self.last_send = 0.0
        self.hold = False       # a screen's parts being drawn: their writes go in one send

    @property
    def is_headless(self) -> bool:
        return False

    def write(self, data: str) -> None:
        self.buffer.append(data)

    def flush(self) -> None:
        if not self.buffer or self.hold:
            return
        data = "".join(self.buffer)
        self.buffer.clear()
        self.bytes_out += len(data.encode())
        self.frames += 1
        self.last_send = time.monotonic()
        if self.bench_app.feed:
            self.stream.feed(data)

    def start_application_mode(self) -> None:
        size = Size(WIDTH, HEIGHT)
        self.bench_app.post_message(events.Resize(size, size))
        self.bench_app.surface = self

    def disable_input(self) -> None:
        self.bench_app.surface = None

    def stop_application_mode(self) -> None:
        self.disable_input()


def picture(term: Terminal) -> list[tuple[Any, ...]]:
    """Every cell as the terminal shows it: character, colours, bold, reverse, underline
    (a space's colour and boldness are not seen: a blank end erased and one written as
    bold spaces look the same)."""
    rows = []
    for y in range(HEIGHT):
        line = term.screen.buffer[y]
        rows.append(tuple(
            (c.data, c.bg, c.reverse, c.underscore) if c.data == " " and not c.reverse
            else (c.data, c.fg, c.bg, c.bold, c.reverse, c.underscore)
            for c in (line[x] for x in range(WIDTH))))
    return rows


# ------------------------------------------------------------------ layouts
Block = tuple[str, int, list[Text]]          # a part, its first row, its lines
MOVED = [0]             # parts moved or resized (laid out again by Textual), all screens


def compact_blocks(sc: Scene, width: int, height: int) -> tuple[int, int, list[Block]]:
    """The compact picture as parts, laid out as ``table_compact.draw_compact`` lays out
    its lines (the bottom from the last row up, the rest from the top): the column
    the parts start at, their width, each part with its first row."""
    cw = min(width, W)
    sc.keys = sc.keys._replace(compact=True)
    info = info_rows(sc, cw)
    scores = compact_scores(sc, cw)
    phase, _ = phase_rows(sc, cw)
    message = message_rows(sc, cw)
    hand, _ = compact_hand_rows(sc, cw)
    keys = footer_rows(sc, cw)
    keys += [BLANK] * max(0, turn_footer_rows(sc, cw) - len(keys))
    room = height - len(info) - len(scores) - len(phase) - len(message) - len(hand) - len(keys)
    chat: list[Text] = []
    if room >= 3:
        chat = chat_rows(sc, cw, min(2, room - 2))
        room -= len(chat)
    middle = middle_rows(sc, cw, room)
    room -= len(middle)
    said: list[Text] = []
    gap_said = 0
    if room >= 1 and name_width(cw) + 27 + EVENTS_FROM > cw:
        gap_said = 1 if middle and room >= 3 else 0
        said = recent_events(sc, cw, min(5, room - gap_said))
        if said:
            room -= len(said) + gap_said
        else:
            gap_said = 0
    gap_top = 1 if room > 0 and (middle or said) else 0
    room -= gap_top
    gap_hand = 1 if room > 0 and phase else 0
    y = len(info) + len(scores) + gap_top
    y_said = y + len(middle) + gap_said
    bottom = len(phase) + len(message) + gap_hand + len(hand) + len(chat) + len(keys)
    y_bottom = max(y_said + len(said), height - bottom)
    out: list[Block] = [("info", 0, info), ("scores", len(info), scores),
                        ("middle", y, middle), ("said", y_said, said)]
    y = y_bottom
    for name, lines, gap in (("phase", phase, 0), ("notes", message, gap_hand),
                             ("hand", hand, 0), ("chat", chat, 0), ("footer", keys, 0)):
        out.append((name, y, lines))
        y += len(lines) + gap
    clipped = [(name, y, lines[:max(0, height - y)]) for name, y, lines in out]
    return (width - cw) // 2, cw, clipped


def blocks(sc: Scene) -> tuple[int, int, list[Block]]:
    """The standard picture as parts, laid out as ``table_draw.scene_frame`` and
    ``place`` lay out its lines: each part with the row it starts at (rows past the
    picture's 23 cut, as there), the footer on the last row."""
    hand, _hits = hand_rows(sc)
    info, scores, middle, chat = still_lines(sc)
    notes = note_lines(sc)[:3]
    gaps = {"middle": len(notes) < 2, "phase": len(notes) < 3, "hand": True}  # 13, 17, 20
    out: list[Block] = []
    y = 0
    for name, lines in (("info", [info]), ("notes", notes), ("scores", scores),
                        ("middle", middle), ("phase", phase_lines(sc)), ("hand", hand),
                        ("chat", chat)):
        keep = lines[:max(0, H - 1 - y)]
        out.append((name, y, keep))
        y += len(keep) + gaps.get(name, False)
    out.append(("said", y, []))
    out.append(("footer", HEIGHT - 1, [footer_line(sc)]))
    return (WIDTH - W) // 2, W, out


# ------------------------------------------------------------------ widgets
class Part(Widget):
    """One part of the table: its lines drawn from a strip cache, a changed line
    refreshing its own row; placed by the layout (offset and height)."""

    DEFAULT_CSS = "Part { position: absolute; width: 80; height: 1; }"

    def __init__(self, name: str) -> None:
        super().__init__(id=name)
        self.lines: list[Text] = []
        self.strips: list[Strip | None] = []
        self.place_at: tuple[int, int, int, int] | None = None
        self.cw = W

    def show(self, x: int, y: int, cw: int, lines: list[Text]) -> None:
        place = (x, y, cw, len(lines))
        if place != self.place_at:
            MOVED[0] += self.place_at is not None
            self.place_at = place
            self.cw = cw
            self.styles.offset = (x, y)
            self.styles.width = cw
            self.styles.height = len(lines)
            self.lines = list(lines)
            self.strips = [None] * len(lines)
            self.refresh(layout=True)
            return
        for i, text in enumerate(lines):
            if text is not self.lines[i]:
                self.lines[i] = text
                self.strips[i] = None
                self.refresh(Region(0, i, self.cw, 1))

    def render_line(self, y: int) -> Strip:
        if y >= len(self.lines):
            return Strip.blank(self.cw)
        strip = self.strips[y]
        if strip is None:
            text = self.lines[y]
            segments = [s for s in text.render(self.app.console, end="") if s.text]
            if not text.spans and text.style:
                segments = list(Segment.apply_style(
                    segments, self.app.console.get_style(text.style)))
            strip = self.strips[y] = Strip(segments).crop(0, self.cw).adjust_cell_length(self.cw)
        return strip


def strip_cells(strip: Strip) -> list[tuple[str, Any]]:
    """A strip's cells: (what the cell shows, "" after a wide character; its style)."""
    out: list[tuple[str, Any]] = []
    for seg in strip:
        for ch in seg.text:
            size = get_character_cell_size(ch)
            if size == 0 and out:
                out[-1] = (out[-1][0] + ch, out[-1][1])
                continue
            out.append((ch, seg.style))
            if size == 2:
                out.append(("", seg.style))
    return out


class CellPart(Part):
    """A ``Part`` refreshing only the span of cells that changed in a changed line (its
    own diff of the old and the new strip's cells), not the row."""

    def show(self, x: int, y: int, cw: int, lines: list[Text]) -> None:
        place = (x, y, cw, len(lines))
        if place != self.place_at:
            super().show(x, y, cw, lines)
            return
        for i, text in enumerate(lines):
            if text is self.lines[i]:
                continue
            old = strip_cells(self.render_line(i))
            self.lines[i] = text
            self.strips[i] = None
            new = strip_cells(self.render_line(i))
            diff = [n for n, (a, b) in enumerate(zip(old, new, strict=False)) if a != b]
            diff += range(min(len(old), len(new)), max(len(old), len(new)))
            if not diff:
                continue
            lo, hi = diff[0], diff[-1] + 1
            while lo > 0 and new[lo][0] == "":
                lo -= 1                     # a wide character kept whole
            while hi < len(new) and new[hi][0] == "":
                hi += 1
            self.refresh(Region(lo, i, hi - lo, 1))


class DirectPart(Board):
    """One part of the table as a ``Board`` of its own: its line diff and its direct
    write; a part that moved or changed height is painted by Textual once laid out."""

    DEFAULT_CSS = "DirectPart { position: absolute; width: 80; height: 1; }"

    def __init__(self, name: str) -> None:
        super().__init__(id=name)
        self.lines: list[Text] = []
        self.place_at: tuple[int, int, int, int] | None = None

    def show(self, x: int, y: int, cw: int, lines: list[Text]) -> None:
        place = (x, y, cw, len(lines))
        if place == self.place_at and all(a is b for a, b in zip(lines, self.lines, strict=True)):
            return                          # the same line objects: nothing to compare
        self.lines = list(lines)
        if place != self.place_at:
            MOVED[0] += self.place_at is not None
            self.place_at = place
            self.styles.offset = (x, y)
            self.styles.width = cw
            self.styles.height = len(lines)
            self.direct = False             # until laid out: Textual paints it
            self.refresh(layout=True)
            self.call_after_refresh(self.laid_out)
            return
        self.set_lines(self.lines)

    def laid_out(self) -> None:
        self.direct = True
        self.set_lines(self.lines)
        self.refresh()

    def on_board_resized(self, message: Board.Resized) -> None:
        self.set_lines(self.lines)


class Table(Screen[None]):
    DEFAULT_CSS = "Table { background: ansi_default; }"

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode

    def compose(self) -> ComposeResult:
        if self.mode == "board":
            yield Board(id="board")
        elif self.mode == "parts":
            for name in PARTS:
                yield Part(name)
        elif self.mode == "parts-cells":
            for name in PARTS:
                yield CellPart(name)
        else:
            for name in PARTS:
                yield DirectPart(name)


class Seat(App[None]):
    """One screen at the table: one seat's picture drawn in ``mode``."""

    CSS = "Screen { background: ansi_default; }"

    def __init__(self, mode: str, seat: int, feed: bool) -> None:
        super().__init__(driver_class=Terminal)
        self.theme = "ansi-dark"                # as the room's app: the terminal's colours
        self.console = console_for("xterm-256color", "")
        self.mode = mode
        self.feed = feed
        self.surface: Terminal | None = None
        self.cache = DrawCache()
        self.state = TableState()
        self.look = Look()
        seats = tuple(SeatFacts(n, "human") for n in ("ali", "bea", "cem", "dua"))
        self.facts = TableFacts(id="7", game="estimation", title="Estimation", length=18,
                                seats=seats, seat=seat)
        self.ready = asyncio.Event()
        self.widgets: dict[str, Any] = {}      # found once, as the table screen does

    def get_default_screen(self) -> Screen[Any]:
        return Table(self.mode)

    def on_mount(self) -> None:
        self.call_after_refresh(self.ready.set)

    def draw(self, view: View | None) -> None:
        widgets = self.widgets
        if not widgets:
            widgets.update((w.id, w) for w in self.screen.query(Widget) if w.id)
        if self.mode == "board":
            placed = draw_screen(view, self.state, self.facts, self.look, WIDTH, HEIGHT,
                                 0.0, self.cache)
            widgets["board"].set_lines(placed.lines, at=[placed.x] * len(placed.lines))
            return
        sc = Scene(view, self.state, self.facts, self.look, 0.0, self.cache, None)
        kind = layout(WIDTH, HEIGHT)
        if kind == COMPACT:
            x, cw, parts = compact_blocks(sc, WIDTH, HEIGHT)
        elif kind == STANDARD and (WIDTH, HEIGHT) == (W, H):
            x, cw, parts = blocks(sc)
        else:
            raise SystemExit("the prototype lays out 80x24 and the compact sizes only")
        surface = self.surface
        if surface is not None:
            surface.hold = True         # the parts' direct writes: one send, the frame's
        for name, y, lines in parts:
            widgets[name].show(x, y, cw, lines)
        if surface is not None:
            surface.hold = False
            surface.flush()


# ------------------------------------------------------------------ the run
def callgrind() -> Any:
    from shim_bench import callgrind as build
    return build()


async def quiet(apps: list[Seat], seconds: float) -> None:
    """Until no app has sent for ``seconds`` (every frame of the move sent)."""
    while True:
        await asyncio.sleep(seconds)
        last = max(app.surface.last_send if app.surface else 0.0 for app in apps)
        if time.monotonic() - last >= seconds:
            return


async def run(modes: list[str], moves: int, wait: float, cg: Any, start: int,
              check: bool) -> dict[str, Any]:
    t0 = time.process_time()
    apps = [Seat(mode, seat, feed=check) for mode in modes for seat in range(4)]
    tasks = [asyncio.create_task(app.run_async()) for app in apps]
    await asyncio.gather(*(app.ready.wait() for app in apps))
    m = new_match("estimation", 18, seed=7)
    for app in apps:
        app.draw(m.view(app.facts.seat))          # the first frame, whole
    await quiet(apps, wait)
    start_cpu = time.process_time() - t0
    per_screen: list[int] = []
    sends = 0
    cpu = 0.0
    n = 0
    mismatches = 0
    said: list[str] = []
    moves_laid_out = 0
    counting = False
    for move in range(moves):
        if m.to_act is None:
            break
        if move == start:
            counting = True
            if cg is not None:
                cg.lamma_cg_start()
        views = [m.view(s) for s in range(4)]
        moved = MOVED[0]
        before = [(app.surface.bytes_out, app.surface.frames) for app in apps
                  if app.surface]
        t = time.process_time()
        for app in apps:
            app.draw(views[app.facts.seat])
        await quiet(apps, wait)
        spent = time.process_time() - t
        if counting:
            n += 1
            cpu += spent
            moves_laid_out += MOVED[0] - moved
            for app, (b, f) in zip(apps, before, strict=True):
                assert app.surface is not None
                per_screen.append(app.surface.bytes_out - b)
                sends += app.surface.frames - f
        if check:
            for seat in range(4):
                a, b2 = apps[seat].surface, apps[4 + seat].surface
                assert a is not None and b2 is not None
                if picture(a) != picture(b2):
                    mismatches += 1
                    if mismatches <= 3:
                        said.append(f"move {move} seat {seat}: the terminals differ")
                        for y, (ra, rb) in enumerate(zip(picture(a), picture(b2),
                                                         strict=True)):
                            cells = [(x, ca, cb) for x, (ca, cb) in enumerate(zip(ra, rb, strict=True))
                                     if ca != cb]
                            if cells:
                                said.append(f"  row {y}: {len(cells)} cells, the first "
                                            f"(column, board, parts): {cells[0]}")
        m.apply(m.to_act, quick_policy(m, m.to_act))
    if cg is not None:
        cg.lamma_cg_stop()
    for app in apps:
        app.exit()
    await asyncio.gather(*tasks)
    return {"moves": n, "cpu": cpu, "bytes": per_screen, "sends": sends,
            "screens": len(apps), "mismatches": mismatches, "said": said,
            "moved": moves_laid_out, "start": start_cpu}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mode", choices=("board", "parts", "parts-cells", "parts-direct"), default="board")
    p.add_argument("--moves", type=int, default=220)
    p.add_argument("--from", dest="start", type=int, default=20,
                   help="count from this move on (the first screens are drawn whole)")
    p.add_argument("--wait", type=float, default=0.03,
                   help="seconds without a send that end a move's frames")
    p.add_argument("--size", default="80x24", help="the terminals' size: 80x24 or compact "
                   "(40x20 to 79x23)")
    p.add_argument("--check", action="store_true",
                   help="the board and the parts side by side: compare the terminals")
    p.add_argument("--instructions", action="store_true",
                   help="under callgrind: instructions from --from on")
    args = p.parse_args()
    global WIDTH, HEIGHT
    WIDTH, HEIGHT = (int(n) for n in args.size.split("x"))
    cg = callgrind() if args.instructions else None
    modes = ["board", "parts" if args.mode == "board" else args.mode] if args.check \
        else [args.mode]
    out, err = sys.stdout, sys.stderr
    try:
        r = asyncio.run(run(modes, args.moves, args.wait, cg, args.start, args.check))
    finally:
        # four apps at once capture and restore the process's output in turn: the last
        # one leaves a capture of another in place
        sys.stdout, sys.stderr = out, err
    for said in r["said"]:
        print(said)
    n = r["moves"]
    sizes = sorted(r["bytes"])
    name = " vs ".join(modes)
    print(f"{name} at {WIDTH}x{HEIGHT}: {n} moves counted, {r['screens']} screens, "
          f"pid {os.getpid()}")
    print(f"  CPU a move (all screens): {r['cpu'] / n * 1000:.3f} ms")
    print(f"  CPU to start a screen and send its first frame: "
          f"{r['start'] / r['screens'] * 1000:.1f} ms (the first made of the process's "
          f"imports and caches too)")
    if sizes:
        p95 = sizes[int(len(sizes) * 0.95)]
        print(f"  bytes a screen a move: mean {statistics.mean(sizes):.1f}, "
              f"median {statistics.median(sizes):.0f}, p95 {p95}")
        print(f"  sends a screen a move: {r['sends'] / len(sizes):.2f}")
        if "board" not in modes:
            print(f"  parts moved or resized a screen a move: {r['moved'] / len(sizes):.2f}")
    if args.check:
        print(f"  moves x seats whose terminals differ: {r['mismatches']}")


if __name__ == "__main__":
    main()
