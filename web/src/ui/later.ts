// What the element needs only after its first frame or when the reader asks for it: the
// quorum, invariants, network, leader-changes and settings panels, the logs and the
// metadata images (below the stage), the node menu, the metadata image card, the
// accessible summary, the dialogs (help, share), the export menu, the crash banner's
// content, the leader changes' marks on the timeline, what is under the pointer there
// (its tooltip, a tap, the keyboard's selection) with the popover that explains it, the
// timeline's PNG export, a story's completion card, and what puts them all in place
// (later-mount.ts). A chunk of its own: the element imports it right after its first
// frame (and at once when something here is asked for sooner), so the page draws a
// running cluster without waiting for it.

import { explainTerms } from './common/glossary.js';
import { MEANINGS } from './common/glossary-text.js';

export { mount } from './element/later-mount.js';

// the tooltips drawn with the first frame show their words' whole entries from now on
explainTerms(MEANINGS);
