// One Tab stop for a set of items, the ARIA "roving tabindex": the current
// item has tabindex 0 and the others -1, so Tab enters and leaves the set in
// one step (each of a 5,000-row tape's rows was a Tab stop) and keys move
// the focus between items. The listeners sit on the container, not on each
// item, so a large set costs no listeners per item.

export type Item = HTMLElement | SVGElement;

export interface RovingOptions {
  /** The item a key moves the focus to from item `from`; undefined: the key is not a move. */
  move(from: number, key: string): number | undefined;
  /** Enter or Space on an item. */
  choose(index: number, key: "Enter" | " "): void;
  /** An item got the focus (a key, a click or Tab). */
  focus?(index: number): void;
  /** The focus left the set. */
  blur?(): void;
}

export class RovingFocus {
  readonly #items: readonly Item[];
  readonly #index = new WeakMap<EventTarget, number>();
  #current = 0;

  /** `start`: the item Tab lands on first. */
  constructor(container: Item, items: readonly Item[], opts: RovingOptions, start = 0) {
    this.#items = items;
    items.forEach((el, i) => {
      el.tabIndex = -1;
      this.#index.set(el, i);
    });
    this.#current = Math.min(Math.max(0, start), items.length - 1);
    if (items.length) items[this.#current].tabIndex = 0;
    // Chromium makes an SVG element with focus listeners a Tab stop of its own: not this one.
    if (container instanceof SVGElement) container.tabIndex = -1;
    container.addEventListener("focusin", (ev) => {
      const i = this.#find(ev.target);
      if (i === undefined) return;
      this.setCurrent(i);
      opts.focus?.(i);
    });
    container.addEventListener("focusout", (ev) => {
      // Moving between items is not leaving the set.
      if (this.#find(ev.target) !== undefined && this.#find((ev as FocusEvent).relatedTarget) === undefined) opts.blur?.();
    });
    container.addEventListener("keydown", (ev) => {
      const e = ev as KeyboardEvent;
      const i = this.#find(e.target);
      if (i === undefined || e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();  // Space would scroll the page
        opts.choose(i, e.key);
        return;
      }
      const to = opts.move(i, e.key);
      if (to === undefined) return;
      e.preventDefault();  // arrows, Home and End would scroll the page
      this.focusItem(to);
    });
  }

  #find(target: EventTarget | null): number | undefined {
    return target ? this.#index.get(target) : undefined;
  }

  /** Makes item `i` the Tab stop without moving the focus (a selection made elsewhere). */
  setCurrent(i: number): void {
    if (!this.#items.length) return;
    i = Math.min(Math.max(0, i), this.#items.length - 1);
    if (i === this.#current) return;
    this.#items[this.#current].tabIndex = -1;
    this.#items[i].tabIndex = 0;
    this.#current = i;
  }

  /** Makes this item the Tab stop (if it is one of the set). */
  setCurrentItem(el: Item): void {
    const i = this.#index.get(el);
    if (i !== undefined) this.setCurrent(i);
  }

  focusItem(i: number): void {
    if (!this.#items.length) return;
    this.setCurrent(i);
    this.#items[this.#current].focus();
  }
}

/** Moves in a list: Up/Down by one item, Home and End to the ends. */
export function listMove(count: number): RovingOptions["move"] {
  return (from, key) => {
    const to = { ArrowDown: from + 1, ArrowUp: from - 1, Home: 0, End: count - 1 }[key];
    return to === undefined ? undefined : Math.min(Math.max(0, to), count - 1);
  };
}
