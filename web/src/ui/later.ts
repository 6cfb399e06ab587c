// What the element needs only after its first frame or when the reader asks for it: the
// quorum, invariants, network, leader-changes and settings panels and the logs (below the stage),
// the node menu, the metadata image card, the accessible summary, the dialogs (help,
// share), the export menu, the crash banner's content, the leader changes' marks on the
// timeline, what is under the pointer there with the popover that explains it, and a
// story's completion card. A chunk of its own: the element imports it right after its
// first frame (and at once when something here is asked for sooner), so the page draws
// a running cluster without waiting for it.

export { LeaderChangesPanel } from './panels/leader-changes.js';
export { Logs } from './panels/logs.js';
export { NetworkPanel } from './panels/network.js';
export { SettingsPanel } from './panels/settings.js';
export { InvariantsPanel, QuorumPanel } from './panels/state-panels.js';
export { Summary } from './panels/summary.js';
export { ImageCard } from './ring/image-card.js';
export { NodeMenu } from './ring/node-menu.js';
export { crashBody } from './shell/crash-banner.js';
export { Dialogs } from './shell/dialogs.js';
export { ExportMenu } from './shell/export-menu.js';
export { openHelp } from './shell/help.js';
export { openShare } from './shell/share-dialog.js';
export * as card from './story/card.js';
export { ExplainPopover } from './timeline/explain.js';
export { drawFailovers } from './timeline/failovers.js';
export { allHits, hitAt, stepHits } from './timeline/hits.js';
