// Dialogs: one modal <dialog> at a time, in the top layer (above everything, whatever the
// page does); the copy-a-link button the share and crash views use. The help dialog is
// help.ts's.

import { h, setText } from '../common/dom.js';

export class Dialogs {
  readonly #root: HTMLElement;
  #open: HTMLDialogElement | null = null;
  #opener: HTMLElement | null = null;

  /** `root` is where the dialog goes (inside the shadow root, so it gets the element's styles). */
  constructor(root: HTMLElement) {
    this.#root = root;
  }

  /** Opens a dialog (closing the one open, if any). */
  open(title: string, ...body: (Node | null)[]): void {
    const opener = this.#opener ?? activeElement(this.#root);
    this.close();
    this.#opener = opener;
    const close = h('button', { class: 'kp-btn', type: 'button', 'data-action': 'close' }, 'Close');
    close.addEventListener('click', () => this.close());
    const dialog = h('dialog', { class: 'kp-dialog', 'aria-label': title }, h('div', { class: 'kp-dialog-head' }, h('h2', null, title), close), ...body);
    dialog.addEventListener('click', (e) => {
      // a click on the backdrop (outside the dialog's box) closes it
      const r = dialog.getBoundingClientRect();
      if (e.target === dialog && (e.clientX < r.left || e.clientX > r.right || e.clientY < r.top || e.clientY > r.bottom)) this.close();
    });
    dialog.addEventListener('close', () => {
      dialog.remove();
      if (this.#open === dialog) {
        this.#open = null;
        this.#returnFocus();
      }
    });
    this.#open = dialog;
    this.#root.appendChild(dialog);
    dialog.showModal();
    close.focus({ preventScroll: true });
  }

  close(): void {
    const d = this.#open;
    this.#open = null;
    if (d?.open) d.close();
    d?.remove();
    if (d) this.#returnFocus();
  }

  /** Focus goes back to what had it when the dialog opened (not to the page's body). */
  #returnFocus(): void {
    const el = this.#opener;
    this.#opener = null;
    if (el?.isConnected) el.focus({ preventScroll: true });
  }
}

/** What has focus in the tree of `node` (through its shadow root), if anything. */
export function activeElement(node: Node): HTMLElement | null {
  const root = node.getRootNode() as Document | ShadowRoot;
  const el = root.activeElement ?? document.activeElement;
  return el instanceof HTMLElement && el !== document.body ? el : null;
}

/** A button that copies the link in `input` (selecting it, for copying by hand where the clipboard is refused). */
export function copyButton(input: HTMLInputElement, label: string): HTMLButtonElement {
  const copy = h('button', { class: 'kp-btn kp-primary', type: 'button' }, label);
  copy.addEventListener('click', async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
      setText(copy, 'Copied ✓');
    } catch {
      setText(copy, 'Select and copy (Ctrl+C)');
    }
  });
  return copy;
}
