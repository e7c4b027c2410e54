// The board page: pick a source and color, then a destination; the move goes to the API and the
// server-rendered board partial is swapped in. Legal moves come from the page (json_script), so
// a destination the rules refuse for the current pick cannot be chosen. With "confirm moves" on
// (the player's setting; by default on touch screens) the destination shows the tiles placed,
// marked as pending, with Confirm and Cancel, and nothing is sent before Confirm.
(function () {
  "use strict";

  const root = document.getElementById("game-root");
  if (!root) return;
  // Live updates (the block at the end): the least time between two looks at the server.
  const POLL_MS = 1000;
  let pick = null; // {source: "F3" | "C", color: "blue"}
  let pending = null; // the move shown placed, waiting for Confirm: {move, dest, undo: [...]}
  let busy = false;
  let sendingDisabled = []; // what the sending state disabled, to enable again on failure
  let sendingFocus = null; // and where the keyboard was

  function game() { return document.getElementById("game"); }

  // The newest moves are at the end of the log: keep them in view, from the "since you last
  // played" mark on when there is one.
  function scrollLog() {
    const log = root.querySelector(".log-scroll") || root.querySelector(".move-log");
    if (!log) return;
    log.scrollTop = log.scrollHeight;
    const since = log.querySelector(".since-marker");
    if (since) {
      const offset = since.getBoundingClientRect().top - log.getBoundingClientRect().top;
      if (offset < 0) log.scrollTop += offset;  // the mark at the top, the newest below it
    }
  }
  scrollLog();

  function csrfToken() {
    const input = document.querySelector("input[name=csrfmiddlewaretoken]");
    if (input) return input.value;
    const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function legalMoves() {
    const node = document.getElementById("legal-moves");
    return node ? JSON.parse(node.textContent) : [];
  }

  // "F3 blue 2" -> {source: "F3", color: "blue", dest: "2"}; "wall 2 4" -> {line, column}.
  function parse(move) {
    const parts = move.split(" ");
    if (parts[0] === "wall") return { line: parts[1], column: parts[2] };
    return { source: parts[0], color: parts[1], dest: parts[2] };
  }

  // Whether a destination asks for Confirm first: the player's setting, "auto" meaning on a
  // touch screen (a coarse pointer), where a mis-tap is easy.
  function confirmMoves() {
    const choice = root.dataset.confirmMoves || "auto";
    if (choice === "on") return true;
    if (choice === "off") return false;
    return window.matchMedia("(pointer: coarse)").matches;
  }

  // The page's strings come from Django's JavaScript catalog (/jsi18n/, loaded before this
  // script): gettext() and friends, in the page's language.
  const COLOR_NAMES = {
    blue: pgettext("tile colour", "blue"),
    yellow: pgettext("tile colour", "yellow"),
    red: pgettext("tile colour", "red"),
    black: pgettext("tile colour", "black"),
    white: pgettext("tile colour", "white"),
  };

  // -- The keyboard: one stop per factory, the center and the destinations -------------------
  // A factory (and the center) is a toolbar: one tab stop, the arrow keys going from one color
  // to the next. The pattern lines and the floor line, once tiles are picked, are one stop too,
  // as are the wall spaces to choose from: the arrow keys go between them (a roving tabindex).

  function colorOf(node) { return Array.from(node.classList).find((c) => c in COLOR_NAMES) || null; }

  // The first button of each color of a factory or the center: where the arrow keys stop.
  function takeLeaders(box) {
    const seen = new Set();
    return Array.from(box.querySelectorAll("button.take:not(:disabled)")).filter((b) => {
      if (seen.has(b.dataset.color)) return false;
      seen.add(b.dataset.color);
      return true;
    });
  }

  function setRoving(items, current) {
    items.forEach((b) => { b.tabIndex = b === current ? 0 : -1; });
  }

  function setupKeys() {
    const g = game();
    if (!g) return;
    g.querySelectorAll(".factory, .center").forEach((box) => {
      const leaders = takeLeaders(box);
      box.querySelectorAll("button.take").forEach((b) => { b.tabIndex = b === leaders[0] ? 0 : -1; });
    });
    const places = Array.from(g.querySelectorAll("button.place"));
    setRoving(places, places[0]);
  }

  // The buttons the arrow keys go between from `button`, and where `button` stands among them.
  function keyGroup(button) {
    const g = game();
    if (button.classList.contains("take")) {
      const box = button.closest(".factory, .center");
      const items = box ? takeLeaders(box) : [];
      return { items: items, at: items.findIndex((b) => b.dataset.color === button.dataset.color) };
    }
    if (button.classList.contains("dest")) {
      const board = button.closest(".player-board");
      const items = board ? Array.from(board.querySelectorAll("button.dest:not(:disabled)")) : [];
      return { items: items, at: items.indexOf(button) };
    }
    if (button.classList.contains("place")) {
      const items = Array.from(g.querySelectorAll("button.place:not(:disabled)"));
      return { items: items, at: items.indexOf(button) };
    }
    return null;
  }

  const ARROWS = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };
  root.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const step = ARROWS[event.key];
    if (!step && event.key !== "Home" && event.key !== "End") return;
    const button = event.target.closest && event.target.closest("button");
    if (!button || !root.contains(button)) return;
    const group = keyGroup(button);
    if (!group || !group.items.length) return;
    event.preventDefault();
    const n = group.items.length;
    let next;
    if (event.key === "Home") next = 0;
    else if (event.key === "End") next = n - 1;
    else next = ((group.at < 0 ? 0 : group.at + step) % n + n) % n;
    const target = group.items[next];
    setRoving(group.items, target);
    if (button.classList.contains("take") && button !== target) button.tabIndex = -1;
    target.focus();
  });

  // "Skip to the board": the page's first stop (moved to the top of the page here, as the page
  // around the board has none), which goes on to the first tile the player may take.
  const skip = document.querySelector(".skip-link");
  if (skip) {
    document.body.prepend(skip);
    skip.addEventListener("click", (event) => {
      event.preventDefault();
      focusBoard(true);
    });
  }

  // -- What changed, said once: the others' moves as they arrive, and whose turn it is. --------

  // The tiles on the table and what the status says, before a new board is swapped in.
  function snapshot() {
    const g = game();
    if (!g) return null;
    const colorsIn = (box) => Array.from(box.querySelectorAll(".tile")).map(colorOf).filter(Boolean);
    const sources = {};
    g.querySelectorAll(".factories .factory").forEach((f, i) => { sources["F" + (i + 1)] = colorsIn(f); });
    const center = g.querySelector(".center");
    sources.C = center ? colorsIn(center) : [];
    const turn = g.querySelector(".game-status .turn");
    return { ply: Number(g.dataset.ply), sources: sources, turn: turn ? turn.textContent.trim() : "" };
  }

  // "bob took 2 red tiles from factory 3 to pattern line 4." The count comes from the table as
  // this page showed it (unknown once a new round was dealt in between).
  function moveWords(name, move, table) {
    const m = parse(move);
    if (m.line !== undefined) {
      return interpolate(
        gettext("%(name)s placed the tile of pattern line %(line)s on the wall, column %(column)s."),
        { name: name, line: m.line, column: m.column }, true
      );
    }
    let count = 0;
    if (table) {
      const from = m.source === "C" ? table.C : (table[m.source] || []);
      count = from.filter((c) => c === m.color).length;
      const rest = from.filter((c) => c !== m.color);
      if (m.source === "C") table.C = rest;
      else { table.C = (table.C || []).concat(rest); table[m.source] = []; }
    }
    const what = { name: name, count: count, color: COLOR_NAMES[m.color] || m.color, source: sourceName(m.source), line: m.dest };
    if (!count) {
      return interpolate(m.dest === "floor"
        ? gettext("%(name)s took the %(color)s tiles from %(source)s to the floor line.")
        : gettext("%(name)s took the %(color)s tiles from %(source)s to pattern line %(line)s."), what, true);
    }
    return interpolate(m.dest === "floor"
      ? ngettext("%(name)s took %(count)s %(color)s tile from %(source)s to the floor line.",
        "%(name)s took %(count)s %(color)s tiles from %(source)s to the floor line.", count)
      : ngettext("%(name)s took %(count)s %(color)s tile from %(source)s to pattern line %(line)s.",
        "%(name)s took %(count)s %(color)s tiles from %(source)s to pattern line %(line)s.", count),
    what, true);
  }

  function announce(before) {
    const g = game();
    const news = document.getElementById("board-news");
    if (!g || !news || !before) return;
    const said = [];
    let table = { ...before.sources };
    g.querySelectorAll(".move-log li.move, .move-log li.deal").forEach((li) => {
      const ply = Number((li.querySelector(".ply") || {}).textContent);
      if (!(ply > before.ply)) return;
      if (li.classList.contains("deal")) { table = null; return; }
      const words = moveWords((li.querySelector(".who") || {}).textContent || "", li.dataset.move || "", table);
      if (!("mine" in li.dataset)) said.push(words);
    });
    const turn = g.querySelector(".game-status .turn");
    const now = turn ? turn.textContent.trim() : "";
    if (now && now !== before.turn) said.push(now);
    if (said.length) news.textContent = said.join(" ");
  }

  function sourceName(source) {
    return source === "C"
      ? gettext("the center")
      : interpolate(gettext("factory %(number)s"), { number: source.slice(1) }, true);
  }

  // An error about the move, where the board shows it (role="alert"); brought into view when
  // the player is elsewhere on the page (on a phone, at their own board).
  function showError(text) {
    const box = game() && game().querySelector(".move-error");
    if (!box) return;
    box.textContent = text || "";
    if (!text) return;
    const where = box.getBoundingClientRect();
    if (where.top < 0 || where.bottom > window.innerHeight) box.scrollIntoView({ block: "nearest" });
  }

  function setHint(text) {
    const hint = game() && game().querySelector(".pick-hint");
    if (hint) hint.textContent = text || hint.dataset.default;
  }

  // After a move, or a new board from a live update: the keyboard goes on from the first tile
  // the player may take (or wall space they may choose); when it is not their turn, from the
  // board's heading, never from the top of the page.
  function focusBoard(scroll) {
    const g = game();
    if (!g) return;
    let target = g.querySelector("button.take:not(:disabled), button.place:not(:disabled)");
    if (!target) {
      target = g.querySelector(".game-status h1");
      if (target) target.tabIndex = -1;
    }
    if (target) target.focus({ preventScroll: !scroll });
  }

  // The page's title follows the board's (the server writes it: whose turn it is), with the
  // count of games waiting in front (static/games/waiting.js), which is asked for again.
  function boardChanged() {
    const g = game();
    if (g && g.dataset.title) {
      if (window.azulWaiting) {
        window.azulWaiting.setTitle(g.dataset.title);
      } else {
        document.title = g.dataset.title;
      }
    }
    document.dispatchEvent(new CustomEvent("azul:game-changed"));
    showNextGame();
  }

  // "Next game" (templates/games/detail.html): the game that waits for the player next, as the
  // page came with it or as the answer to their move named it; hidden while it is their turn
  // here. "n" follows it, as the keyboard help says.
  const nextBox = document.getElementById("next-game");
  let nextUrl = nextBox && !nextBox.hidden ? nextBox.querySelector("a").getAttribute("href") : null;
  function showNextGame() {
    if (!nextBox) return;
    const g = game();
    if (nextUrl) nextBox.querySelector("a").setAttribute("href", nextUrl);
    nextBox.hidden = !nextUrl || !g || g.classList.contains("can-move");
  }

  function typing(target) {
    return target && target.closest && (
      target.closest("input, textarea, select, [contenteditable]:not([contenteditable=false])")
    );
  }

  document.addEventListener("keydown", (event) => {
    // "ㅜ": the same key with a Korean keyboard layout's Hangul mode on.
    if (!["n", "ㅜ"].includes(event.key) || event.altKey || event.ctrlKey || event.metaKey || event.repeat) return;
    if (typing(event.target) || busy || !nextBox || nextBox.hidden) return;
    event.preventDefault();
    window.location.assign(nextBox.querySelector("a").href);
  });

  function clearPick() {
    cancelPending();
    pick = null;
    const g = game();
    if (!g) return;
    g.classList.remove("picking");
    g.querySelectorAll(".tile.picked").forEach((t) => t.classList.remove("picked"));
    g.querySelectorAll("button.dest").forEach((d) => { d.disabled = true; });
    setHint(null);
  }

  function choose(source, color) {
    const g = game();
    if (pick && pick.source === source && pick.color === color) { clearPick(); return; }
    clearPick();
    const dests = new Set(
      legalMoves().map(parse).filter((m) => m.source === source && m.color === color)
        .map((m) => m.dest)
    );
    if (!dests.size) return;
    pick = { source: source, color: color };
    g.classList.add("picking");
    let count = 0;
    g.querySelectorAll(".tile.take").forEach((t) => {
      if (t.dataset.source === source && t.dataset.color === color) {
        t.classList.add("picked");
        count += 1;
      }
    });
    pick.count = count;
    g.querySelectorAll("button.dest").forEach((d) => { d.disabled = !dests.has(d.dataset.dest); });
    pick.from = g.querySelector('button.take[data-source="' + source + '"][data-color="' + color + '"]');
    // No mention of Esc: most phones have no such key (choosing the same tiles again cancels).
    setHint(interpolate(
      ngettext(
        "Picked %(count)s %(color)s tile from %(source)s: now choose a highlighted pattern line or the floor line.",
        "Picked %(count)s %(color)s tiles from %(source)s: now choose a highlighted pattern line or the floor line.",
        count
      ),
      { count: count, color: COLOR_NAMES[color] || color, source: sourceName(source) },
      true
    ));
    const first = g.querySelector("button.dest:not(:disabled)");
    setRoving(Array.from(g.querySelectorAll("button.dest")), first);
    if (first) first.focus({ preventScroll: true });
    showDestinations(g);
  }

  // On a narrow screen the factories and the player's board are a screen apart: once tiles are
  // picked, bring the player's board (its pattern lines and floor line) into view.
  const NARROW = window.matchMedia("(max-width: 60rem)");
  function showDestinations(g) {
    if (!NARROW.matches) return;
    const board = g.querySelector(".player-board.interactive");
    if (!board) return;
    const box = board.getBoundingClientRect();
    if (box.top >= 0 && box.bottom <= window.innerHeight) return;
    const reduce = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    board.scrollIntoView({ block: "nearest", behavior: reduce ? "auto" : "smooth" });
  }

  // -- Confirm moves: the move shown placed, sent only on Confirm. -----------------------------

  // Shows a tile of `color` in `node` (an empty space of a line, of the floor or of the wall),
  // marked as pending; `undo` gets what puts the space back.
  function placePending(node, color, symbol, undo) {
    const before = { node: node, className: node.className, text: node.textContent };
    undo.push(before);
    node.classList.remove("empty");
    node.classList.add(color, "pending");
    node.textContent = symbol;
  }

  function tileSymbol(color) {
    const g = game();
    const sample = g && g.querySelector(".tile." + color + ":not(.slot):not(.pending)");
    return sample ? sample.textContent : "";
  }

  // Where the picked tiles would go, and what the confirmation says of it.
  function previewTake(dest) {
    const g = game();
    const board = g.querySelector(".player-board.interactive");
    const undo = [];
    const color = pick.color;
    const symbol = tileSymbol(color);
    let toFloor = pick.count;
    if (dest !== "floor") {
      const line = board.querySelector('.pattern-line[data-dest="' + dest + '"]');
      // A pattern line fills from the right: its empty spaces come first.
      const spaces = Array.from(line.querySelectorAll(".tile.empty")).reverse();
      const placed = Math.min(spaces.length, pick.count);
      spaces.slice(0, placed).forEach((s) => placePending(s, color, symbol, undo));
      toFloor = pick.count - placed;
    }
    // The first to take from the center takes the starting player marker, to the floor line.
    const marker = pick.source === "C" ? g.querySelector(".center .tile.marker") : null;
    const floorSpaces = Array.from(board.querySelectorAll(".floor-line .tile.empty"));
    if (marker) {
      const space = floorSpaces.shift();
      if (space) placePending(space, "marker", marker.textContent, undo);
    }
    floorSpaces.slice(0, toFloor).forEach((s) => placePending(s, color, symbol, undo));

    const what = { count: pick.count, color: COLOR_NAMES[color] || color, source: sourceName(pick.source), line: dest };
    const parts = [dest === "floor"
      ? interpolate(ngettext(
        "%(count)s %(color)s tile from %(source)s to the floor line.",
        "%(count)s %(color)s tiles from %(source)s to the floor line.",
        pick.count), what, true)
      : interpolate(ngettext(
        "%(count)s %(color)s tile from %(source)s to pattern line %(line)s.",
        "%(count)s %(color)s tiles from %(source)s to pattern line %(line)s.",
        pick.count), what, true)];
    if (dest !== "floor" && toFloor > 0) {
      parts.push(interpolate(ngettext(
        "%(count)s of them falls to the floor line.",
        "%(count)s of them fall to the floor line.",
        toFloor), { count: toFloor }, true));
    }
    if (marker) parts.push(gettext("The starting player marker goes to your floor line."));
    return { undo: undo, text: parts.join(" ") };
  }

  function previewPlace(button) {
    const g = game();
    const undo = [];
    const line = button.dataset.line;
    const lineTile = g.querySelector(
      '.player-board.interactive .pattern-line:nth-child(' + line + ') .tile:not(.empty)'
    );
    const color = lineTile ? Array.from(lineTile.classList).find((c) => COLOR_NAMES[c]) : null;
    if (color) placePending(button, color, tileSymbol(color), undo);
    return {
      undo: undo,
      text: interpolate(
        gettext("The tile of pattern line %(line)s to the wall: row %(line)s, column %(column)s."),
        { line: line, column: button.dataset.column }, true
      ),
    };
  }

  function confirmBox(text) {
    const box = document.createElement("div");
    box.className = "confirm-move";
    box.setAttribute("role", "group");
    box.setAttribute("aria-labelledby", "confirm-move-text");
    const says = document.createElement("p");
    says.id = "confirm-move-text";
    says.textContent = gettext("Your move:") + " " + text;
    const yes = document.createElement("button");
    yes.type = "button";
    yes.className = "confirm-move-yes";
    yes.textContent = gettext("Confirm");
    const no = document.createElement("button");
    no.type = "button";
    no.className = "confirm-move-no secondary";
    no.textContent = gettext("Cancel");
    const buttons = document.createElement("div");
    buttons.className = "confirm-move-buttons";
    buttons.append(yes, no);
    box.append(says, buttons);
    return box;
  }

  function showPending(move, dest) {
    cancelPending();
    const g = game();
    const preview = dest.classList.contains("place") ? previewPlace(dest) : previewTake(dest.dataset.dest);
    const box = confirmBox(preview.text);
    const board = g.querySelector(".player-board.interactive");
    (board || g).append(box);
    dest.classList.add("pending-dest");
    g.classList.add("confirming");
    pending = { move: move, dest: dest, undo: preview.undo, box: box };
    box.querySelector(".confirm-move-yes").focus({ preventScroll: true });
    const where = box.getBoundingClientRect();
    if (where.bottom > window.innerHeight || where.top < 0) box.scrollIntoView({ block: "nearest" });
  }

  // Takes the preview away; the pick stays, so that another destination can be chosen.
  function cancelPending(refocus) {
    if (!pending) return;
    const was = pending;
    pending = null;
    was.undo.reverse().forEach((u) => { u.node.className = u.className; u.node.textContent = u.text; });
    was.box.remove();
    was.dest.classList.remove("pending-dest");
    const g = game();
    if (g) g.classList.remove("confirming");
    if (refocus && document.contains(was.dest)) was.dest.focus({ preventScroll: true });
  }

  function choosePlace(move, dest) {
    if (confirmMoves()) showPending(move, dest);
    else submit(move);
  }

  // -- Sending ------------------------------------------------------------------------------

  function moveStatus(text) {
    const status = document.getElementById("move-status");
    if (status) status.textContent = text || "";
  }

  // The controls that make a move: the tiles, the destinations, the wall spaces, Confirm and
  // the notation form. Not the chat beside the moves (#chat-slot), which is kept across board
  // swaps and has nothing to do with the move on its way.
  function moveControls(g) {
    return Array.from(g.querySelectorAll("button:not(:disabled), select:not(:disabled)"))
      .filter((control) => !control.closest("#chat-slot"));
  }

  // While a move is on its way: said (politely) and the move's controls disabled, so that
  // nothing is clicked twice.
  function setSending(on) {
    const g = game();
    if (on) {
      sendingDisabled = g ? moveControls(g) : [];
      sendingFocus = document.activeElement;
      sendingDisabled.forEach((b) => { b.disabled = true; });
      if (g) { g.classList.add("sending"); g.setAttribute("aria-busy", "true"); }
      moveStatus(gettext("Sending your move…"));
      return;
    }
    sendingDisabled.forEach((b) => { if (document.contains(b)) b.disabled = false; });
    sendingDisabled = [];
    // Disabling the focused button took the keyboard away from it: give it back.
    const lost = !document.activeElement || document.activeElement === document.body;
    if (lost && sendingFocus && document.contains(sendingFocus)) sendingFocus.focus({ preventScroll: true });
    sendingFocus = null;
    const now = game();
    if (now) { now.classList.remove("sending"); now.removeAttribute("aria-busy"); }
    moveStatus("");
  }

  // Puts a new board in the page: the keyboard help and the position in words stay as open as
  // they were (details[data-keep]), and what changed is said (announce). Returns what the page
  // showed before.
  let lastHtml = null;
  // The chat panel (static/chat/chat.js) lives beside the moves, in the board's slot for it:
  // the same element, kept across board swaps, so that a message being written stays.
  function placeChat(chat) {
    const slot = document.getElementById("chat-slot");
    if (!chat || !slot || chat.parentNode === slot) return;
    // Moving it takes the focus from what had it, or would have it (the answer to the chat's
    // form, focused as the page loads: chat.panels): given back, and brought into view.
    const focused = chat.contains(document.activeElement)
      ? document.activeElement : chat.querySelector("[autofocus]");
    slot.appendChild(chat);
    if (focused) {
      focused.focus({ preventScroll: true });
      focused.scrollIntoView({ block: "center" });
    }
  }

  function swapIn(html) {
    const before = snapshot();
    const open = [...root.querySelectorAll("details[data-keep][open]")].map((d) => d.dataset.keep);
    const chat = document.getElementById("chat");
    const writing = chat && chat.contains(document.activeElement) ? document.activeElement : null;
    root.innerHTML = html;
    lastHtml = html;
    placeChat(chat);
    if (writing) writing.focus({ preventScroll: true });
    for (const keep of open) {
      const details = root.querySelector(`details[data-keep="${keep}"]`);
      if (details) details.open = true;
    }
    keepWordsOpen();
    return before;
  }

  // A player who opened the position in words finds it open on every board after (this
  // browser remembers it).
  const WORDS_KEY = "azul.positionInWords";
  function keepWordsOpen() {
    const words = root.querySelector('details[data-keep="words"]');
    if (!words) return;
    try { if (localStorage.getItem(WORDS_KEY) === "open") words.open = true; } catch (e) { /* private mode */ }
    words.addEventListener("toggle", () => {
      try { localStorage.setItem(WORDS_KEY, words.open ? "open" : "closed"); } catch (e) { /* private mode */ }
    });
  }
  keepWordsOpen();

  async function refresh(message) {
    const g = game();
    const response = await fetch(g.dataset.boardUrl, {
      headers: { "X-Requested-With": "fetch" }, credentials: "same-origin", cache: "no-store",
    });
    if (!response.ok) throw new Error("the board answered " + response.status);
    const before = swapIn(await response.text());
    pick = null;
    pending = null;
    // The new board's controls are new and enabled; what was disabled and kept is given back.
    setSending(false);
    // The move ended the game: the page itself shows the result with the rematch in it.
    if (game() && game().dataset.status === "finished") { window.location.reload(); return; }
    scrollLog();
    setupKeys();
    boardChanged();
    announce(before);
    focusBoard();
    if (message) showError(message);
  }

  async function refreshAfterMove(message, played) {
    try {
      await refresh(message);
    } catch (err) {
      showError(played
        ? gettext("Your move was played, but the new board could not be loaded. Reload the page to see it.")
        : gettext("The board could not be loaded. Reload the page to see the game as it is."));
    }
  }

  // What went wrong, in words a player can act on; the board is as it was before sending (the
  // tiles still picked, the move still shown placed), so trying again is one tap.
  function refused(text) {
    setSending(false);
    showError(text);
  }

  // What the page said as it opened ("Your game was created.", "You played F1 blue 3.", the
  // game moved on from) was news about the board before this move: not after it.
  function forgetOneShotMessages() {
    document.querySelectorAll(".content > .messages, .content > .moved-in").forEach((m) => m.remove());
  }

  async function submit(move) {
    if (busy) return;
    busy = true;
    const g = game();
    showError("");
    setSending(true);
    let response;
    try {
      response = await fetch(g.dataset.apiUrl, {
        method: "POST",
        credentials: "same-origin",
        headers: {
          "Content-Type": "application/json",
          "Accept": "application/json",
          "X-CSRFToken": csrfToken(),
        },
        body: JSON.stringify({ move: move, expected_ply: Number(g.dataset.ply) }),
      });
    } catch (err) {
      busy = false;
      refused(gettext("Your move was not sent: the connection failed. Check your connection and try again."));
      return;
    }
    try {
      if (response.ok) {
        // Where to go on to (games.presenters.next_game): there at once when the player asked
        // for it, else offered beside the board.
        let answer = {};
        try { answer = await response.json(); } catch (e) { answer = {}; }
        const onward = answer && answer.next_game;
        if (onward && answer.next_game_auto) {
          moveStatus(gettext("Your move was played. Going to your next game…"));
          // The next game's page says where the move went, with a link back
          // (games.presenters.next_game.MOVED_IN_PARAM).
          window.location.assign(onward.url + "?moved_in=" + encodeURIComponent(g.dataset.gameId));
          return;
        }
        nextUrl = onward ? onward.url : null;
        forgetOneShotMessages();
        await refreshAfterMove("", true);
        return;
      }
      let detail = "", code = "";
      try { ({ detail = "", code = "" } = await response.json()); } catch (e) { detail = ""; }
      if (response.status >= 500) {
        refused(gettext("Something went wrong on our side; your move was not played. Try again in a moment."));
      } else if (response.status === 409) {
        // A move of the player's own from another tab or window is reported as theirs.
        await refreshAfterMove(
          code === "already_moved"
            ? gettext("You already moved in another tab or window. The board is now up to date.")
            : code === "stale_move"
              ? gettext("The game moved on while you were choosing (another move was played). The board is now up to date; choose again.")
              : detail,
          false
        );
      } else {
        setSending(false);
        clearPick();
        const reason = detail || interpolate(gettext("error %(status)s"), { status: response.status }, true);
        showError(interpolate(gettext("Move %(move)s was refused: %(reason)s"), { move: move, reason: reason }, true));
      }
    } finally {
      busy = false;
      if (sendingDisabled.length) setSending(false);
      moveStatus("");
      const now = game();
      if (now) { now.classList.remove("sending"); now.removeAttribute("aria-busy"); }
    }
  }

  root.addEventListener("click", (event) => {
    const target = event.target.closest("button");
    if (!target || target.disabled || !root.contains(target) || busy) return;
    if (target.classList.contains("confirm-move-yes") && pending) {
      submit(pending.move);
    } else if (target.classList.contains("confirm-move-no")) {
      cancelPending(true);
    } else if (target.classList.contains("take")) {
      choose(target.dataset.source, target.dataset.color);
    } else if (target.classList.contains("dest") && pick) {
      choosePlace(pick.source + " " + pick.color + " " + target.dataset.dest, target);
    } else if (target.classList.contains("place")) {
      choosePlace("wall " + target.dataset.line + " " + target.dataset.column, target);
    }
  });

  // The notation form goes through the API as well, so there is one path with JavaScript on.
  // Choosing from the list and pressing its button is confirmation enough.
  root.addEventListener("submit", (event) => {
    const form = event.target.closest(".text-move-form");
    if (!form) return;
    event.preventDefault();
    clearPick();
    submit(form.elements.move.value);
  });

  // Escape takes back the last step: the move shown placed, then the picked tiles.
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || busy) return;
    if (pending) cancelPending(true);
    else if (pick) {
      const from = pick.from;
      const hadFocus = root.contains(document.activeElement);
      clearPick();
      if (hadFocus && from && document.contains(from)) from.focus({ preventScroll: true });
    }
  });

  // Live updates. The page asks the server to answer as soon as the game changes: a long-poll
  // on the game's version as this page sees it (an ETag), answered 304 when nothing changed
  // within the wait, or 200 as soon as something did; the page then loads the new board
  // (games/live/). A server that cannot keep a request waiting answers at once, and this then
  // asks once a POLL_MS: polling with ETag/304. When they fail twice in a row, it polls the board
  // itself (POLL_MS, backing off to 10 s) and tries them again a minute later. A hidden page
  // holds no wait: it asks for the board once a HIDDEN_POLL_MS (`?since=`, answered 204 while
  // unchanged), so that a tab left open in the background still says in its title when it is
  // the player's turn. While nothing the page asks is answered (twice in a row or more), the
  // page says that live updates stopped, until one is.
  const LIVE_WAIT_S = 50;
  const HIDDEN_POLL_MS = 30000;
  let liveTag = null; // the ETag of the version last seen, and the ply the page showed then
  let liveTagPly = null;
  let liveSide = ""; // the mark of what is beside the board (the chat) last seen: "" for now
  let liveRequest = null; // the request in flight, aborted when the page is hidden
  let liveDownUntil = 0;

  function pause(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }

  function liveUrl(g) {
    return g.dataset.liveUrl || g.dataset.boardUrl.replace(/board\/$/, "live/");
  }

  function liveNotice(stopped) {
    const notice = document.getElementById("live-notice");
    if (!notice) return;
    const text = stopped ? gettext("Live updates stopped; reconnecting…") : "";
    if (notice.textContent !== text) notice.textContent = text;
  }

  // Shows a board the server sent, unless the player is in the middle of a move or the page
  // already shows a later one (their own move, swapped in meanwhile). True when shown.
  function showBoard(html) {
    const now = game();
    if (busy || pick || pending || !now) return false;
    // The very board shown (the page's own move, come back live): nothing to change or move.
    if (html === lastHtml) return true;
    const next = document.createElement("template");
    next.innerHTML = html;
    const incoming = next.content.getElementById("game");
    if (incoming && Number(incoming.dataset.ply) < Number(now.dataset.ply)) return false;
    // The game has just ended: the page itself shows the result (the game-over banner with the
    // rematch, the analysis), outside the board swapped here.
    if (incoming && incoming.dataset.status === "finished" && now.dataset.status === "active") {
      window.location.reload();
      return true;
    }
    const inChat = document.activeElement && document.activeElement.closest("#chat");
    const hadFocus = root.contains(document.activeElement) && !inChat;
    const before = swapIn(html);
    scrollLog();
    setupKeys();
    boardChanged();
    announce(before);
    if (hadFocus) focusBoard();
    return true;
  }

  async function liveCheck(g) {
    const headers = { "X-Requested-With": "fetch" };
    if (liveTag && liveTagPly === g.dataset.ply) headers["If-None-Match"] = liveTag;
    liveRequest = new AbortController();
    const query = "?wait=" + LIVE_WAIT_S + "&since=" + g.dataset.ply
      + "&side=" + encodeURIComponent(liveSide);
    const response = await fetch(liveUrl(g) + query, {
      headers: headers, credentials: "same-origin", cache: "no-store", signal: liveRequest.signal,
    });
    if (response.redirected) throw new Error("signed out");
    const side = response.headers.get("X-Live-Side");
    const sideChanged = side !== null && side !== liveSide;
    if (side !== null) liveSide = side;
    // A chat message (games/live_marks.py): the chat panel asks for it (static/chat/chat.js).
    if (sideChanged) document.dispatchEvent(new CustomEvent("azul:chat-changed"));
    if (response.status === 304 || response.status === 204) {
      liveTag = response.headers.get("ETag") || liveTag;
      liveTagPly = g.dataset.ply;
      return false;
    }
    if (response.status !== 200) throw new Error("live updates answered " + response.status);
    const tag = response.headers.get("ETag");
    const changes = await response.json().catch(() => ({}));
    if (changes.board_changed === false) return true; // only the chat: wait again at once
    const board = await fetch(g.dataset.boardUrl, {
      headers: { "X-Requested-With": "fetch" }, credentials: "same-origin", cache: "no-store",
    });
    if (board.redirected || board.status !== 200) {
      throw new Error("the board answered " + board.status);
    }
    if (!showBoard(await board.text())) return false;
    liveTag = tag;
    liveTagPly = game() ? game().dataset.ply : null;
    return true;
  }

  async function pollBoard(g) {
    const response = await fetch(g.dataset.boardUrl + "?since=" + g.dataset.ply, {
      headers: { "X-Requested-With": "fetch" }, credentials: "same-origin", cache: "no-store",
    });
    if (response.redirected) throw new Error("signed out");
    if (response.status === 204) return false;
    if (response.status !== 200) throw new Error("the board answered " + response.status);
    return showBoard(await response.text());
  }

  async function watchGame() {
    let failures = 0;
    let hiddenSince = 0; // when the hidden page last asked
    for (;;) {
      const g = game();
      if (!g || !["active", "open"].includes(g.dataset.status)) { liveNotice(false); return; }
      if (document.hidden && !busy && !pick && !pending) {
        if (Date.now() - hiddenSince >= HIDDEN_POLL_MS) {
          if (hiddenSince) {
            try { await pollBoard(g); } catch (err) { /* the visible page will say so */ }
          }
          hiddenSince = Date.now();
        }
        await pause(1000);
        continue;
      }
      hiddenSince = 0;
      if (document.hidden || busy || pick || pending) { await pause(250); continue; }
      const started = Date.now();
      let changed = false;
      try {
        changed = Date.now() < liveDownUntil ? await pollBoard(g) : await liveCheck(g);
        failures = 0;
        liveNotice(false);
      } catch (err) {
        liveRequest = null;
        if (err.name === "AbortError") continue; // the page was hidden
        failures += 1;
        if (failures >= 2) liveNotice(true);
        if (failures >= 2 && Date.now() >= liveDownUntil) liveDownUntil = Date.now() + 60000;
      }
      liveRequest = null;
      const gap = failures ? Math.min(POLL_MS * failures, 10000)
        : changed ? 0 : POLL_MS - (Date.now() - started);
      if (gap > 0) await pause(gap);
    }
  }

  document.addEventListener("visibilitychange", () => {
    if (document.hidden && liveRequest) liveRequest.abort();
  });
  setupKeys();
  placeChat(document.getElementById("chat"));
  watchGame();
})();
