// What the element needs only after its first frame or when the reader asks for it: the
// quorum and invariants panels and the logs (below the stage), the node menu, the metadata image
// card, the accessible summary and the help dialog. A chunk of its own: the element imports it right after its first
// frame (and at once when something here is asked for sooner), so the page draws a
// running cluster without waiting for it.

export { openHelp } from './help.js';
export { ImageCard } from './image-card.js';
export { Logs } from './logs.js';
export { NodeMenu } from './node-menu.js';
export { InvariantsPanel, QuorumPanel } from './state-panels.js';
export { Summary } from './summary.js';
