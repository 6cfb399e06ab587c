// The element's stylesheets, in its shadow root: its own (kraft-playground.css), which its
// first frame waits for, and the later chunk's (kraft-playground-later.css, beside it),
// put after it once asked for.

import { h } from '../common/dom.js';

export class Stylesheets {
  /** The element's own stylesheet's `<link>`. */
  readonly own: HTMLLinkElement;
  #later: Promise<void> | null = null;

  /**
   * `href`: where the element's own stylesheet is (null: beside this module). `applied`
   * runs once it has applied, or failed to load (the element shows either way).
   */
  constructor(href: string | null, applied: (loaded: boolean) => void) {
    this.own = h('link', { rel: 'stylesheet', href: href ?? new URL('./kraft-playground.css', import.meta.url).href });
    this.own.addEventListener('load', () => applied(true));
    this.own.addEventListener('error', () => applied(false));
  }

  /**
   * The later chunk's stylesheet, put after the element's own (its rules came after those):
   * resolves once it has applied, or failed to load (the parts still work, unstyled).
   */
  later(): Promise<void> {
    this.#later ??= new Promise((resolve) => {
      const link = h('link', { rel: 'stylesheet', href: new URL('kraft-playground-later.css', this.own.href).href });
      link.addEventListener('load', () => resolve());
      link.addEventListener('error', () => resolve());
      this.own.after(link);
    });
    return this.#later;
  }
}
