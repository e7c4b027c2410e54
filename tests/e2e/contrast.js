// Contrast measured in the page (tests/e2e/test_dark_mode.py): colours composited over what lies
// behind them (ancestors' backgrounds, alpha included) and WCAG 2.2's contrast ratio between two
// colours. An expression: the checks by name, each returning what it counted and what failed.
(() => {
  const parse = (text) => {
    const m = /rgba?\(([^)]+)\)/.exec(text || "");
    if (!m) return null;
    const p = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const clear = { r: 0, g: 0, b: 0, a: 0 };
  const blend = (top, under) => ({
    r: top.r * top.a + under.r * (1 - top.a),
    g: top.g * top.a + under.g * (1 - top.a),
    b: top.b * top.a + under.b * (1 - top.a),
    a: 1,
  });
  const channel = (v) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const luminance = (c) => 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
  const ratio = (x, y) => {
    const [a, b] = [luminance(x), luminance(y)].sort((p, q) => q - p);
    return (a + 0.05) / (b + 0.05);
  };
  // The colour an element lies on: its ancestors' backgrounds down to the first opaque one.
  const behind = (el) => {
    const layers = [];
    for (let n = el; n; n = n.parentElement) {
      const c = parse(getComputedStyle(n).backgroundColor);
      if (c && c.a > 0) {
        layers.push(c);
        if (c.a >= 1) break;
      }
    }
    let base = { r: 255, g: 255, b: 255, a: 1 };
    for (let i = layers.length - 1; i >= 0; i--) base = blend(layers[i], base);
    return base;
  };
  // Dimmed on purpose (a pattern line that cannot take the picked tiles, a wall's colour hint).
  const faded = (el) => {
    for (let n = el; n; n = n.parentElement) {
      if (parseFloat(getComputedStyle(n).opacity) < 1) return true;
    }
    return false;
  };
  const shown = (el) =>
    el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const hex = (c) =>
    "#" + [c.r, c.g, c.b].map((v) => Math.round(v).toString(16).padStart(2, "0")).join("");
  const name = (el) => {
    let text = el.tagName.toLowerCase() + "." + [...el.classList].join(".");
    if (el.dataset.source) text += `[${el.dataset.source}]`;
    if (el.getAttribute("name")) text += `[name=${el.getAttribute("name")}]`;
    return text;
  };
  const fixed = (r) => r.toFixed(2);
  // A thing's edge against what lies around it: its face, or its border where it has one.
  const edge = (el) => {
    const s = getComputedStyle(el);
    const under = behind(el.parentElement);
    const face = blend(parse(s.backgroundColor) || clear, under);
    let best = ratio(face, under);
    if (parseFloat(s.borderTopWidth) > 0 && s.borderTopStyle !== "none") {
      best = Math.max(best, ratio(blend(parse(s.borderTopColor), face), under));
    }
    return { ratio: best, text: `${fixed(best)} (${hex(face)} on ${hex(under)})` };
  };
  // A border alone (dashed edges: empty spaces, legal destinations) against what lies around it.
  const line = (el) => {
    const s = getComputedStyle(el);
    const under = behind(el.parentElement);
    const r = ratio(blend(parse(s.borderTopColor), under), under);
    return { ratio: r, text: `${fixed(r)} (${s.borderTopColor} on ${hex(under)})` };
  };
  // An outline (the focus ring, the picked tiles' ring) against what lies around it.
  const ring = (el) => {
    const s = getComputedStyle(el);
    const under = behind(el.parentElement);
    const r = s.outlineStyle === "none" ? 0 : ratio(blend(parse(s.outlineColor), under), under);
    const width = parseFloat(s.outlineWidth);
    return { ratio: r, width, text: `${fixed(r)}, ${width}px (${s.outlineColor} on ${hex(under)})` };
  };
  const each = (selector, measure, least, label) => {
    const found = [];
    let counted = 0;
    for (const el of document.querySelectorAll(selector)) {
      if (!shown(el) || faded(el) || el.disabled) continue;
      counted++;
      const m = measure(el);
      if (m.ratio < least) found.push(`${label || name(el)}: ${m.text}`);
    }
    return { counted, found };
  };
  const merge = (...results) => ({
    counted: results.reduce((n, r) => n + r.counted, 0),
    found: results.flatMap((r) => r.found),
  });

  return {
    // Every tile at 3:1 against what it lies on; the empty spaces' dashed edges too.
    tiles: () =>
      merge(
        each(".tile:not(.slot):not(.empty)", edge, 3),
        each(".tile.empty", line, 3, "empty space"),
      ),
    // The picked tiles' ring and the legal destinations' dashed edges.
    picked: () => {
      const picked = each(".tile.picked", ring, 3);
      const legal = each(".picking button.dest:not(:disabled)", line, 3);
      return { picked: picked.counted, legal: legal.counted, found: [...picked.found, ...legal.found] };
    },
    // Fields, selects and buttons (not the board's own, nor the links that look like links).
    controls: () =>
      each(
        "button:not(.link-button):not(.tile):not(.pattern-line):not(.floor-line), a.button, " +
          "input:not([type=hidden]):not([type=checkbox]):not([type=radio]), select, textarea",
        edge,
        3,
      ),
    // The badges' text on their own colour ("you", "to move", the header's count), which axe
    // leaves "incomplete" when it cannot tell what lies behind a small element: 4.5:1.
    badges: () =>
      each(
        ".badge",
        (el) => {
          const s = getComputedStyle(el);
          const face = blend(parse(s.backgroundColor) || clear, behind(el.parentElement));
          const r = ratio(blend(parse(s.color), face), face);
          return { ratio: r, text: `"${el.textContent.trim()}" ${fixed(r)} (${s.color} on ${hex(face)})` };
        },
        4.5,
      ),
    // Each selector's first shown element focused as the keyboard would, its ring measured.
    focus: (selectors) => {
      const found = [];
      const seen = [];
      for (const selector of selectors) {
        const el = [...document.querySelectorAll(selector)].find(shown);
        if (!el) {
          found.push(`${selector}: not on the page`);
          continue;
        }
        el.focus();
        if (!el.matches(":focus-visible")) {
          found.push(`${selector}: no :focus-visible`);
          continue;
        }
        seen.push(selector);
        const r = ring(el);
        if (r.ratio < 3 || r.width < 2) found.push(`${selector}: ${r.text}`);
      }
      if (document.activeElement) document.activeElement.blur();
      return { seen, found };
    },
  };
})()
