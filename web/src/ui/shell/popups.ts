// The element's popups close on a tap anywhere else on the page (a phone has no Escape
// key): the node menu, the export menu, the ring's key, the story's summary and the
// explain popover. Focus stays where the tap puts it.

/** A popup that a tap outside it closes. */
export interface Popup {
  /** Whether it is open. */
  open(): boolean;
  /** What counts as inside it (itself, and what opens it). */
  inside(path: EventTarget[]): boolean;
  close(): void;
}

/** An open `<details>` (a disclosure drawn over the page) as a popup. */
export function disclosure(el: () => HTMLDetailsElement | null): Popup {
  return {
    open: () => !!el()?.open,
    inside: (path) => path.includes(el() as EventTarget),
    close: () => {
      const d = el();
      if (d) d.open = false;
    },
  };
}

/** Listens on the page (while `connect`ed) and closes each popup open that a tap lands outside of. */
export class TapElsewhere {
  readonly #popups: () => Popup[];
  readonly #onTap = (e: PointerEvent) => {
    const path = e.composedPath();
    for (const p of this.#popups()) if (p.open() && !p.inside(path)) p.close();
  };

  constructor(popups: () => Popup[]) {
    this.#popups = popups;
  }

  connect(): void {
    document.addEventListener('pointerdown', this.#onTap, { capture: true, passive: true });
  }

  disconnect(): void {
    document.removeEventListener('pointerdown', this.#onTap, { capture: true });
  }
}
