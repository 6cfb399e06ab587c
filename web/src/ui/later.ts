// What the element needs only after its first frame or when the reader asks for it: the
// quorum and invariants panels and the logs (below the stage), the node menu, the metadata image
// card, the accessible summary and the help dialog. A chunk of its own: the element imports it right after its first
// frame (and at once when something here is asked for sooner), so the page draws a
// running cluster without waiting for it.

export { Logs } from './panels/logs.js';
export { InvariantsPanel, QuorumPanel } from './panels/state-panels.js';
export { Summary } from './panels/summary.js';
export { ImageCard } from './ring/image-card.js';
export { NodeMenu } from './ring/node-menu.js';
export { openHelp } from './shell/help.js';
