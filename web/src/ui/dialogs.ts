// Dialogs: one modal <dialog> at a time, in the top layer (above everything, whatever the
// page does); the help dialog; the copy-a-link button the share and crash views use.

import { h, setText } from './dom.js';
import { glossaryTable } from './glossary.js';
import { KEY_HELP } from './keys.js';
import { STATES, SWITCHES } from './types.js';

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

/** The help dialog: how to read the views, the glossary, the keys, the safety switches; `term` scrolls to and marks that glossary entry. */
export function openHelp(dialogs: Dialogs, term?: string): void {
  const glossary = glossaryTable();
  const dl = h('dl', { class: 'kp-keys' });
  for (const [k, d] of KEY_HELP) dl.append(h('dt', null, ...k.split(' ').flatMap((x, i) => [i ? ' ' : '', h('kbd', null, x)])), h('dd', null, d));
  dialogs.open(
    'How to read the playground',
    h(
      'p',
      null,
      'A KRaft controller quorum: voters elect a leader; followers pull the log from it with Fetch; a record is committed once a majority has it (the high watermark, HW). Observers (brokers) replicate but never vote.',
    ),
    h('h3', null, 'Raft words, KRaft words'),
    h('p', null, "KRaft is Raft with Kafka's names and a few changes of its own. The same entries show as tooltips on the words where the playground uses them; tap a dotted word to come here."),
    glossary,
    h('h3', null, 'States'),
    h('div', { class: 'kp-states' }, ...STATES.map((s) => h('span', { class: `kp-st-${s}` }, s))),
    h('h3', null, 'Timeline'),
    h(
      'p',
      null,
      "One lane per node, time to the right. Bands show each node's state and epoch; arrows are messages from send to delivery (dashed: responses; ✓/✗ on vote responses); ✕ marks a dropped message; ✂ a truncation; the cyan step line is each node's HW. Tap the time axis to travel there.",
    ),
    h('h3', null, 'Keyboard'),
    dl,
    h('h3', null, 'Safety switches'),
    h('ul', null, ...SWITCHES.map(([n, e]) => h('li', null, h('code', null, n), `: ${e}`))),
  );
  if (term) {
    const row = glossary.querySelector(`tr[data-term="${CSS.escape(term)}"]`);
    row?.classList.add('kp-glossary-hit');
    row?.scrollIntoView({ block: 'center' });
  }
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
