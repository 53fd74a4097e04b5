"""What a demanding user would notice on a console page, checked in Chromium.

`watch(page)` starts collecting console errors and uncaught exceptions (a Content-Security-Policy
violation is a console error); `problems(page)` then lists, for the page as it is drawn now:

- the page scrolling sideways (wider than the window);
- a box that scrolls sideways without a visible cue (the shadow of `.scroll-cue`: a gradient background);
- clipped text: an element that hides its overflowing text without an ellipsis and a tooltip;
- form controls and buttons drawn over one another or outside the window (unless in a scroll box), a
  field drawn over a label's words, a select too narrow for the choice it shows;
- axe-core's serious and critical accessibility violations (vendor/axe-*.min.js, run in the page);
- the console errors seen since `watch`.
"""

from __future__ import annotations

from pathlib import Path

AXE = next((Path(__file__).parent / "vendor").glob("axe-*.min.js")).read_text(encoding="utf-8")

_LAYOUT = """() => {
  const found = [];
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\\s+/).join(".") : "");
  const visible = (el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
    return r.width > 1 && r.height > 1 && s.visibility !== "hidden" && s.display !== "none"; };
  const overflow = document.documentElement.scrollWidth - window.innerWidth;
  if (overflow > 1) found.push(`the page scrolls sideways by ${overflow} px`);
  const scrollBoxes = [];
  for (const el of document.querySelectorAll("body *")) {
    if (!visible(el) || el.closest("svg, #graph, details:not([open])")) continue;
    const s = getComputedStyle(el);
    const wider = el.scrollWidth - el.clientWidth > 1;
    if (!wider || el.tagName === "SELECT" || el.tagName === "TEXTAREA" || el.tagName === "INPUT") continue;
    if (s.overflowX === "auto" || s.overflowX === "scroll") {
      scrollBoxes.push(el);
      if (!s.backgroundImage.includes("gradient")) found.push(`${name(el)} scrolls sideways with no cue`);
    } else if (s.overflowX === "hidden" || s.overflowX === "clip") {
      const cut = s.textOverflow === "ellipsis" && (el.title || el.closest("[title]"));
      if (!cut && el.textContent.trim()) found.push(`${name(el)} clips its text ("${el.textContent.trim().slice(0, 40)}")`);
    }
  }
  const inScroll = (el) => scrollBoxes.some((box) => box.contains(el));
  const controls = Array.from(document.querySelectorAll("main input:not([type=hidden]), main select, main textarea, main button"))
    .filter((el) => visible(el) && !el.closest(".toasts.floating, .keys-help, details:not([open])"));
  const boxes = controls.map((el) => el.getBoundingClientRect());
  controls.forEach((el, i) => {
    const r = boxes[i];
    if (!inScroll(el) && (r.left < -1 || r.right > window.innerWidth + 1))
      found.push(`${name(el)} is outside the window (${Math.round(r.left)}..${Math.round(r.right)} px)`);
    for (let j = i + 1; j < controls.length; j++) {
      const o = boxes[j];
      const overlap = Math.min(r.right, o.right) - Math.max(r.left, o.left) > 2 && Math.min(r.bottom, o.bottom) - Math.max(r.top, o.top) > 2;
      if (overlap && !el.contains(controls[j]) && !controls[j].contains(el))
        found.push(`${name(el)} and ${name(controls[j])} are drawn over each other`);
    }
  });
  // A select too narrow for the choice it shows (the list it opens shows every choice whole), and a
  // field drawn over the words of a label.
  const canvas = document.createElement("canvas").getContext("2d");
  const words = [];
  for (const label of document.querySelectorAll("main label, main legend")) {
    if (!visible(label) || label.closest("details:not([open])")) continue;
    const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim() || node.parentElement.closest("select, option, .visually-hidden")) continue;
      const range = document.createRange(); range.selectNodeContents(node);
      for (const r of range.getClientRects()) if (r.width > 1 && r.height > 1) words.push({text: node.textContent.trim(), r});
    }
  }
  controls.forEach((el, i) => {
    const r = boxes[i];
    if (el.tagName === "SELECT") {
      const style = getComputedStyle(el);
      canvas.font = style.font;
      const room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 18;  // the arrow
      const shown = el.selectedIndex >= 0 ? el.options[el.selectedIndex].text : "";
      const cut = canvas.measureText(shown).width - room;
      if (cut > 1) found.push(`${name(el)} cuts the choice it shows ("${shown.slice(0, 30)}") by ${Math.round(cut)} px`);
    }
    if (el.tagName === "BUTTON") return;
    const under = words.filter((w) => w.r.left < r.right - 1 && r.left < w.r.right - 1 && w.r.top < r.bottom - 1 && r.top < w.r.bottom - 1);
    if (under.length) found.push(`${name(el)} is drawn over the words "${under.map((w) => w.text).join(" ").slice(0, 40)}"`);
  });
  return found;
}"""


def watch(page) -> list[str]:
    """Start collecting the page's console errors and uncaught exceptions; returns the live list."""
    errors: list[str] = []
    page.on("console", lambda message: errors.append(f"console: {message.text}") if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
    return errors


def axe_violations(page, impacts=("serious", "critical")) -> list[str]:
    """axe-core's violations of the given impacts on the page as drawn now, one line each."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.evaluate(AXE)  # evaluated by the driver, so the page's CSP does not stop it
    result = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
                           ".map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 3)}))")  # fmt: skip
    return [f"axe {v['impact']} {v['id']}: {v['help']} ({', '.join(v['nodes'])})" for v in result if v["impact"] in impacts]


def problems(page, errors: list[str] | None = None, axe: bool = True) -> list[str]:
    found = list(page.evaluate(_LAYOUT))
    if axe:
        found += axe_violations(page)
    if errors:
        found += errors
        errors.clear()
    return found
