// Tiny DOM helpers: element creation without a framework.
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K, attrs: Record<string, string | number | boolean | undefined> = {}, ...children: (Node | string | null | undefined)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (k === "class") el.className = String(v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined) el.append(c);
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";

export function s<K extends keyof SVGElementTagNameMap>(
  tag: K, attrs: Record<string, string | number | undefined> = {}, ...children: (Node | string | null | undefined)[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) el.setAttribute(k, String(v));
  for (const c of children) if (c !== null && c !== undefined) el.append(c);
  return el;
}

/**
 * Appends every child in turn: `el.append(...children)` passes one argument
 * per child, and an array from the program (tape rows, graphs, outputs) can
 * hold more than a call takes (a RangeError past some 100,000 in V8).
 */
export function appendAll(parent: Node & ParentNode, children: Iterable<Node | string>): void {
  for (const c of children) parent.append(c);
}
