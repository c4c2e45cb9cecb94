// The room's page (docs/web.md): a terminal (xterm.js, its DOM renderer: the text is
// in the page, and `window.term.buffer.active` reads it) on one websocket to the
// room. Binary messages are the terminal's bytes both ways; text messages are JSON:
// the window's size from here, the room's hello and refusals from there.
(() => {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const body = document.body;
  const words = JSON.parse(body.dataset.words || "{}");
  const linked = body.dataset.linked || "";
  const params = new URLSearchParams(location.search);
  const CHUNK = 16384;                    // bytes a message (the room takes 64 KiB)
  const KEYS = { esc: "\x1b", tab: "\t", left: "\x1b[D", up: "\x1b[A", down: "\x1b[B",
                 right: "\x1b[C", enter: "\r" };
  const encoder = new TextEncoder();
  let term = null, fit = null, ws = null, timer = null, retry = 0;
  let name = params.get("name") || sessionStorage.getItem("lamma.name") || "";
  let resume = sessionStorage.getItem("lamma.resume") || "";

  function fontSize() {
    // A phone's portrait screen gets its 40 columns: a cell is ~0.6 of the font size.
    const w = window.innerWidth;
    return w < 720 ? Math.max(8, Math.min(16, Math.floor(w / 40 / 0.62))) : 16;
  }

  function say(text, again) {
    const s = $("status");
    s.textContent = text;
    if (again) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = words.again || "Enter again";
      b.addEventListener("click", () => { s.hidden = true; connect(); });
      s.appendChild(b);
    }
    s.hidden = false;
  }

  function send(data) {
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    const bytes = typeof data === "string" ? encoder.encode(data) : data;
    for (let i = 0; i < bytes.length; i += CHUNK) ws.send(bytes.subarray(i, i + CHUNK));
  }

  function refit() {
    if (!term) return;
    const size = fontSize();
    if (term.options.fontSize !== size) term.options.fontSize = size;
    try { fit.fit(); } catch (e) { /* not laid out yet */ }
  }

  function openTerminal() {
    if (term) return;
    $("door").hidden = true;
    $("room").hidden = false;
    term = new Terminal({
      fontSize: fontSize(), fontFamily: "monospace", cursorBlink: false, scrollback: 0,
      screenReaderMode: params.get("reader") === "1",
      theme: { background: "#000000" },
    });
    fit = new FitAddon.FitAddon();
    term.loadAddon(fit);
    term.open($("terminal"));
    refit();
    window.term = term;                   // for tests and accessibility tools
    term.onData((d) => send(d));
    term.onBinary((d) => send(Uint8Array.from(d, (c) => c.charCodeAt(0) & 255)));
    term.onResize(({ cols, rows }) => {
      if (ws && ws.readyState === WebSocket.OPEN)
        ws.send(JSON.stringify({ type: "resize", cols, rows }));
    });
    window.addEventListener("resize", refit);
    if (window.visualViewport) window.visualViewport.addEventListener("resize", refit);
    for (const b of document.querySelectorAll("#keys button")) {
      // The terminal keeps the focus (a phone keeps its keyboard open).
      b.addEventListener("pointerdown", (e) => e.preventDefault());
      b.addEventListener("mousedown", (e) => e.preventDefault());
      b.addEventListener("click", () => {
        if (b.dataset.key === "keyboard") term.focus();   // a phone's keyboard comes up
        else send(KEYS[b.dataset.key]);
      });
    }
    taps($("terminal"));
    term.focus();
  }

  // A finger's tap on the terminal is a click where it lands, reported to the room as
  // an SSH client's mouse click is (SGR: ESC [ < 0 ; col ; row M, then m) while the
  // room asks for clicks. xterm.js reports the mouse's clicks itself, not a finger's;
  // the browser's own mouse events after a tap are cancelled, so no tap counts twice.
  function taps(el) {
    let start = null;
    el.addEventListener("touchstart", (e) => {
      const t = e.changedTouches[0];
      start = e.touches.length === 1 ? { x: t.clientX, y: t.clientY, at: Date.now() } : null;
    }, { passive: true });
    el.addEventListener("touchend", (e) => {
      const t = e.changedTouches[0];
      const s = start;
      start = null;
      if (!s || Math.hypot(t.clientX - s.x, t.clientY - s.y) > 12 || Date.now() - s.at > 800)
        return;
      if (term.modes.mouseTrackingMode === "none") return;
      const r = el.querySelector(".xterm-screen").getBoundingClientRect();
      const col = Math.floor((t.clientX - r.left) / (r.width / term.cols)) + 1;
      const row = Math.floor((t.clientY - r.top) / (r.height / term.rows)) + 1;
      if (col < 1 || row < 1 || col > term.cols || row > term.rows) return;
      e.preventDefault();
      send("\x1b[<0;" + col + ";" + row + "M\x1b[<0;" + col + ";" + row + "m");
    });
  }

  function connect() {
    clearTimeout(timer);
    openTerminal();
    const q = new URLSearchParams({ cols: term.cols, rows: term.rows });
    if (!linked) {
      q.set("name", name);
      if (resume) q.set("resume", resume);
    }
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const sock = ws = new WebSocket(scheme + location.host + "/ws?" + q.toString());
    sock.binaryType = "arraybuffer";
    sock.onopen = () => { retry = 0; $("status").hidden = true; refit(); };
    sock.onmessage = (e) => {
      if (typeof e.data !== "string") { term.write(new Uint8Array(e.data)); return; }
      let m;
      try { m = JSON.parse(e.data); } catch (err) { return; }
      if (m.type === "hello") {
        if (m.resume) { resume = m.resume; sessionStorage.setItem("lamma.resume", resume); }
      } else if (m.type === "refused") {
        sock.refused = m.message;
      }
    };
    sock.onclose = (e) => {
      if (sock !== ws) return;
      ws = null;
      if (e.code === 4001) {              // refused: back to the door, with the reason
        if (!linked) sessionStorage.removeItem("lamma.resume");
        resume = "";
        showDoor(sock.refused || "");
      } else if (e.code === 1000 || e.code === 4002) {
        say(words.left || "You left the room.", true);
      } else {                            // a lost link, a restart: back by itself
        say(words.lost || "Connecting again…", false);
        const wait = Math.min(15000, 500 * Math.pow(2, retry++));
        timer = setTimeout(connect, wait);
      }
    };
  }

  function showDoor(said) {
    $("room").hidden = true;
    $("door").hidden = false;
    $("door-said").textContent = said || "";
    if (linked) {
      $("linked-as").hidden = false;
      $("unlink").hidden = false;
    }
    $("name").value = name;
  }

  $("guest-form").addEventListener("submit", (e) => {
    e.preventDefault();
    name = $("name").value.trim();
    sessionStorage.setItem("lamma.name", name);
    if (term) { $("door").hidden = true; $("room").hidden = false; }
    connect();
  });

  $("link-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const code = $("code").value.trim();
    const r = await fetch("/link", { headers: { "X-Lamma-Code": code }, credentials: "same-origin" });
    let answer = {};
    try { answer = await r.json(); } catch (err) { /* not JSON */ }
    if (r.ok) location.replace("/");      // the page again, linked: straight to the seat
    else $("door-said").textContent = answer.error || r.statusText;
  });

  $("unlink").addEventListener("click", async () => {
    await fetch("/unlink", { headers: { "X-Lamma-Code": "unlink" }, credentials: "same-origin" });
    location.replace("/");
  });

  window.addEventListener("online", () => { if (!ws && timer) connect(); });

  if (linked || name) connect();
  else showDoor("");
})();
