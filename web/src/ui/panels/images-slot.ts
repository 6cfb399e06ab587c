// The metadata images' place until their block arrives with the later chunk (later.ts):
// it sits below the logs, in the full layout only, so the first frame does not show it.
// It keeps the stop the element last showed (the nodes it marks) and hands it over.

import { h } from '../common/dom.js';
import type { Images, ImagesHost } from './images.js';

export class ImagesSlot {
  readonly #place = h('div', { 'data-later': 'images' });
  #images: Images | null = null;
  #stop: number[] | null = null;

  constructor(private readonly host: ImagesHost) {}

  /** The block once it is here, else its empty place below the logs. */
  get el(): HTMLElement {
    return this.#images?.el ?? this.#place;
  }

  /** Puts the block (its class, from the later chunk) in its place, at the stop it missed. */
  mount(ImagesView: typeof Images): void {
    const images = new ImagesView(this.host);
    this.#place.replaceWith(images.el);
    this.#images = images;
    images.showStop(this.#stop);
  }

  invalidate(): void {
    this.#images?.invalidate();
  }

  /** See `Images.showStop`. */
  showStop(nodes: number[] | null): void {
    this.#stop = nodes;
    this.#images?.showStop(nodes);
  }

  /** See `Images.showAll` (from the image card, which comes with the block). */
  showAll(): void {
    this.#images?.showAll();
  }

  frame(): void {
    this.#images?.frame();
  }
}
